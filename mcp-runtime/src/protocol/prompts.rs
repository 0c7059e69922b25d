//! Prompts: the listing (`prompts/list`) and a rendering (`prompts/get` params and result).

use super::content::Content;
use super::input_responses::RawInputResponses;
use super::messages::{CacheScope, ResultType};
use super::meta::{Icon, RequestMeta, ResultMeta, Role};
use super::method::{ParamStrings, VisitString};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A prompt argument as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Argument name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// An argument.
    pub fn new(name: impl Into<String>, description: Option<String>, required: bool) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description,
            required: Some(required),
        }
    }
}

/// A prompt as listed by `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptInfo {
    /// Unique name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `prompts/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListPromptsResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// One page of prompts.
    pub prompts: Vec<PromptInfo>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness hint.
    pub ttl_ms: u64,
    /// Cache scope.
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// `prompts/get` params (`inputResponses` borrowed from the message's text).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptRequestParams<'a> {
    /// The prompt.
    pub name: String,
    /// String arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// MRTR answers, each as sent.
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<RawInputResponses<'a>>,
    /// MRTR state echoed back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Per-request metadata (boxed: it is large, and a request moves several times).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

impl ParamStrings for GetPromptRequestParams<'_> {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        let GetPromptRequestParams {
            name,
            arguments: _,
            input_responses: _,
            request_state: _,
            meta: _,
        } = self;
        visit("prompt name", name)
    }
}

/// One message of a prompt.
///
/// ```
/// use mcp_runtime::protocol::PromptMessage;
/// let m = PromptMessage::user("Review this.");
/// assert_eq!(serde_json::to_value(&m).unwrap()["content"]["text"], "Review this.");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// One content block.
    pub content: Content,
}

impl PromptMessage {
    /// A message.
    pub fn new(role: Role, content: Content) -> Self {
        PromptMessage { role, content }
    }
    /// A user text message.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage::new(Role::User, Content::text(text))
    }
    /// An assistant text message.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage::new(Role::Assistant, Content::text(text))
    }
}

/// `prompts/get` complete result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Description of this rendering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl GetPromptResult {
    /// A result with messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            result_type: ResultType::Complete,
            description: None,
            messages,
            meta: None,
        }
    }
}
