//! Parameters and results of every method a 2026-07-28 server serves.

use super::{
    Content, Icon, Implementation, NotificationMeta, ProgressToken, RawInputResponses, RequestId,
    RequestMeta, Resource, ResourceContents, ResourceTemplate, ResultMeta, Role,
    ServerCapabilities,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The `resultType` of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// A final result.
    #[default]
    Complete,
    /// An interim MRTR result.
    InputRequired,
    /// A value defined by an extension (e.g. `"task"`).
    #[serde(untagged)]
    Other(String),
}

/// Cache scope of a cacheable result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Same for every caller: shared caches may reuse it.
    Public,
    /// Depends on the caller's authorization context.
    Private,
}

/// Params of any request: only `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestParams {
    /// Per-request metadata (boxed: it is large, and a request moves several times).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

/// Params of the list methods.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PaginatedRequestParams {
    /// Opaque cursor from a previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Per-request metadata (boxed: it is large, and a request moves several times).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

/// `server/discover` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Versions this server accepts.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Guidance for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Freshness hint in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse the result.
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

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
    /// Leaves `isError` out of the wire form (clients read absent as `false`).
    #[must_use]
    pub fn omit_is_error(mut self) -> Self {
        if self.is_error == Some(false) {
            self.is_error = None;
        }
        self
    }
}

/// `resources/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourcesResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// One page of resources.
    pub resources: Vec<Resource>,
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

/// `resources/templates/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourceTemplatesResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// One page of templates.
    pub resource_templates: Vec<ResourceTemplate>,
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

/// `resources/read` params (`inputResponses` borrowed from the message's text).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceRequestParams<'a> {
    /// The URI to read.
    pub uri: String,
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

/// `resources/read` complete result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The contents.
    pub contents: Vec<ResourceContents>,
    /// Freshness hint.
    pub ttl_ms: u64,
    /// Cache scope.
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

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

/// What `completion/complete` completes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum CompletionReference {
    /// A prompt argument.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// Prompt name.
        name: String,
        /// Display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// A resource template variable.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The template.
        uri: String,
    },
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionArgument {
    /// Argument name.
    pub name: String,
    /// What was typed so far.
    pub value: String,
}

/// Already-resolved arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionContext {
    /// Argument values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
}

/// `completion/complete` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteRequestParams {
    /// What is completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument.
    pub argument: CompletionArgument,
    /// Context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Per-request metadata (boxed: it is large, and a request moves several times).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

/// The completion values.
///
/// ```
/// use mcp_runtime::protocol::Completion;
/// let c = Completion::new(vec!["python".into()]);
/// assert_eq!(serde_json::to_value(&c).unwrap(), serde_json::json!({"values": ["python"]}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// Total number of matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more exist than `values` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// Values (truncated to 100 on the wire, with `total` and `hasMore` set).
    pub fn new(values: Vec<String>) -> Self {
        Completion {
            values,
            total: None,
            has_more: None,
        }
    }
}

/// `completion/complete` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The values.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// Which notifications a `subscriptions/listen` request wants.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// URIs for `notifications/resources/updated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Extension members (e.g. `taskIds`).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `subscriptions/listen` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscriptionsListenRequestParams {
    /// What to listen for.
    #[serde(default)]
    pub notifications: SubscriptionFilter,
    /// Per-request metadata (boxed: it is large, and a request moves several times).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

/// `notifications/subscriptions/acknowledged` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscriptionsAcknowledgedParams {
    /// Carries the subscription id.
    #[serde(rename = "_meta")]
    pub meta: NotificationMeta,
    /// The honoured subset of the filter.
    pub notifications: SubscriptionFilter,
}

/// `subscriptions/listen` final result (sent when the server ends the stream).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Carries the subscription id.
    #[serde(rename = "_meta")]
    pub meta: ResultMeta,
}

/// `notifications/progress` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotificationParams {
    /// The request's token.
    pub progress_token: ProgressToken,
    /// Progress so far (strictly increasing).
    pub progress: serde_json::Number,
    /// Total, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<serde_json::Number>,
    /// Human-readable status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

/// `notifications/message` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LoggingMessageNotificationParams {
    /// Severity.
    pub level: super::LoggingLevel,
    /// Logger name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON.
    pub data: Value,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

/// `notifications/resources/updated` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceUpdatedNotificationParams {
    /// The updated URI.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

/// Params of notifications that carry only `_meta` (`*/list_changed`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotificationParams {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

/// `notifications/cancelled` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// The request to cancel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

/// Data of `-32022`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UnsupportedVersionData {
    /// Versions the server supports.
    pub supported: Vec<String>,
    /// What the client asked for.
    pub requested: String,
}

/// Server info convenience used by builders.
pub type ServerInfo = Implementation;
