//! What a primitive requires of its caller (scopes, a custom check), what a check is asked, and
//! how it refuses.

use super::arguments::Arguments;
use super::future::BoxFuture;
use super::kind::PrimitiveKind;
use crate::context::Caller;
use std::future::Future;
use std::sync::Arc;

/// Why a check is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Purpose {
    /// May the caller see the primitive in a list? (No arguments yet.)
    List,
    /// May the caller call the tool, read the resource, get the prompt (or complete its
    /// arguments)?
    Use,
}

/// One question to an [`AccessCheck`]: who, which primitive, what for, with which arguments.
///
/// ```
/// use mcp_runtime::auth::{AccessCheck, Denied, Purpose};
/// let pro_only = AccessCheck::new(|access| async move {
///     match access.caller() {
///         Some(c) if c.claim("tier").is_some_and(|t| t == "pro") => Ok(()),
///         _ if access.purpose() == Purpose::List => Ok(()), // listed, refused on use
///         _ => Err(Denied::new("this tool is for the pro tier")),
///     }
/// });
/// ```
#[derive(Debug, Clone)]
pub struct AccessRequest {
    pub(crate) caller: Option<Arc<Caller>>,
    pub(crate) kind: PrimitiveKind,
    pub(crate) name: Arc<str>,
    pub(crate) uri: Option<Arc<str>>,
    pub(crate) arguments: Option<Arguments>,
    pub(crate) purpose: Purpose,
}

impl AccessRequest {
    /// The caller, `None` when anonymous.
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_deref()
    }
    /// The kind of primitive.
    pub fn kind(&self) -> PrimitiveKind {
        self.kind
    }
    /// Its registered name: a tool's or prompt's name, a resource's URI, a template's URI
    /// template.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The URI being read (`resources/read` of a resource or a template).
    pub fn uri(&self) -> Option<&str> {
        self.uri.as_deref()
    }
    /// The arguments of a `tools/call` or `prompts/get`.
    pub fn arguments(&self) -> Option<&Arguments> {
        self.arguments.as_ref()
    }
    /// Listing or use.
    pub fn purpose(&self) -> Purpose {
        self.purpose
    }
}

/// A refusal: the scopes that would allow the request (answered in the `WWW-Authenticate`
/// challenge and in the error's `data.requiredScopes`), and why.
///
/// ```
/// use mcp_runtime::auth::Denied;
/// let d = Denied::scopes(["docs:write"]).because("drafts are editable by writers only");
/// assert_eq!(d.required_scopes(), ["docs:write"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Denied {
    pub(crate) scopes: Vec<String>,
    pub(crate) reason: Option<String>,
}

impl Denied {
    /// A refusal that no scope would lift.
    pub fn new(reason: impl Into<String>) -> Self {
        Denied {
            scopes: Vec::new(),
            reason: Some(reason.into()),
        }
    }
    /// A refusal that these scopes would lift.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(scopes: I) -> Self {
        Denied {
            scopes: scopes.into_iter().map(Into::into).collect(),
            reason: None,
        }
    }
    /// Says why.
    #[must_use]
    pub fn because(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
    /// The scopes that would allow the request.
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }
    /// Why, when said.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

type CheckFn = dyn Fn(AccessRequest) -> BoxFuture<'static, Result<(), Denied>> + Send + Sync;

/// A custom, asynchronous authorization check: a function of the caller and the request. Put
/// one on a primitive (`Tool::authorize`, `#[tool(authorize = f)]`) or on the whole server
/// ([`ServerBuilder::authorize`](crate::ServerBuilder::authorize)). It runs after the scope
/// requirement is met and before the handler; a refused primitive never runs. For lists it is
/// asked with [`Purpose::List`] for every item, and a refused item is left out.
///
/// ```
/// use mcp_runtime::auth::{AccessCheck, Denied};
/// let owners_only = AccessCheck::new(|access| async move {
///     let owner = access.arguments().and_then(|a| a.get("owner")).and_then(|o| o.as_str());
///     match (access.caller(), owner) {
///         (Some(c), Some(o)) if c.subject == o => Ok(()),
///         (_, None) => Ok(()),
///         _ => Err(Denied::new("only the owner may do this")),
///     }
/// });
/// ```
#[derive(Clone)]
pub struct AccessCheck(pub(crate) Arc<CheckFn>);

impl std::fmt::Debug for AccessCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessCheck")
    }
}

impl AccessCheck {
    /// A check from an async function.
    pub fn new<F, Fut>(f: F) -> Self
    where
        F: Fn(AccessRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), Denied>> + Send + 'static,
    {
        AccessCheck(Arc::new(move |access| Box::pin(f(access))))
    }
    pub(crate) fn ask(&self, access: AccessRequest) -> BoxFuture<'static, Result<(), Denied>> {
        (self.0)(access)
    }
}

/// What one primitive requires: scopes (all of them), and a custom check.
#[derive(Debug, Clone, Default)]
pub(crate) struct Requirement {
    pub(crate) scopes: Vec<String>,
    pub(crate) check: Option<AccessCheck>,
}

impl Requirement {
    /// Adds scopes (each once).
    pub(crate) fn add_scopes<I: IntoIterator<Item = S>, S: Into<String>>(&mut self, scopes: I) {
        for s in scopes {
            let s = s.into();
            if !self.scopes.contains(&s) {
                self.scopes.push(s);
            }
        }
    }
    /// The scopes `caller` lacks; `Ok` when none.
    pub(crate) fn scopes_met(&self, caller: Option<&Caller>) -> Result<(), Denied> {
        if self.scopes.is_empty() {
            return Ok(());
        }
        match caller {
            Some(c) if c.has_scopes(&self.scopes) => Ok(()),
            _ => Err(Denied::scopes(self.scopes.iter().cloned())),
        }
    }
}

/// The builder methods of every primitive's requirement (`Tool`, `Resource`,
/// `ResourceTemplate`, `Prompt` hold it in their `access` field).
macro_rules! access_setters {
    () => {
        /// Requires these OAuth scopes of the caller (all of them): a caller without them does
        /// not see it listed, and is refused with a challenge naming them (HTTP 401 without a
        /// token, 403 `insufficient_scope` with one).
        pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
            self.access.add_scopes(scopes);
            self
        }
        /// A custom authorization check, run (after the scopes are checked) before every use
        /// and for every listing: a refused caller does not see it listed, and it never runs
        /// for them.
        pub fn authorize(mut self, check: $crate::registry::access::AccessCheck) -> Self {
            self.access.check = Some(check);
            self
        }
    };
}
pub(super) use access_setters;

/// Whether the items of one list depend on who asks.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ListGuard {
    /// Some item requires scopes.
    pub(crate) scoped: bool,
    /// Some item has a custom check.
    pub(crate) checked: bool,
}

impl ListGuard {
    pub(super) fn add(&mut self, access: &Requirement) {
        self.scoped |= !access.scopes.is_empty();
        self.checked |= access.check.is_some();
    }
}
