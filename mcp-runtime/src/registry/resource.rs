//! Resource and resource template definitions.

use super::access::Requirement;
use super::complete::Completer;
use super::future::BoxFuture;
use super::output::{IntoResourceResult, ResourceOutcome};
use crate::config::CacheHint;
use crate::context::{RequestContext, StateNeed};
use crate::error::{McpError, SourceLocation};
use crate::protocol::{
    CacheScope, Icon, Resource as ResourceInfo, ResourceTemplate as TemplateInfo,
};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

/// One `resources/read` as seen by a handler.
#[derive(Debug)]
#[non_exhaustive]
pub struct ResourceRead {
    /// The URI being read.
    pub uri: String,
    /// Template variables (empty for fixed resources).
    pub variables: HashMap<String, String>,
    /// The request context (client input of MRTR rounds is reached through it).
    pub context: RequestContext,
}

pub(crate) type ResourceFn =
    dyn Fn(ResourceRead) -> BoxFuture<'static, Result<ResourceOutcome, McpError>> + Send + Sync;

fn wrap<F, Fut, R>(f: F, mime: Option<String>) -> Arc<ResourceFn>
where
    F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoResourceResult,
{
    Arc::new(move |read: ResourceRead| {
        let uri = read.uri.clone();
        let mime = mime.clone();
        let fut = f(read);
        Box::pin(async move { fut.await.into_resource_result(&uri, mime.as_deref()) })
    })
}

/// A generated handler: a function returning its boxed future, what `#[resource]` registers.
#[doc(hidden)]
pub type GeneratedResourceFn =
    fn(ResourceRead) -> BoxFuture<'static, Result<ResourceOutcome, McpError>>;

/// Sets a generated handler on a fixed resource (one instance of this function for every
/// resource, no closure per resource).
#[doc(hidden)]
pub fn generated_resource_handler(mut resource: Resource, f: GeneratedResourceFn) -> Resource {
    resource.handler = Some(Arc::new(f));
    resource
}

/// Sets a generated handler on a resource template.
#[doc(hidden)]
pub fn generated_template_handler(
    mut template: ResourceTemplate,
    f: GeneratedResourceFn,
) -> ResourceTemplate {
    template.handler = Some(Arc::new(f));
    template
}

macro_rules! common_setters {
    ($info:ident) => {
        /// Display title.
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.$info.title = Some(title.into());
            self
        }
        /// Description.
        pub fn description(mut self, description: impl Into<String>) -> Self {
            self.$info.description = Some(description.into());
            self
        }
        /// MIME type of the contents.
        pub fn mime_type(mut self, mime: impl Into<String>) -> Self {
            self.$info.mime_type = Some(mime.into());
            self
        }
        /// Adds an icon.
        pub fn icon(mut self, icon: Icon) -> Self {
            self.$info.icons.get_or_insert_with(Vec::new).push(icon);
            self
        }
        /// Caching hint of `resources/read` results (overrides the server default).
        pub fn cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
            self.cache = Some(CacheHint { ttl_ms, scope });
            self
        }
        /// Records where it was declared.
        pub fn source(mut self, location: SourceLocation) -> Self {
            self.source = Some(location);
            self
        }
        /// Declares shared state the handler takes from the context: building a server that
        /// registers it without the state fails, naming it (the macros declare `State<T>`
        /// parameters themselves).
        pub fn needs(mut self, need: StateNeed) -> Self {
            if !self.needs.contains(&need) {
                self.needs.push(need);
            }
            self
        }
        /// Declares that the handler asks the client for input (multi round-trip requests): a
        /// server with such a primitive and no shared `requestState` key warns at startup (the
        /// macros declare it themselves).
        pub fn asks_client_input(mut self) -> Self {
            self.asks_input = true;
            self
        }
        super::access::access_setters!();
    };
}

