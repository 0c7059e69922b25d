//! Tools: the listing (`tools/list`) and a call (`tools/call` params and result).

use super::content::Content;
use super::input_responses::RawInputResponses;
use super::messages::{CacheScope, ResultType};
use super::meta::{Icon, RequestMeta, ResultMeta};
use super::method::{ParamStrings, VisitString};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Hints about a tool's behaviour (untrusted by clients).
///
/// ```
/// use mcp_runtime::protocol::ToolAnnotations;
/// let a = ToolAnnotations { read_only_hint: Some(true), ..Default::default() };
/// assert_eq!(serde_json::to_value(&a).unwrap(), serde_json::json!({"readOnlyHint": true}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments has no extra effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// A tool as listed by `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolInfo {
    /// Unique name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// JSON Schema of the arguments (root `type: object`).
    pub input_schema: Map<String, Value>,
    /// JSON Schema of `structuredContent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Map<String, Value>>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `tools/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// One page of tools.
    pub tools: Vec<ToolInfo>,
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

/// `tools/call` params, borrowing `arguments` and the answers in `inputResponses` from the
/// message's text:
/// they are delimited when the request is read, and parsed only into the types the handler asks
/// for.
///
/// ```
/// use mcp_runtime::protocol::CallToolRequestParams;
/// let p: CallToolRequestParams<'_> =
///     serde_json::from_str(r#"{"name": "add", "arguments": {"a": 1, "b": 2}}"#).unwrap();
/// assert_eq!(p.arguments.unwrap().get(), r#"{"a": 1, "b": 2}"#);
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolRequestParams<'a> {
    /// The tool.
    pub name: String,
    /// Arguments, as sent (any JSON here; the server requires an object).
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<&'a RawValue>,
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

impl ParamStrings for CallToolRequestParams<'_> {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        let CallToolRequestParams {
            name,
            arguments: _,
            input_responses: _,
            request_state: _,
            meta: _,
        } = self;
        visit("tool name", name)
    }
}

/// `tools/call` complete result.
///
/// ```
/// use mcp_runtime::protocol::{CallToolResult, Content};
/// let r = CallToolResult::new(vec![Content::text("42")]);
/// let v = serde_json::to_value(&r).unwrap();
/// assert_eq!(v["resultType"], "complete");
/// assert_eq!(v["isError"], false);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Unstructured content.
    pub content: Vec<Content>,
    /// Structured content (any JSON value; `Some(Value::Null)` is an explicit `null`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl CallToolResult {
    /// A successful result (`isError: false`).
    pub fn new(content: Vec<Content>) -> Self {
        CallToolResult {
            result_type: ResultType::Complete,
            content,
            structured_content: None,
            is_error: Some(false),
            meta: None,
        }
    }
    /// A tool execution error (`isError: true`) with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            result_type: ResultType::Complete,
            content: vec![Content::text(message)],
            structured_content: None,
            is_error: Some(true),
            meta: None,
        }
    }
    /// Sets `structuredContent`.
    #[must_use]
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured_content = Some(value);
        self
    }
    /// The text of its text blocks, one per line (what a model reads of it).
    ///
    /// ```
    /// use mcp_runtime::protocol::{CallToolResult, Content};
    /// let r = CallToolResult::new(vec![Content::text("a"), Content::text("b")]);
    /// assert_eq!(r.text(), "a\nb");
    /// ```
    #[inline]
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
    /// Whether it reports a tool execution error (`isError: true`).
    pub fn failed(&self) -> bool {
        self.is_error == Some(true)
    }
    /// Leaves `isError` out of the wire form (clients read absent as `false`).
    #[must_use]
    pub fn omit_is_error(mut self) -> Self {
        if self.is_error == Some(false) {
            self.is_error = None;
        }
        self
    }
}
