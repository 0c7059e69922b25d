//! What handlers may return, and how it becomes a wire result.

use crate::error::McpError;
use crate::protocol::{
    CallToolResult, Content, GetPromptResult, InputRequiredResult, PromptMessage, ResourceContents,
};
use serde::Serialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt::Display;

/// What a tool handler produced: a final result, or a request for client input.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ToolOutcome {
    /// A final `CallToolResult`.
    Complete(CallToolResult),
    /// An `input_required` interim result.
    InputRequired(InputRequiredResult),
    /// A task of another server, relayed as it came (its id made this server's): what a
    /// mounted server's tool answers a client that declared the tasks extension. Made by
    /// mounts only.
    #[doc(hidden)]
    RelayedTask(RelayedTask),
}

/// A task result of a mounted server, as relayed ([`ToolOutcome::RelayedTask`]).
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct RelayedTask(pub(crate) Value);

/// What a resource handler produced.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ResourceOutcome {
    /// The contents.
    Complete(Vec<ResourceContents>),
    /// An `input_required` interim result.
    InputRequired(InputRequiredResult),
}

/// What a prompt handler produced.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PromptOutcome {
    /// The rendered prompt.
    Complete(GetPromptResult),
    /// An `input_required` interim result.
    InputRequired(InputRequiredResult),
}

/// A return type of a `#[tool]` function.
///
/// | returned | wire result |
/// |---|---|
/// | `String`, `&str`, numbers, `bool`, `char`, [`Text<T: Display>`](Text) | one text block |
/// | [`Content`], `Vec<Content>` | those blocks |
/// | [`Json<T>`] | `structuredContent` + the JSON as text, and an `outputSchema` from `T` |
/// | [`Structured<T>`] | `structuredContent` + your text, no `outputSchema` |
/// | [`CallToolResult`] | as is |
/// | `()` | no content |
/// | `Result<T, E: Display>` | `T`, or `isError: true` with `E`'s message |
/// | `Result<T, McpError>` | `T`, or a JSON-RPC error |
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this return type is not a tool result",
    note = "return a `String`, a number, `Content`, `Vec<Content>`, `Json<T>`, `Structured<T>`, `CallToolResult`, `Text<T: Display>`, or a `Result` of one of these"
)]
pub trait IntoToolResult {
    /// Converts the value.
    fn into_tool_result(self) -> Result<ToolOutcome, McpError>;
    /// The `outputSchema` this return type declares, if any.
    fn output_schema() -> Option<Map<String, Value>> {
        None
    }
}

fn text_result(text: String) -> Result<ToolOutcome, McpError> {
    Ok(ToolOutcome::Complete(CallToolResult::new(vec![
        Content::text(text),
    ])))
}

macro_rules! display_results {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
                text_result(self.to_string())
            }
        }
    )*};
}
display_results!(
    String,
    &str,
    Cow<'_, str>,
    bool,
    char,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64
);

/// Wraps any `Display` value as one text block.
///
/// ```
/// use mcp_runtime::Text;
/// fn answer() -> Text<std::net::Ipv4Addr> { Text(std::net::Ipv4Addr::LOCALHOST) }
/// ```
#[derive(Debug, Clone)]
pub struct Text<T>(pub T);

impl<T: Display> IntoToolResult for Text<T> {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        text_result(self.0.to_string())
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        Ok(ToolOutcome::Complete(CallToolResult::new(Vec::new())))
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        Ok(ToolOutcome::Complete(CallToolResult::new(vec![self])))
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        Ok(ToolOutcome::Complete(CallToolResult::new(self)))
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        Ok(ToolOutcome::Complete(self))
    }
}

impl IntoToolResult for ToolOutcome {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        Ok(self)
    }
}

/// Structured output with a declared `outputSchema` (generated from `T`): the value becomes
/// `structuredContent`, and its JSON text is also sent as a text block for older clients.
///
/// ```
/// use mcp_runtime::Json;
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Weather { celsius: f64 }
/// fn weather() -> Json<Weather> { Json(Weather { celsius: 22.5 }) }
/// ```
#[derive(Debug, Clone)]
pub struct Json<T>(pub T);

impl<T: Serialize + schemars::JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        let value = serde_json::to_value(&self.0)
            .map_err(|e| McpError::internal(format!("could not serialize the tool output: {e}")))?;
        let text = value.to_string();
        Ok(ToolOutcome::Complete(
            CallToolResult::new(vec![Content::text(text)]).with_structured(value),
        ))
    }
    fn output_schema() -> Option<Map<String, Value>> {
        Some(crate::schema::schema_for::<T>())
    }
}

/// Structured output without an `outputSchema`, with your own human-readable content.
///
/// ```
/// use mcp_runtime::Structured;
/// let out = Structured::new(serde_json::json!({"matches": []})).text("Found 0 passages.");
/// ```
#[derive(Debug, Clone)]
pub struct Structured<T> {
    value: T,
    content: Vec<Content>,
}

