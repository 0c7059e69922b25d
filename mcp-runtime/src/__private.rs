//! What macro-generated code names (and the hooks of the crate's own tests). Not part of the
//! public API: no semver guarantees.

pub use crate::context::{FromContext, RequestContext, State, StateNeed};
pub use crate::error::{McpError, SourceLocation};
pub use crate::mrtr::{AskOnce, ElicitForm, FormField, InputSet, InputSlot};
pub use crate::protocol::{CacheScope, Icon, ToolAnnotations};
pub use crate::registry::result_view::ResultSchema;
pub use crate::registry::{
    AccessCheck, BoxFuture, Build, Completer, GeneratedResourceFn, HandlerFn, Handlers,
    IntoPrimitive, IntoPrompt, IntoPromptResult, IntoResource, IntoResourceResult,
    IntoResourceTemplate, IntoTool, IntoToolResult, Primitive, PrimitiveKind, Prompt, PromptGet,
    PromptOutcome, Registration, Resource, ResourceOutcome, ResourceRead, ResourceTemplate,
    ResultView, TaskSupport, Tool, ToolCall, ToolOutcome, ToolSpec, Visibility,
    generated_prompt_handler, generated_resource_handler, generated_template_handler,
    generated_tool, parse_arguments,
};
#[cfg(feature = "skills")]
pub use crate::registry::{EmbeddedFile, EmbeddedSkill, Skills};
pub use crate::schema::schema_for;
pub use arguments::{FieldKey, field_value, object_schema, property, required};
pub use from_string::{
    FindFromStr, FindRefused, FindSerde, NoWay, NoWayEither, NotFromString, Parse, PromptArgument,
    Refused, TemplateVariable, ViaFromStr, ViaSerde, invalid_prompt_argument, invalid_variable,
    missing_prompt_argument, refused_prompt_argument, refused_variable, string_argument,
    string_probe,
};
pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json;
pub use std;

mod arguments;
mod from_string;

/// Parameters of a `#[tool]` must be JSON arguments: this bound gives a readable error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "tool arguments must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive `Deserialize` and `JsonSchema` for it, or, if it is a context value such as a progress reporter, mark the parameter with `#[ctx]`"
)]
pub trait ToolArgument {}
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolArgument for T {}

/// The type of a JSON argument, projected through this trait in a tool's arguments struct: a
/// type that is not `Deserialize + JsonSchema` fails here, once, at the parameter's type,
/// instead of in every method the arguments struct's impls have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "tool arguments must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive `Deserialize` and `JsonSchema` for it, or, if it is a context value such as a progress reporter, mark the parameter with `#[ctx]`"
)]
pub trait Argument {
    /// The type itself.
    type Type;
}
impl<T: ToolArgument> Argument for T {
    type Type = T;
}

/// Compile-time check helper: `assert_argument::<T>()`.
pub const fn assert_argument<T: ToolArgument + ?Sized>() {}

/// The type of an `#[elicit]` parameter: `Elicitation<T>` of a form `T` (written so, or through
/// an alias). Generated code asks and takes every `#[elicit]` parameter through it, named by
/// the parameter's type (`<ty as ElicitParam>::elicit(..)`), so that a type that is not an
/// `Elicitation<..>` is refused once, at the type, with this message (not by a type mismatch),
/// and an `Elicitation<T>` of a `T` that is not a form once, with [`ElicitForm`]'s.
///
/// ```
/// use mcp_runtime::__private::ElicitParam;
/// use mcp_runtime::{ElicitForm, Elicitation};
///
/// #[derive(serde::Deserialize, ElicitForm)]
/// struct Proceed {
///     proceed: bool,
/// }
/// type Answer = Elicitation<Proceed>;
///
/// fn form_of<P: ElicitParam>() -> &'static str {
///     std::any::type_name::<P::Form>()
/// }
/// assert!(form_of::<Answer>().ends_with("Proceed"));
/// ```
#[diagnostic::on_unimplemented(
    message = "an `#[elicit]` parameter is an `Elicitation<T>`, not `{Self}`",
    label = "write `Elicitation<Form>` here, `Form` a struct deriving `ElicitForm`",
    note = "derive `serde::Deserialize` and `ElicitForm` on a struct of the fields to ask for, such as `struct Proceed {{ proceed: bool }}`, and take `Elicitation<Proceed>` (or `Option<Elicitation<Proceed>>` when the client may lack elicitation); the answer is `Accepted(form)`, `Declined` or `Cancelled`"
)]
pub trait ElicitParam: Sized {
    /// The form asked for.
    type Form;
    /// [`InputSet::elicit`].
    fn elicit(
        inputs: &mut InputSet,
        key: &'static str,
        required: bool,
        message: &str,
    ) -> InputSlot<Self>
    where
        Self::Form: ElicitForm + Send + 'static;
    /// [`InputSet::elicit_once`].
    fn elicit_once(
        inputs: &mut InputSet,
        once: &'static AskOnce,
        key: &'static str,
        required: bool,
        message: &str,
    ) -> InputSlot<Self>
    where
        Self::Form: ElicitForm + Send + 'static;
    /// [`InputSet::take`], as the parameter's type.
    fn take(inputs: &mut InputSet, slot: InputSlot<Self>) -> Result<Self, McpError>
    where
        Self::Form: ElicitForm + Send + 'static;
    /// [`InputSet::take_optional`], as the parameter's type.
    fn take_optional(
        inputs: &mut InputSet,
        slot: InputSlot<Self>,
    ) -> Result<Option<Self>, McpError>
    where
        Self::Form: ElicitForm + Send + 'static;
}

impl<T> ElicitParam for crate::Elicitation<T> {
    type Form = T;
    fn elicit(
        inputs: &mut InputSet,
        key: &'static str,
        required: bool,
        message: &str,
    ) -> InputSlot<Self>
    where
        T: ElicitForm + Send + 'static,
    {
        inputs.elicit::<T>(key, required, message)
    }
    fn elicit_once(
        inputs: &mut InputSet,
        once: &'static AskOnce,
        key: &'static str,
        required: bool,
        message: &str,
    ) -> InputSlot<Self>
    where
        T: ElicitForm + Send + 'static,
    {
        inputs.elicit_once::<T>(once, key, required, message)
    }
    fn take(inputs: &mut InputSet, slot: InputSlot<Self>) -> Result<Self, McpError>
    where
        T: ElicitForm + Send + 'static,
    {
        inputs.take(slot)
    }
    fn take_optional(inputs: &mut InputSet, slot: InputSlot<Self>) -> Result<Option<Self>, McpError>
    where
        T: ElicitForm + Send + 'static,
    {
        inputs.take_optional(slot)
    }
}

/// Compile-time check that a handler future is `Send`.
pub fn assert_send<F: std::future::Future + Send>(f: F) -> F {
    f
}

/// Test hook: how each of the two request readers reads `body` (`Debug` text of the request or
/// of the error). The one-pass `tools/call` reader answers only for what it reads.
// Inline: compiled only by the test that calls it, not into every server.
#[inline]
pub fn decode_with_both_readers(body: &[u8]) -> (Option<String>, Result<String, String>) {
    let fast = crate::dispatch::decode_tool_call(body).map(|r| format!("{r:?}"));
    let general = match crate::dispatch::decode_general(body) {
        Ok(crate::protocol::ClientMessage::Request(r)) => Ok(format!("{r:?}")),
        Ok(other) => Ok(format!("{other:?}")),
        Err(rejection) => Err(format!("{:?} {:?}", rejection.id, rejection.error)),
    };
    (fast, general)
}
