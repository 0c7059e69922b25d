//! Handler parameters built from the request rather than from the JSON arguments: the
//! [`FromContext`] trait, its implementations, and [`State<T>`].

use super::caller::Caller;
use super::notify::Logger;
use super::request::{Progress, RequestContext, StateMap};
use crate::error::McpError;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Shared application state of type `T` (registered with
/// [`ServerBuilder::state`](crate::ServerBuilder::state)), as a handler parameter.
///
/// ```
/// use mcp_runtime::State;
/// struct Db { url: String }
/// fn uses(State(db): State<Db>) -> usize { db.url.len() }
/// ```
pub struct State<T>(pub Arc<T>);

impl<T> std::ops::Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A handler parameter built from the request context rather than from the JSON arguments.
///
/// Implemented by [`RequestContext`], [`Progress`], [`Logger`], [`CancellationToken`],
/// [`State<T>`], [`Caller`] and `Option<Caller>`. Implement it for your own types and mark the
/// parameter with `#[ctx]`.
///
/// ```
/// use mcp_runtime::{FromContext, McpError, RequestContext};
/// struct ClientName(String);
/// impl FromContext for ClientName {
///     fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
///         Ok(ClientName(cx.client_info().map(|c| c.name.clone()).unwrap_or_default()))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a context parameter",
    label = "this type does not implement `FromContext`",
    note = "context parameters are `RequestContext`, `Progress`, `Logger`, `CancellationToken`, `State<T>`, `Caller`, `Option<Caller>`, or a type of yours implementing `mcp_runtime::FromContext`"
)]
pub trait FromContext: Sized {
    /// Builds the value, or refuses the request with a protocol error.
    fn from_context(cx: &RequestContext) -> Result<Self, McpError>;

    /// The shared state the parameter needs, checked when the server is built (`State<T>` needs
    /// a `T`). `None` by default.
    fn state_need() -> Option<StateNeed> {
        None
    }

    /// Whether the parameter lets the handler ask the client for input (multi round-trip
    /// requests): `false` by default.
    fn asks_client_input() -> bool {
        false
    }
}

/// A type of shared state a handler needs: [`ServerBuilder::build`](crate::ServerBuilder::build)
/// refuses a server that registers the handler without registering the state.
///
/// ```
/// use mcp_runtime::{NoArguments, Server, StateNeed, Tool};
/// struct Notes;
/// let tool = Tool::new("count")
///     .needs(StateNeed::of::<Notes>())
///     .handler(|_: NoArguments, cx| async move { cx.state::<Notes>().is_some().to_string() });
/// let err = Server::builder().tool(tool.clone()).build().unwrap_err();
/// assert!(err.to_string().contains("Notes"));
/// assert!(Server::builder().state(Notes).tool(tool).build().is_ok());
/// ```
#[derive(Clone, Copy)]
pub struct StateNeed {
    type_name: &'static str,
    present: fn(&StateMap) -> bool,
}

impl StateNeed {
    /// The need of a `T`.
    pub fn of<T: Send + Sync + 'static>() -> Self {
        StateNeed {
            type_name: std::any::type_name::<T>(),
            present: |state| state.get::<Arc<T>>().is_some(),
        }
    }
    /// The type's name, for messages.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
    /// Whether `state` holds it.
    pub(crate) fn is_met(&self, state: &StateMap) -> bool {
        (self.present)(state)
    }
}

impl std::fmt::Debug for StateNeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateNeed({})", self.type_name)
    }
}

impl PartialEq for StateNeed {
    fn eq(&self, other: &StateNeed) -> bool {
        self.type_name == other.type_name
    }
}

impl FromContext for RequestContext {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.clone())
    }
}

impl FromContext for Progress {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.progress())
    }
}

impl FromContext for Logger {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.logger())
    }
}

impl FromContext for CancellationToken {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.cancellation())
    }
}

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        cx.state::<T>().map(State).ok_or_else(|| {
            // The client learns nothing of the server's types; the log says which is missing.
            tracing::error!(
                state = std::any::type_name::<T>(),
                "a handler needs shared state that was not registered (ServerBuilder::state)"
            );
            McpError::internal("Internal error: the server is misconfigured; see its log")
        })
    }
    fn state_need() -> Option<StateNeed> {
        Some(StateNeed::of::<T>())
    }
}

impl FromContext for Caller {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        // Anonymous: a refusal (HTTP answers 401 with a challenge when it authenticates, 403
        // when it authenticates no one).
        cx.caller()
            .cloned()
            .ok_or_else(|| McpError::refused(&format!("`{}`", cx.method()), &[], None, true))
    }
}

impl FromContext for Option<Caller> {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.caller().cloned())
    }
}
