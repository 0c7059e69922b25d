//! What a request becomes on its way: a request that passed validation ([`Validated`]), the
//! request made ready for its handler ([`Prepared`]), then the work started from it: an answer
//! already, or a handler still to run ([`Work`]).

use super::authorize::Checking;
use super::encode::Response;
use crate::config::CacheHint;
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::{
    CompleteRequestParams, KnownParams, Method, RequestId, RequestMeta,
    SubscriptionsListenRequestParams,
};
use crate::registry::{
    BoxFuture, Completer, PromptEntry, PromptGet, ResourceFn, ResourceRead, ToolCall, ToolEntry,
    ToolOutcome,
};
use std::sync::Arc;

/// A request that passed validation, typed so that routing checks nothing again: its
/// `_meta` present (with the protocol version and client capabilities), its method one this
/// revision defines and the server offers, its params of that method (or malformed, answered
/// `-32602` by routing). Only `validate` makes one.
#[derive(Debug)]
pub(super) struct Validated<'a> {
    pub(super) id: RequestId,
    pub(super) meta: Box<RequestMeta>,
    pub(super) method: Method,
    pub(super) params: KnownParams<'a>,
}

/// A request whose primitive is found and whose input is checked and owned: only its handler
/// is left to run. Layers run between this and the handler.
pub(super) enum Prepared {
    /// Answered without a handler (a list page, `server/discover`, a tool call whose arguments
    /// do not match the input schema).
    Ready(Response),
    /// A `tools/call`.
    Tool(PreparedTool),
    /// A `resources/read`.
    Read(PreparedRead),
    /// A `prompts/get`.
    Prompt(PreparedPrompt),
    /// A `completion/complete`.
    Complete(Box<PreparedComplete>),
    /// A `subscriptions/listen`.
    Listen(Box<(SubscriptionsListenRequestParams, RequestContext)>),
    /// Answered by a future that needs no handler (a list filtered by custom checks).
    Pending(BoxFuture<'static, Result<Response, McpError>>),
    /// A request whose handler may run only once these custom authorization checks pass.
    Checked(Box<(Checking, Prepared)>),
}

/// A `tools/call` of a registered tool.
pub(super) struct PreparedTool {
    pub(super) entry: Arc<ToolEntry>,
    pub(super) call: ToolCall,
}

/// A `resources/read` of a registered resource or template.
pub(super) struct PreparedRead {
    pub(super) handler: Arc<ResourceFn>,
    pub(super) read: ResourceRead,
    pub(super) hint: CacheHint,
}

/// A `prompts/get` of a registered prompt.
pub(super) struct PreparedPrompt {
    pub(super) entry: Arc<PromptEntry>,
    pub(super) get: PromptGet,
}

/// A `completion/complete` (no completer: an empty completion).
pub(super) struct PreparedComplete {
    pub(super) completer: Option<Completer>,
    pub(super) params: CompleteRequestParams,
    pub(super) cx: RequestContext,
}

/// Work started for a request.
pub(super) enum Work {
    /// Answered without waiting.
    Ready(Response),
    /// A tool handler that did not finish at once.
    Tool(StartedTool),
    /// Any other handler.
    Other(BoxFuture<'static, Result<Response, McpError>>),
}

/// A tool handler that did not finish in its first poll, and what answering needs.
pub(super) struct StartedTool {
    pub(super) entry: Arc<ToolEntry>,
    pub(super) handler: BoxFuture<'static, Result<ToolOutcome, McpError>>,
    pub(super) id: RequestId,
}
