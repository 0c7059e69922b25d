//! The server: configuration, builder, and the shared state every transport dispatches into.

use crate::context::StateMap;
use crate::error::BuildError;
use crate::protocol::{
    CacheScope, Implementation, LATEST_PROTOCOL_VERSION, ListCapability, ResourcesCapability,
    ServerCapabilities,
};
use crate::registry::{Items, Prompt, Registry, Resource, ResourceTemplate, Tool};
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// A caching hint: `ttlMs` and `cacheScope`.
///
/// ```
/// use mcp_runtime::{CacheHint, protocol::CacheScope};
/// let hint = CacheHint::new(300_000, CacheScope::Public);
/// assert_eq!(hint.ttl_ms, 300_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint.
    pub const fn new(ttl_ms: u64, scope: CacheScope) -> Self {
        CacheHint { ttl_ms, scope }
    }
}

/// Which list a caching hint applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheTarget {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    TemplatesList,
    /// `prompts/list`.
    PromptsList,
    /// `resources/read` (default for resources that set no hint of their own).
    ResourceRead,
}

#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) info: Arc<Implementation>,
    pub(crate) instructions: Option<String>,
    pub(crate) supported_versions: Vec<String>,
    pub(crate) discover_cache: CacheHint,
    pub(crate) tools_cache: CacheHint,
    pub(crate) resources_cache: CacheHint,
    pub(crate) templates_cache: CacheHint,
    pub(crate) prompts_cache: CacheHint,
    pub(crate) read_cache: CacheHint,
    pub(crate) page_size: usize,
    pub(crate) server_info_in_results: bool,
    pub(crate) explicit_is_error: bool,
    pub(crate) logging: bool,
    pub(crate) list_changed: bool,
    pub(crate) resource_subscribe: bool,
    pub(crate) extensions: Map<String, Value>,
    pub(crate) request_timeout: Option<Duration>,
    pub(crate) keepalive: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            info: Arc::new(Implementation::new(
                "mcp-runtime-server",
                env!("CARGO_PKG_VERSION"),
            )),
            instructions: None,
            supported_versions: vec![LATEST_PROTOCOL_VERSION.to_owned()],
            discover_cache: CacheHint::new(3_600_000, CacheScope::Public),
            tools_cache: CacheHint::new(300_000, CacheScope::Public),
            resources_cache: CacheHint::new(300_000, CacheScope::Public),
            templates_cache: CacheHint::new(300_000, CacheScope::Public),
            prompts_cache: CacheHint::new(300_000, CacheScope::Public),
            read_cache: CacheHint::new(60_000, CacheScope::Private),
            page_size: 100,
            server_info_in_results: true,
            explicit_is_error: true,
            logging: false,
            list_changed: false,
            resource_subscribe: false,
            extensions: Map::new(),
            request_timeout: None,
            keepalive: Duration::from_secs(15),
        }
    }
}

pub(crate) struct Shared {
    pub(crate) config: Config,
    pub(crate) items: RwLock<Items>,
    pub(crate) registry: RwLock<Arc<Registry>>,
    pub(crate) state: Arc<StateMap>,
    pub(crate) changes: Arc<dyn crate::bus::ChangeBus>,
    pub(crate) shutdown: crate::CancellationToken,
    pub(crate) sealer: Arc<crate::mrtr::Sealer>,
    /// `serverInfo` serialized once (it goes into every result).
    pub(crate) info_json: Option<crate::protocol::meta::InfoJson>,
}

