//! What macro-generated code names (and the hooks of the crate's own tests). Not part of the
//! public API: no semver guarantees.

pub use crate::context::{FromContext, RequestContext, State, StateNeed};
pub use crate::error::{McpError, SourceLocation};
pub use crate::mrtr::{AskOnce, ElicitForm, FormField, InputSet};
pub use crate::protocol::{CacheScope, Icon, ToolAnnotations};
pub use crate::registry::{
    AccessCheck, BoxFuture, Completer, Handlers, IntoPrimitive, IntoPrompt, IntoPromptResult,
    IntoResource, IntoResourceResult, IntoResourceTemplate, IntoTool, IntoToolResult, Primitive,
    PrimitiveKind, Prompt, PromptGet, PromptOutcome, Registration, Resource, ResourceOutcome,
    ResourceRead, ResourceTemplate, Skills, TaskSupport, Tool, ToolCall, ToolOutcome, Visibility,
    parse_arguments,
};
pub use crate::skills::{EmbeddedFile, EmbeddedSkill};
pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json;
pub use std;

/// Parameters of a `#[tool]` must be JSON arguments: this bound gives a readable error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "tool arguments must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive `Deserialize` and `JsonSchema` for it, or, if it is a context value such as a progress reporter, mark the parameter with `#[ctx]`"
)]
pub trait ToolArgument {}
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolArgument for T {}

/// Compile-time check helper: `assert_argument::<T>()`.
pub const fn assert_argument<T: ToolArgument + ?Sized>() {}

/// A prompt argument or template variable (a string) read with serde: a unit enum deriving
/// `Deserialize` takes its variant's name.
pub fn string_argument<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, String> {
    use serde::de::IntoDeserializer;
    let de: serde::de::value::StrDeserializer<'_, serde::de::value::Error> = s.into_deserializer();
    T::deserialize(de).map_err(|e| e.to_string())
}

/// Compile-time check that a handler future is `Send`.
pub fn assert_send<F: std::future::Future + Send>(f: F) -> F {
    f
}

/// Test hook: how each of the two request readers reads `body` (`Debug` text of the request or
/// of the error). The one-pass `tools/call` reader answers only for what it reads.
pub fn decode_with_both_readers(body: &[u8]) -> (Option<String>, Result<String, String>) {
    let fast = crate::dispatch::decode_tool_call(body).map(|r| format!("{r:?}"));
    let general = match crate::dispatch::decode_general(body) {
        Ok(crate::protocol::ClientMessage::Request(r)) => Ok(format!("{r:?}")),
        Ok(other) => Ok(format!("{other:?}")),
        Err(rejection) => Err(format!("{:?} {:?}", rejection.id, rejection.error)),
    };
    (fast, general)
}
