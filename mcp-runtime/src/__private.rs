//! What macro-generated code names. Not part of the public API: no semver guarantees.

pub use crate::context::FromContext;
pub use crate::dispatch::catch_panic;
pub use crate::error::SourceLocation;
pub use crate::protocol::{CacheScope, Icon, ToolAnnotations};
pub use crate::registry::{
    BoxFuture, IntoPromptResult, IntoResourceResult, IntoToolResult, PromptGet, PromptOutcome,
    ResourceOutcome, ResourceRead, ToolCall, ToolOutcome,
};
pub use crate::server::{IntoPrimitive, Primitive};
pub use crate::{
    Completer, CompletionRequest, McpError, Prompt, RequestContext, Resource, ResourceTemplate,
    Tool,
};
pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json;
pub use std;

/// A primitive submitted at link time by `#[tool]`, `#[resource]` or `#[prompt]`.
pub struct Registration {
    /// 0 tool, 1 resource, 2 template, 3 prompt.
    pub kind: u8,
    /// Name (tools, prompts) or URI / template (resources).
    pub key: &'static str,
    /// Builds the definition.
    pub build: fn() -> Primitive,
    /// Where it was declared.
    pub location: SourceLocation,
}

impl Registration {
    /// For `inventory::submit!`.
    pub const fn new(
        kind: u8,
        key: &'static str,
        build: fn() -> Primitive,
        file: &'static str,
        line: u32,
        column: u32,
    ) -> Self {
        Registration {
            kind,
            key,
            build,
            location: SourceLocation { file, line, column },
        }
    }
    pub(crate) fn sort_key(&self) -> (u8, &'static str) {
        (self.kind, self.key)
    }
}

inventory::collect!(Registration);

/// Deserializes a tool's (already validated) arguments.
#[allow(clippy::result_large_err)] // the error is a ready answer, built at most once per call
pub fn parse_arguments<T: serde::de::DeserializeOwned>(call: &ToolCall) -> Result<T, ToolOutcome> {
    call.parse_arguments::<T>().map_err(|e| {
        ToolOutcome::Complete(crate::protocol::CallToolResult::error(format!(
            "Invalid arguments for tool `{}`: {e}",
            call.name
        )))
    })
}

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

/// Compile-time check helper for context parameters.
pub const fn assert_context<T: FromContext>() {}

/// Compile-time check that a handler future is `Send`.
pub fn assert_send<F: std::future::Future + Send>(f: F) -> F {
    f
}

pub use crate::mrtr::{
    ElicitForm, Elicitation, FormField, InputSet, Roots, Sampled, Slot, sample_params,
};

/// Compile-time check that a form field is flat (spanned at the field's type by the derive).
pub const fn assert_form_field<T: FormField>() {}

/// `FormField::OPTIONAL` of a field type, for the derive.
pub const fn form_field_optional<T: FormField>() -> bool {
    T::OPTIONAL
}
