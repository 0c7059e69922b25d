#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod protocol;
pub mod schema;

mod bus;
mod context;
mod dispatch;
mod error;
pub mod mrtr;
mod registry;
mod run;
mod server;
mod transport;
mod uri_template;

#[doc(hidden)]
pub mod __private;

pub use bus::{ChangeBus, LocalBus};
pub use context::{
    Caller, CancellationToken, FromContext, Logger, Progress, RequestContext, State,
};
pub use dispatch::{
    Call, CallOptions, Change, Incoming, Notification, Outgoing, Rejection, Request, Response,
    parse_message,
};
pub use error::{BuildError, McpError, SourceLocation};
pub use mcp_macros::{ElicitForm, prompt, resource, tool};
pub use mrtr::{Ask, ElicitForm, Elicitation, FormField, KeyRing, Roots, Rounds, Sampled, Step};
pub use registry::{
    Arguments, BoxFuture, Completer, CompletionRequest, IntoPromptResult, IntoResourceResult,
    IntoToolResult, Json, NoArguments, Prompt, PromptGet, PromptOutcome, Resource, ResourceOutcome,
    ResourceRead, ResourceTemplate, Structured, Text, Tool, ToolCall, ToolOutcome,
};
pub use run::RunMode;
pub use server::{
    CacheHint, CacheTarget, IntoPrimitive, Primitive, PrimitiveKind, Server, ServerBuilder,
};
pub use transport::http::{Authenticator, HttpOptions};
pub use transport::stdio::MAX_LINE;
pub use uri_template::UriTemplate;
