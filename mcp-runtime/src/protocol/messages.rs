//! Shapes every method shares (result types, caching, params with only `_meta` or a cursor), and
//! those of `server/discover`, `completion/complete`, `subscriptions/listen` and the
//! notifications. Tools, resources and prompts have files of their own.

use super::capabilities::ServerCapabilities;
use super::jsonrpc::{ProgressToken, RequestId};
use super::meta::{Implementation, NotificationMeta, RequestMeta, ResultMeta};
use super::method::{ParamStrings, VisitString};
use serde::{Deserialize, Serialize};
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
    /// A task handle (the tasks extension's `CreateTaskResult`).
    Task,
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

impl ParamStrings for PaginatedRequestParams {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        let PaginatedRequestParams { cursor, meta: _ } = self;
        cursor
            .as_deref()
            .map_or(Ok(()), |cursor| visit("cursor", cursor))
    }
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

/// What `completion/complete` completes.
// Deserialize: `protocol::readers` (read without serde's buffering).
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    #[serde(rename = "ref", deserialize_with = "super::object::object")]
    pub reference: CompletionReference,
    /// The argument.
    #[serde(deserialize_with = "super::object::object")]
    pub argument: CompletionArgument,
    /// Context.
    #[serde(
        default,
        deserialize_with = "super::object::optional_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub context: Option<CompletionContext>,
    /// Per-request metadata (boxed: it is large, and a request moves several times).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

impl ParamStrings for CompleteRequestParams {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        // `context` holds the values of the other arguments: arguments, left out.
        let CompleteRequestParams {
            reference,
            argument: CompletionArgument { name, value },
            context: _,
            meta: _,
        } = self;
        match reference {
            CompletionReference::Prompt { name, title } => {
                visit("prompt name", name)?;
                if let Some(title) = title {
                    visit("prompt title", title)?;
                }
            }
            CompletionReference::Resource { uri } => visit("resource template URI", uri)?,
        }
        visit("argument name", name)?;
        visit("completion value", value)
    }
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
    /// URIs for `notifications/resources/updated` (at most [`MAX_LISTEN_ENTRIES`] are read).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "bounded_list"
    )]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Tasks whose status changes are sent as `notifications/tasks` (the tasks extension; at
    /// most [`MAX_LISTEN_ENTRIES`] are read).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "bounded_list"
    )]
    pub task_ids: Option<Vec<String>>,
    /// Other extension members.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Most entries a list of a listen request's filter may have, whatever the server's limits
/// (which are lower by default): a longer list is refused while it is read, before it costs
/// its size in memory.
pub const MAX_LISTEN_ENTRIES: usize = 4096;

/// A list of strings, refused as soon as it has more than [`MAX_LISTEN_ENTRIES`].
fn bounded_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    struct Bounded(Vec<String>);
    impl<'de> Deserialize<'de> for Bounded {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Strings;
            impl<'de> serde::de::Visitor<'de> for Strings {
                type Value = Bounded;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a list of strings")
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Bounded, A::Error> {
                    let mut items = Vec::new();
                    while let Some(item) = seq.next_element::<String>()? {
                        if items.len() == MAX_LISTEN_ENTRIES {
                            return Err(serde::de::Error::custom(format_args!(
                                "a listen filter's list has at most {MAX_LISTEN_ENTRIES} entries"
                            )));
                        }
                        items.push(item);
                    }
                    Ok(Bounded(items))
                }
            }
            d.deserialize_seq(Strings)
        }
    }
    Ok(Option::<Bounded>::deserialize(d)?.map(|b| b.0))
}

/// `subscriptions/listen` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscriptionsListenRequestParams {
    /// What to listen for.
    #[serde(default, deserialize_with = "super::object::object")]
    pub notifications: SubscriptionFilter,
    /// Per-request metadata (boxed: it is large, and a request moves several times).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

impl ParamStrings for SubscriptionsListenRequestParams {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        // `other`: extension members this server neither reads nor keeps.
        let SubscriptionsListenRequestParams {
            notifications:
                SubscriptionFilter {
                    tools_list_changed: _,
                    prompts_list_changed: _,
                    resources_list_changed: _,
                    resource_subscriptions,
                    task_ids,
                    other: _,
                },
            meta: _,
        } = self;
        for uri in resource_subscriptions.iter().flatten() {
            visit("resource URI in `resourceSubscriptions`", uri)?;
        }
        for id in task_ids.iter().flatten() {
            visit("task id in `taskIds`", id)?;
        }
        Ok(())
    }
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
    pub level: super::meta::LoggingLevel,
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
