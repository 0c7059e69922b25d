//! Handler parameters built from the request rather than from the JSON arguments: the
//! [`FromContext`] trait, its implementations, and [`State<T>`].

use super::caller::Caller;
use super::notify::Logger;
use super::request::{Progress, RequestContext};
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
            McpError::internal(format!(
                "server state of type `{}` was not registered (call ServerBuilder::state)",
                std::any::type_name::<T>()
            ))
        })
    }
}

impl FromContext for Caller {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        cx.caller()
            .cloned()
            .ok_or_else(|| McpError::internal("this handler needs an authenticated caller, but no authentication layer is configured"))
    }
}

impl FromContext for Option<Caller> {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(cx.caller().cloned())
    }
}