impl<T> Structured<T> {
    /// Structured content with no text yet.
    pub fn new(value: T) -> Self {
        Structured {
            value,
            content: Vec::new(),
        }
    }
    /// Adds a text block.
    #[must_use]
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.content.push(Content::text(text));
        self
    }
    /// Adds any content block.
    #[must_use]
    pub fn content(mut self, block: Content) -> Self {
        self.content.push(block);
        self
    }
}

impl<T: Serialize> IntoToolResult for Structured<T> {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        let value = serde_json::to_value(&self.value)
            .map_err(|e| McpError::internal(format!("could not serialize the tool output: {e}")))?;
        let content = if self.content.is_empty() {
            vec![Content::text(value.to_string())]
        } else {
            self.content
        };
        Ok(ToolOutcome::Complete(
            CallToolResult::new(content).with_structured(value),
        ))
    }
}

impl<T: IntoToolResult, E: Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => Ok(ToolOutcome::Complete(CallToolResult::error(e.to_string()))),
        }
    }
    fn output_schema() -> Option<Map<String, Value>> {
        T::output_schema()
    }
}

impl<T: IntoToolResult> IntoToolResult for Result<T, McpError> {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        self.and_then(IntoToolResult::into_tool_result)
    }
    fn output_schema() -> Option<Map<String, Value>> {
        T::output_schema()
    }
}

/// A return type of a `#[resource]` function.
///
/// `String`/`&str` become text contents and `Vec<u8>` becomes a base64 blob, both with the URI
/// that was read and the resource's declared `mimeType`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "this return type is not resource contents",
    note = "return a `String` (text), a `Vec<u8>` (bytes), `ResourceContents`, `Vec<ResourceContents>`, or a `Result` of one of these"
)]
pub trait IntoResourceResult {
    /// Converts the value, given the URI that was read and the declared MIME type.
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError>;
}

fn with_mime(c: ResourceContents, mime: Option<&str>) -> ResourceContents {
    match mime {
        Some(m) if c.mime_type.is_none() => c.mime_type(m),
        _ => c,
    }
}

impl IntoResourceResult for String {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        Ok(ResourceOutcome::Complete(vec![with_mime(
            ResourceContents::text(uri, self),
            mime,
        )]))
    }
}

impl IntoResourceResult for &str {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        self.to_owned().into_resource_result(uri, mime)
    }
}

impl IntoResourceResult for Vec<u8> {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        Ok(ResourceOutcome::Complete(vec![with_mime(
            ResourceContents::blob(uri, &self),
            mime,
        )]))
    }
}

impl IntoResourceResult for ResourceContents {
    fn into_resource_result(
        self,
        _uri: &str,
        mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        Ok(ResourceOutcome::Complete(vec![with_mime(self, mime)]))
    }
}

impl IntoResourceResult for Vec<ResourceContents> {
    fn into_resource_result(
        self,
        _uri: &str,
        _mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        Ok(ResourceOutcome::Complete(self))
    }
}

impl IntoResourceResult for ResourceOutcome {
    fn into_resource_result(
        self,
        _uri: &str,
        _mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        Ok(self)
    }
}

impl<T: IntoResourceResult, E: Display> IntoResourceResult for Result<T, E> {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        match self {
            Ok(v) => v.into_resource_result(uri, mime),
            Err(e) => Err(McpError::internal(format!("reading {uri} failed: {e}"))),
        }
    }
}

impl<T: IntoResourceResult> IntoResourceResult for Result<T, McpError> {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        self.and_then(|v| v.into_resource_result(uri, mime))
    }
}

/// A return type of a `#[prompt]` function.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "this return type is not a prompt result",
    note = "return a `String` (one user message), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or a `Result` of one of these"
)]
pub trait IntoPromptResult {
    /// Converts the value.
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError>;
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        Ok(PromptOutcome::Complete(GetPromptResult::new(vec![
            PromptMessage::user(self),
        ])))
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        self.to_owned().into_prompt_result()
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        Ok(PromptOutcome::Complete(GetPromptResult::new(vec![self])))
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        Ok(PromptOutcome::Complete(GetPromptResult::new(self)))
    }
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        Ok(PromptOutcome::Complete(self))
    }
}

impl IntoPromptResult for PromptOutcome {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        Ok(self)
    }
}

impl<T: IntoPromptResult, E: Display> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        match self {
            Ok(v) => v.into_prompt_result(),
            Err(e) => Err(McpError::internal(e.to_string())),
        }
    }
}

impl<T: IntoPromptResult> IntoPromptResult for Result<T, McpError> {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        self.and_then(IntoPromptResult::into_prompt_result)
    }
}