/// A resource with a fixed URI.
///
/// ```
/// use mcp_runtime::{Resource, protocol::CacheScope};
/// let r = Resource::new("config://service", "service-config")
///     .mime_type("application/json")
///     .cache(30_000, CacheScope::Private)
///     .handler(|_read| async { r#"{"region":"local"}"#.to_string() });
/// ```
#[derive(Clone)]
#[must_use]
pub struct Resource {
    pub(crate) info: ResourceInfo,
    pub(crate) cache: Option<CacheHint>,
    pub(crate) handler: Option<Arc<ResourceFn>>,
    pub(crate) source: Option<SourceLocation>,
    /// Shared state the handler needs.
    pub(crate) needs: Vec<StateNeed>,
    /// The handler asks the client for input.
    pub(crate) asks_input: bool,
    /// What a caller needs to see and read it.
    pub(crate) access: Requirement,
    /// Why it cannot be served, found while it was built (reported by `build`).
    pub(crate) problems: Vec<String>,
}

impl std::fmt::Debug for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resource")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Resource {
    /// A resource at `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            info: ResourceInfo::new(uri, name),
            cache: None,
            handler: None,
            source: None,
            needs: Vec::new(),
            asks_input: false,
            access: Requirement::default(),
            problems: Vec::new(),
        }
    }
    /// The URI.
    pub fn uri(&self) -> &str {
        &self.info.uri
    }
    /// The listing.
    pub fn info(&self) -> &ResourceInfo {
        &self.info
    }
    common_setters!(info);
    /// Size in bytes of the raw contents.
    pub fn size(mut self, size: u64) -> Self {
        self.info.size = Some(size);
        self
    }
    /// The read handler.
    pub fn handler<F, Fut, R>(mut self, f: F) -> Self
    where
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceResult,
    {
        self.handler = Some(wrap(f, self.info.mime_type.clone()));
        self
    }
}

/// A family of resources described by an RFC 6570 URI template.
///
/// ```
/// use mcp_runtime::ResourceTemplate;
/// let t = ResourceTemplate::new("test://template/{id}/data", "template-data")
///     .mime_type("application/json")
///     .handler(|read| async move { format!("{{\"id\":\"{}\"}}", read.variables["id"]) });
/// ```
#[derive(Clone)]
#[must_use]
pub struct ResourceTemplate {
    pub(crate) info: TemplateInfo,
    pub(crate) cache: Option<CacheHint>,
    pub(crate) handler: Option<Arc<ResourceFn>>,
    pub(crate) source: Option<SourceLocation>,
    /// Shared state the handler needs.
    pub(crate) needs: Vec<StateNeed>,
    /// The handler asks the client for input.
    pub(crate) asks_input: bool,
    pub(crate) completers: HashMap<String, Completer>,
    /// What a caller needs to see it and read its URIs.
    pub(crate) access: Requirement,
    /// What keeps it from being served (startup errors).
    pub(crate) problems: Vec<String>,
}

impl std::fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplate {
    /// A template named `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            info: TemplateInfo {
                uri_template: uri_template.into(),
                name: name.into(),
                title: None,
                description: None,
                mime_type: None,
                annotations: None,
                icons: None,
                meta: None,
            },
            cache: None,
            handler: None,
            source: None,
            needs: Vec::new(),
            asks_input: false,
            access: Requirement::default(),
            completers: HashMap::new(),
            problems: Vec::new(),
        }
    }
    /// Marks the definition as invalid: [`ServerBuilder::build`](crate::ServerBuilder::build)
    /// reports `reason` as a startup error naming the template, as for
    /// [`Tool::invalid`](crate::Tool::invalid).
    pub fn invalid(mut self, reason: impl Into<String>) -> Self {
        self.problems.push(reason.into());
        self
    }
    /// The template text.
    pub fn uri_template(&self) -> &str {
        &self.info.uri_template
    }
    /// The listing.
    pub fn info(&self) -> &TemplateInfo {
        &self.info
    }
    common_setters!(info);
    /// The read handler (template variables are in [`ResourceRead::variables`]).
    pub fn handler<F, Fut, R>(mut self, f: F) -> Self
    where
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceResult,
    {
        self.handler = Some(wrap(f, self.info.mime_type.clone()));
        self
    }
    /// Completes values of the template variable `variable`.
    pub fn complete(mut self, variable: impl Into<String>, completer: Completer) -> Self {
        self.completers.insert(variable.into(), completer);
        self
    }
}
