//! `sampling/createMessage`: what a server asks the client's model, and the answer.

use super::content::{Content, MediaContent, TextContent};
use super::meta::Role;
use super::tools::ToolInfo;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Hints and priorities for the client's model choice (`ModelPreferences`). Priorities range
/// from 0 to 1.
///
/// ```
/// use mcp_runtime::protocol::ModelPreferences;
/// let p: ModelPreferences =
///     serde_json::from_str(r#"{"hints":[{"name":"claude"}],"speedPriority":0.8}"#).unwrap();
/// assert_eq!(p.hints.unwrap()[0].name.as_deref(), Some("claude"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model names or families to prefer, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<serde_json::Number>,
    /// How much latency matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<serde_json::Number>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<serde_json::Number>,
}

/// One model hint: a (sub)string of a model name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelHint {
    /// Name or family, e.g. `"claude-3-sonnet"` or `"claude"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ModelHint {
    /// A hint naming a model or family.
    pub fn new(name: impl Into<String>) -> Self {
        ModelHint {
            name: Some(name.into()),
        }
    }
}

/// `sampling/createMessage` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Token budget.
    pub max_tokens: u64,
    /// Model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Deprecated context inclusion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<serde_json::Number>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Tools the model may use (needs `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolInfo>>,
    /// Tool choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl CreateMessageRequestParams {
    /// One user text message and a token budget.
    pub fn prompt(text: impl Into<String>, max_tokens: u64) -> Self {
        CreateMessageRequestParams {
            messages: vec![SamplingMessage {
                role: Role::User,
                content: SamplingContent::One(SamplingBlock::Content(Content::text(text))),
                meta: None,
            }],
            max_tokens,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            meta: None,
        }
    }
}

/// A message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// One block or several.
    pub content: SamplingContent,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// One block or a list of blocks.
// Deserialize: `protocol::readers` (read without serde's buffering).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
// Wire values, built once per message: boxing the large variant would only complicate matching.
#[allow(clippy::large_enum_variant)]
pub enum SamplingContent {
    /// A single block.
    One(SamplingBlock),
    /// Several blocks.
    Many(Vec<SamplingBlock>),
}

impl SamplingContent {
    /// The concatenated text of the text blocks.
    pub fn text(&self) -> String {
        match self {
            SamplingContent::One(b) => b.text().unwrap_or_default().to_owned(),
            SamplingContent::Many(v) => v.iter().filter_map(SamplingBlock::text).collect(),
        }
    }
}

/// A sampling block: ordinary content, or `tool_use` / `tool_result` kept as JSON.
// Deserialize: `protocol::readers` (read without serde's buffering).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
// Wire values, built once per message: boxing the large variant would only complicate matching.
#[allow(clippy::large_enum_variant)]
pub enum SamplingBlock {
    /// Text, image or audio.
    Content(Content),
    /// `tool_use`, `tool_result` or an unknown block.
    Other(Map<String, Value>),
}

impl SamplingBlock {
    /// The text of a text block.
    fn text(&self) -> Option<&str> {
        match self {
            SamplingBlock::Content(c) => c.as_text(),
            SamplingBlock::Other(_) => None,
        }
    }

    /// The block as a typed [`SamplingMessageContentBlock`], when it is a known kind.
    // Inline: compiled only by its callers, not into every server (its reader of every block
    // kind is about 14 k lines of IR; BENCHMARKS.md, "The author's build cost").
    #[inline]
    pub fn to_typed(&self) -> Option<SamplingMessageContentBlock> {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
    }
}

impl From<SamplingMessageContentBlock> for SamplingBlock {
    // Inline: compiled only by its callers (clients), not into every server (about 9 k lines
    // of IR; BENCHMARKS.md, "The author's build cost").
    #[inline]
    fn from(block: SamplingMessageContentBlock) -> Self {
        match block {
            SamplingMessageContentBlock::Text(t) => SamplingBlock::Content(Content::Text(t)),
            SamplingMessageContentBlock::Image(m) => SamplingBlock::Content(Content::Image(m)),
            SamplingMessageContentBlock::Audio(m) => SamplingBlock::Content(Content::Audio(m)),
            other => match serde_json::to_value(&other) {
                Ok(Value::Object(map)) => SamplingBlock::Other(map),
                _ => SamplingBlock::Other(Map::new()),
            },
        }
    }
}

/// A typed block of a sampling message (`SamplingMessageContentBlock`): text, image, audio, or
/// the tool-loop blocks `tool_use` / `tool_result`.
///
/// ```
/// use mcp_runtime::protocol::SamplingMessageContentBlock;
/// let b: SamplingMessageContentBlock = serde_json::from_str(
///     r#"{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}"#,
/// ).unwrap();
/// assert!(matches!(b, SamplingMessageContentBlock::ToolUse(ref u) if u.name == "get_weather"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SamplingMessageContentBlock {
    /// Text.
    Text(TextContent),
    /// A base64 image.
    Image(MediaContent),
    /// Base64 audio.
    Audio(MediaContent),
    /// The model asks to call a tool.
    ToolUse(ToolUseContent),
    /// The result of a tool call, sent back to the model.
    ToolResult(ToolResultContent),
}

/// A `tool_use` block (its `type` member is carried by [`SamplingMessageContentBlock`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolUseContent {
    /// Id of this tool use, echoed by the matching `tool_result`.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub input: Map<String, Value>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// A `tool_result` block (its `type` member is carried by [`SamplingMessageContentBlock`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultContent {
    /// The `id` of the `tool_use` this answers.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<Content>,
    /// Structured result (any JSON value; `Some(Value::Null)` is an explicit `null`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `sampling/createMessage` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Who said it (the assistant).
    pub role: Role,
    /// The content.
    pub content: SamplingContent,
    /// The model that answered.
    pub model: String,
    /// Why generation stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}