/// An MCP server: what is registered plus configuration. Cheap to clone; every clone serves the
/// same registry. Serve it with [`Server::into_router`], [`Server::serve`] or
/// [`Server::serve_stdio`], or drive it directly with [`Server::handle_message`].
///
/// ```
/// use mcp_runtime::{Server, Tool};
/// let server = Server::builder()
///     .name("demo")
///     .version("1.0.0")
///     .tool(Tool::new("ping").raw_handler(|_| async {
///         Ok(mcp_runtime::ToolOutcome::Complete(mcp_runtime::protocol::CallToolResult::new(vec![])))
///     }))
///     .build()
///     .expect("valid server");
/// assert_eq!(server.info().name, "demo");
/// ```
#[derive(Clone)]
pub struct Server {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.shared.config.info)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A builder with nothing registered.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// A builder holding every `#[tool]`, `#[resource]` and `#[prompt]` of the program, each kind
    /// sorted by name (resources by URI). Duplicates are reported by [`ServerBuilder::build`].
    pub fn from_inventory() -> ServerBuilder {
        let mut builder = ServerBuilder::default();
        let mut all: Vec<&crate::__private::Registration> =
            inventory::iter::<crate::__private::Registration>
                .into_iter()
                .collect();
        all.sort_by(|a, b| {
            a.sort_key()
                .cmp(&b.sort_key())
                .then(a.location.line.cmp(&b.location.line))
        });
        for reg in all {
            builder = builder.register((reg.build)().with_source(reg.location));
        }
        builder
    }

    /// The server's self-description.
    pub fn info(&self) -> &Implementation {
        &self.shared.config.info
    }

    /// The capabilities advertised right now (derived from what is registered).
    pub fn capabilities(&self) -> ServerCapabilities {
        let reg = self.registry();
        let cfg = &self.shared.config;
        let list = |present: bool| {
            present.then(|| ListCapability {
                list_changed: cfg.list_changed.then_some(true),
            })
        };
        let mut caps = ServerCapabilities {
            tools: list(!reg.tools.is_empty()),
            prompts: list(!reg.prompts.is_empty()),
            resources: (!reg.resources.is_empty() || !reg.templates.is_empty()).then(|| {
                ResourcesCapability {
                    subscribe: cfg.resource_subscribe.then_some(true),
                    list_changed: cfg.list_changed.then_some(true),
                }
            }),
            completions: reg.has_completions().then(Map::new),
            logging: cfg.logging.then(Map::new),
            ..ServerCapabilities::default()
        };
        if !cfg.extensions.is_empty() {
            caps.extensions = Some(cfg.extensions.clone());
        }
        caps
    }

    pub(crate) fn registry(&self) -> Arc<Registry> {
        match self.shared.registry.read() {
            Ok(r) => r.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Ends every `subscriptions/listen` stream with its final result, for graceful shutdown.
    pub fn shutdown(&self) {
        self.shared.shutdown.cancel();
    }
}

/// One item for [`ServerBuilder::register`]: a tool, resource, template or prompt.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Primitive {
    /// A tool.
    Tool(Tool),
    /// A fixed resource.
    Resource(Resource),
    /// A resource template.
    ResourceTemplate(ResourceTemplate),
    /// A prompt.
    Prompt(Prompt),
}

impl Primitive {
    pub(crate) fn with_source(self, loc: crate::SourceLocation) -> Self {
        match self {
            Primitive::Tool(t) if t.source.is_none() => Primitive::Tool(t.source(loc)),
            Primitive::Resource(r) if r.source.is_none() => Primitive::Resource(r.source(loc)),
            Primitive::ResourceTemplate(r) if r.source.is_none() => {
                Primitive::ResourceTemplate(r.source(loc))
            }
            Primitive::Prompt(p) if p.source.is_none() => Primitive::Prompt(p.source(loc)),
            other => other,
        }
    }
}

/// Something that can be registered on a server: a [`Tool`], [`Resource`], [`ResourceTemplate`],
/// [`Prompt`], or the handle a macro generates next to an annotated function (`add {}` for
/// `#[tool] fn add`).
pub trait IntoPrimitive {
    /// The definition.
    fn into_primitive(self) -> Primitive;
}

impl IntoPrimitive for Primitive {
    fn into_primitive(self) -> Primitive {
        self
    }
}
impl IntoPrimitive for Tool {
    fn into_primitive(self) -> Primitive {
        Primitive::Tool(self)
    }
}
impl IntoPrimitive for Resource {
    fn into_primitive(self) -> Primitive {
        Primitive::Resource(self)
    }
}
impl IntoPrimitive for ResourceTemplate {
    fn into_primitive(self) -> Primitive {
        Primitive::ResourceTemplate(self)
    }
}
impl IntoPrimitive for Prompt {
    fn into_primitive(self) -> Primitive {
        Primitive::Prompt(self)
    }
}

