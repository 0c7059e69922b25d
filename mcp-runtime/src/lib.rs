#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

// Layers, lowest first; a module imports only from the ones above it in this list.
pub mod auth;
mod bus;
mod config;
mod context;
pub mod dispatch;
mod error;
pub mod guide;
pub mod layers;
pub mod legacy;
pub mod mrtr;
mod net;
pub mod prelude;

// The root README's quick start, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod root_readme {}
pub mod protocol;
mod registry;
mod run;
pub mod schema;
mod seal;
mod server;
pub mod tasks;
pub mod testing;
pub mod transport;
mod uri_template;

#[doc(hidden)]
pub mod __private;

pub use bus::{Change, ChangeBus, LocalBus};
pub use config::{CacheHint, CacheTarget, Limits};
pub use context::{
    Caller, CancellationToken, FromContext, Logger, Progress, RequestContext, State, StateNeed,
};
pub use error::{BuildError, Error, McpError, SourceLocation};
pub use mcp_macros::{ElicitForm, handlers, prompt, resource, tool};
pub use mrtr::{Ask, ElicitForm, Elicitation, KeyRing, Roots, Rounds, Sampled, Step};
pub use registry::{
    Arguments, BoxFuture, Completer, CompletionRequest, Handlers, IntoPrimitive, IntoPrompt,
    IntoPromptResult, IntoResource, IntoResourceResult, IntoResourceTemplate, IntoTool,
    IntoToolResult, Json, NoArguments, Primitive, PrimitiveKind, Prompt, PromptGet, PromptOutcome,
    Resource, ResourceOutcome, ResourceRead, ResourceTemplate, Structured, TaskSupport, Text, Tool,
    ToolCall, ToolOutcome, parse_arguments,
};
#[cfg(feature = "otel")]
pub mod otel;
#[cfg(feature = "redis")]
pub mod redis;
pub use run::RunMode;
pub use server::{Server, ServerBuilder};
pub use transport::http::HttpOptions;
pub use uri_template::UriTemplate;

/// The `schemars` this crate derives schemas with (1.x), for `#[schemars(crate =
/// "mcp_runtime::schemars")]` when it is not a dependency of your own.
pub use schemars;
/// The `serde_json` this crate reads and writes JSON with.
pub use serde_json;