/// Builds a [`Server`]. Items are listed in the order they are added.
///
/// ```
/// use mcp_runtime::{CacheTarget, Server, protocol::CacheScope};
/// let server = Server::builder()
///     .name("study-server")
///     .version("2.0.0")
///     .instructions("Use narrow tools.")
///     .cache(CacheTarget::Discover, 300_000, CacheScope::Public)
///     .build()
///     .unwrap();
/// ```
#[derive(Default)]
#[must_use]
pub struct ServerBuilder {
    config: Config,
    items: Items,
    state: StateMap,
    keys: Option<crate::mrtr::KeyRing>,
    state_ttl: Option<Duration>,
    bus: Option<Arc<dyn crate::bus::ChangeBus>>,
}

impl ServerBuilder {
    /// The server's name (`serverInfo.name`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config.info).name = name.into();
        self
    }
    /// The server's version (`serverInfo.version`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config.info).version = version.into();
        self
    }
    /// The whole `serverInfo`.
    pub fn info(mut self, info: Implementation) -> Self {
        self.config.info = Arc::new(info);
        self
    }
    /// Instructions for the model, sent by `server/discover`.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.config.instructions = Some(text.into());
        self
    }
    /// The caching hint of one kind of result.
    pub fn cache(mut self, target: CacheTarget, ttl_ms: u64, scope: CacheScope) -> Self {
        let hint = CacheHint::new(ttl_ms, scope);
        match target {
            CacheTarget::Discover => self.config.discover_cache = hint,
            CacheTarget::ToolsList => self.config.tools_cache = hint,
            CacheTarget::ResourcesList => self.config.resources_cache = hint,
            CacheTarget::TemplatesList => self.config.templates_cache = hint,
            CacheTarget::PromptsList => self.config.prompts_cache = hint,
            CacheTarget::ResourceRead => self.config.read_cache = hint,
        }
        self
    }
    /// Page size of the list methods (default 100, at least 1).
    pub fn page_size(mut self, size: usize) -> Self {
        self.config.page_size = size.max(1);
        self
    }
    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]` (default: yes).
    pub fn server_info_in_results(mut self, on: bool) -> Self {
        self.config.server_info_in_results = on;
        self
    }
    /// Whether successful tool results spell out `"isError": false` (default: yes). When off, the
    /// field is sent only when `true`.
    pub fn explicit_is_error(mut self, on: bool) -> Self {
        self.config.explicit_is_error = on;
        self
    }
    /// Advertise the `logging` capability and send `notifications/message` to requests that opt in.
    pub fn logging(mut self, on: bool) -> Self {
        self.config.logging = on;
        self
    }
    /// Advertise `listChanged` on tools, prompts and resources.
    pub fn list_changed(mut self, on: bool) -> Self {
        self.config.list_changed = on;
        self
    }
    /// Advertise `resources.subscribe` (`resourceSubscriptions` on listen streams).
    pub fn resource_subscriptions(mut self, on: bool) -> Self {
        self.config.resource_subscribe = on;
        self
    }
    /// Advertise an extension in `capabilities.extensions`.
    pub fn extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.config.extensions.insert(id.into(), settings);
        self
    }
    /// The protocol versions accepted (default: `["2026-07-28"]`).
    pub fn supported_versions<I: IntoIterator<Item = S>, S: Into<String>>(mut self, v: I) -> Self {
        self.config.supported_versions = v.into_iter().map(Into::into).collect();
        self
    }
    /// A hard time limit per request; past it the handler is cancelled and the request fails
    /// with `-32603`.
    pub fn request_timeout(mut self, limit: Duration) -> Self {
        self.config.request_timeout = Some(limit);
        self
    }
    /// Interval of keep-alive comments on long-lived SSE streams (default 15 s).
    pub fn keepalive(mut self, every: Duration) -> Self {
        self.config.keepalive = every;
        self
    }
    /// Shared state, available to handlers as [`State<T>`](crate::State).
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }
    /// The keys sealing `requestState` (the first seals, all open). Instances behind one load
    /// balancer must share them. Without this, the `MCP_STATE_KEY` environment variable is read;
    /// without that, a random key is generated and a warning is logged.
    pub fn state_keys(mut self, keys: crate::mrtr::KeyRing) -> Self {
        self.keys = Some(keys);
        self
    }
    /// The bus carrying change notifications between instances (default: this process only).
    pub fn change_bus(mut self, bus: impl crate::bus::ChangeBus) -> Self {
        self.bus = Some(Arc::new(bus));
        self
    }
    /// Lifetime of a `requestState` (default 5 minutes).
    pub fn state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = Some(ttl);
        self
    }
    /// Registers any primitive.
    pub fn register(mut self, item: impl IntoPrimitive) -> Self {
        match item.into_primitive() {
            Primitive::Tool(t) => self.items.tools.push(t),
            Primitive::Resource(r) => self.items.resources.push(r),
            Primitive::ResourceTemplate(t) => self.items.templates.push(t),
            Primitive::Prompt(p) => self.items.prompts.push(p),
        }
        self
    }
    /// Registers a tool.
    pub fn tool(self, tool: impl IntoPrimitive) -> Self {
        self.register(tool)
    }
    /// Registers a resource.
    pub fn resource(self, resource: impl IntoPrimitive) -> Self {
        self.register(resource)
    }
    /// Registers a resource template.
    pub fn resource_template(self, template: impl IntoPrimitive) -> Self {
        self.register(template)
    }
    /// Registers a prompt.
    pub fn prompt(self, prompt: impl IntoPrimitive) -> Self {
        self.register(prompt)
    }

    /// Validates everything and builds the server. Every problem is reported, none panics.
    pub fn build(self) -> Result<Server, BuildError> {
        let registry = Registry::build(&self.items)?;
        let ring = match self.keys {
            Some(ring) => ring,
            None => match std::env::var("MCP_STATE_KEY") {
                Ok(value) => crate::mrtr::KeyRing::from_env_value(&value).map_err(|reason| {
                    BuildError::Invalid {
                        kind: "setting",
                        name: "MCP_STATE_KEY".into(),
                        reason,
                        location: None,
                    }
                })?,
                Err(_) => {
                    const MSG: &str = "no requestState key configured (MCP_STATE_KEY or ServerBuilder::state_keys): \
                         generated a random one, so multi-round requests only resume on this instance";
                    if tracing::dispatcher::has_been_set() {
                        tracing::warn!("{MSG}");
                    } else {
                        // No log subscriber installed: stderr is the log (never stdout).
                        eprintln!("warning: {MSG}");
                    }
                    crate::mrtr::KeyRing::random()
                }
            },
        };
        let sealer = Arc::new(crate::mrtr::Sealer {
            ring,
            ttl: self.state_ttl.unwrap_or(crate::mrtr::DEFAULT_STATE_TTL),
        });
        let changes = self
            .bus
            .unwrap_or_else(|| Arc::new(crate::bus::LocalBus::default()));
        let info_json = crate::protocol::meta::InfoJson::new(self.config.info.clone());
        Ok(Server {
            shared: Arc::new(Shared {
                info_json,
                config: self.config,
                items: RwLock::new(self.items),
                registry: RwLock::new(Arc::new(registry)),
                state: Arc::new(self.state),
                changes,
                shutdown: crate::CancellationToken::new(),
                sealer,
            }),
        })
    }
}

/// The kind of a registered primitive, for run-time changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PrimitiveKind {
    /// A tool (keyed by name).
    Tool,
    /// A fixed resource (keyed by URI).
    Resource,
    /// A resource template (keyed by its template).
    ResourceTemplate,
    /// A prompt (keyed by name).
    Prompt,
}

impl PrimitiveKind {
    fn change(self) -> crate::dispatch::Change {
        match self {
            PrimitiveKind::Tool => crate::dispatch::Change::ToolsListChanged,
            PrimitiveKind::Prompt => crate::dispatch::Change::PromptsListChanged,
            PrimitiveKind::Resource | PrimitiveKind::ResourceTemplate => {
                crate::dispatch::Change::ResourcesListChanged
            }
        }
    }
}

/// Run-time changes. Every change rebuilds the registry snapshot (requests in flight keep the
/// one they started with) and tells open `subscriptions/listen` streams that opted in.
impl Server {
    fn change_items(
        &self,
        kind: PrimitiveKind,
        f: impl FnOnce(&mut Items) -> bool,
    ) -> Result<bool, BuildError> {
        let mut items = match self.shared.items.write() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let mut next = items.clone();
        if !f(&mut next) {
            return Ok(false);
        }
        let registry = Registry::build(&next)?;
        *items = next;
        match self.shared.registry.write() {
            Ok(mut r) => *r = Arc::new(registry),
            Err(p) => *p.into_inner() = Arc::new(registry),
        }
        drop(items);
        self.notify(kind.change());
        Ok(true)
    }

    /// Adds a primitive while serving. Fails (and changes nothing) if it is invalid or its name
    /// is taken.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use mcp_runtime::{Server, Tool};
    /// let server = Server::builder().build().unwrap();
    /// server.add(Tool::new("late").handler(|_: mcp_runtime::NoArguments, _| async { "hi" })).unwrap();
    /// assert!(server.capabilities().tools.is_some());
    /// # }
    /// ```
    pub fn add(&self, item: impl IntoPrimitive) -> Result<(), BuildError> {
        let item = item.into_primitive();
        let kind = match &item {
            Primitive::Tool(_) => PrimitiveKind::Tool,
            Primitive::Resource(_) => PrimitiveKind::Resource,
            Primitive::ResourceTemplate(_) => PrimitiveKind::ResourceTemplate,
            Primitive::Prompt(_) => PrimitiveKind::Prompt,
        };
        self.change_items(kind, move |items| {
            match item {
                Primitive::Tool(t) => items.tools.push(t),
                Primitive::Resource(r) => items.resources.push(r),
                Primitive::ResourceTemplate(t) => items.templates.push(t),
                Primitive::Prompt(p) => items.prompts.push(p),
            }
            true
        })
        .map(|_| ())
    }

    /// Removes a primitive; returns whether it existed.
    pub fn remove(&self, kind: PrimitiveKind, key: &str) -> bool {
        self.change_items(kind, |items| {
            let before = items.len();
            match kind {
                PrimitiveKind::Tool => items.tools.retain(|t| t.info.name != key),
                PrimitiveKind::Resource => items.resources.retain(|r| r.info.uri != key),
                PrimitiveKind::ResourceTemplate => {
                    items.templates.retain(|t| t.info.uri_template != key)
                }
                PrimitiveKind::Prompt => items.prompts.retain(|p| p.info.name != key),
            }
            items.disabled.retain(|(k, n)| !(*k == kind && n == key));
            items.len() != before
        })
        .unwrap_or(false)
    }

    /// Hides (`false`) or shows again (`true`) a primitive without removing it; returns whether
    /// anything changed. A disabled tool is absent from `tools/list` and unknown to `tools/call`.
    pub fn set_enabled(&self, kind: PrimitiveKind, key: &str, enabled: bool) -> bool {
        self.change_items(kind, |items| {
            if !items.contains(kind, key) {
                return false;
            }
            let entry = (kind, key.to_owned());
            if enabled {
                let before = items.disabled.len();
                items.disabled.retain(|e| *e != entry);
                items.disabled.len() != before
            } else if items.disabled.contains(&entry) {
                false
            } else {
                items.disabled.push(entry);
                true
            }
        })
        .unwrap_or(false)
    }

    /// Tells listen streams subscribed to `uri` (or a parent of it) that its contents changed.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.notify(crate::dispatch::Change::ResourceUpdated(uri.into()));
    }

    /// Publishes a change to every open listen stream of this server.
    pub fn notify(&self, change: crate::dispatch::Change) {
        // No receivers (no open listen stream) is not an error.
        self.shared.changes.publish(change);
    }
}
