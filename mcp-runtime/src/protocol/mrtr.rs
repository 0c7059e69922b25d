//! Multi round-trip request shapes: `InputRequiredResult`, the three embedded request kinds and
//! the client's answers.

use super::{Content, MediaContent, ResultMeta, ResultType, Role, TextContent, ToolInfo};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An interim result asking the client for input (`resultType: "input_required"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// Always `input_required`.
    pub result_type: ResultType,
    /// What the server needs, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client echoes on retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// Input requests by key, in insertion order.
pub type InputRequests = indexmap_lite::OrderedMap<InputRequest>;

/// One request embedded in `inputRequests`: a bare `{method, params}` object (no `jsonrpc`, no
/// `id`).
///
/// `roots/list` takes no parameters: its `params` may be absent on the wire (`None`) or an
/// object holding at most `_meta` (`Some`); both forms are kept as sent.
///
/// ```
/// use mcp_runtime::protocol::{InputRequest, ListRootsParams};
/// let r: InputRequest = serde_json::from_str(r#"{"method":"roots/list"}"#).unwrap();
/// assert_eq!(r, InputRequest::ListRoots(None));
/// assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"method":"roots/list"}"#);
/// let r = InputRequest::ListRoots(Some(ListRootsParams::default()));
/// assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"method":"roots/list","params":{}}"#);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// Ask the user through a form or a URL (`elicitation/create`).
    Elicit(ElicitRequestParams),
    /// Ask the client's LLM for a message (`sampling/createMessage`).
    Sample(CreateMessageRequestParams),
    /// Ask for the client's roots (`roots/list`).
    ListRoots(Option<ListRootsParams>),
}

impl InputRequest {
    /// The embedded request's method.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => "elicitation/create",
            InputRequest::Sample(_) => "sampling/createMessage",
            InputRequest::ListRoots(_) => "roots/list",
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("method", self.method())?;
        match self {
            InputRequest::Elicit(p) => map.serialize_entry("params", p)?,
            InputRequest::Sample(p) => map.serialize_entry("params", p)?,
            InputRequest::ListRoots(None) => {}
            InputRequest::ListRoots(Some(p)) => map.serialize_entry("params", p)?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let raw = Raw::deserialize(d)?;
        let required = |params: Option<Value>| {
            params.ok_or_else(|| D::Error::custom(format!("`{}` needs `params`", raw.method)))
        };
        match raw.method.as_str() {
            "elicitation/create" => ElicitRequestParams::deserialize(required(raw.params.clone())?)
                .map(InputRequest::Elicit)
                .map_err(D::Error::custom),
            "sampling/createMessage" => {
                CreateMessageRequestParams::deserialize(required(raw.params.clone())?)
                    .map(InputRequest::Sample)
                    .map_err(D::Error::custom)
            }
            "roots/list" => match raw.params {
                None | Some(Value::Null) => Ok(InputRequest::ListRoots(None)),
                Some(p) => ListRootsParams::deserialize(p)
                    .map(|p| InputRequest::ListRoots(Some(p)))
                    .map_err(D::Error::custom),
            },
            other => Err(D::Error::unknown_variant(
                other,
                &["elicitation/create", "sampling/createMessage", "roots/list"],
            )),
        }
    }
}

/// One answer in `inputResponses`, matched to its request by key. The client's answers carry no
/// `resultType`.
///
/// ```
/// use mcp_runtime::protocol::{InputResponse, InputResponses};
/// let r: InputResponses = serde_json::from_str(
///     r#"{"login":{"action":"accept","content":{"name":"octocat"}},"roots":{"roots":[]}}"#,
/// ).unwrap();
/// assert!(matches!(r.get("login"), Some(InputResponse::Elicit(_))));
/// assert!(matches!(r.get("roots"), Some(InputResponse::ListRoots(_))));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
// Wire values, built once per message: boxing the large variant would only complicate matching.
#[allow(clippy::large_enum_variant)]
pub enum InputResponse {
    /// The answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// The answer to `sampling/createMessage`.
    Sample(CreateMessageResult),
    /// The answer to `roots/list`.
    ListRoots(ListRootsResult),
}

/// Answers by key, in the order the client sent them.
pub type InputResponses = indexmap_lite::OrderedMap<InputResponse>;

/// `roots/list` params (only `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsParams {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `elicitation/create` params: a form or a URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// URL mode.
    Url(ElicitRequestUrlParams),
    /// Form mode.
    Form(ElicitRequestFormParams),
}

/// Form-mode elicitation.
///
/// ```
/// use mcp_runtime::protocol::ElicitRequestFormParams;
/// let p: ElicitRequestFormParams = serde_json::from_str(
///     r#"{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{}}}"#,
/// ).unwrap();
/// // The schema is shared (`Arc`): cloning the params does not copy it.
/// let copy = p.clone();
/// assert!(std::sync::Arc::ptr_eq(&p.requested_schema, &copy.requested_schema));
/// assert_eq!(p.requested_schema["type"], "object");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// `"form"` (may be omitted on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What to tell the user.
    pub message: String,
    /// Flat object schema of the form (shared: a form type's schema is built once and every
    /// request for it points at the same one).
    pub requested_schema: std::sync::Arc<Map<String, Value>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ElicitRequestFormParams {
    /// The form's fields (`requestedSchema.properties`), typed, by field name.
    ///
    /// ```
    /// use mcp_runtime::protocol::{ElicitRequestFormParams, PrimitiveSchemaDefinition};
    /// let p: ElicitRequestFormParams = serde_json::from_value(serde_json::json!({
    ///     "message": "Name?",
    ///     "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
    /// })).unwrap();
    /// let fields = p.fields().unwrap();
    /// assert_eq!(fields[0].0, "name");
    /// assert!(matches!(fields[0].1, PrimitiveSchemaDefinition::String(_)));
    /// ```
    pub fn fields(
        &self,
    ) -> Result<Vec<(String, super::PrimitiveSchemaDefinition)>, serde_json::Error> {
        match self.requested_schema.get("properties") {
            None => Ok(Vec::new()),
            Some(Value::Object(props)) => props
                .iter()
                .map(|(k, v)| Ok((k.clone(), super::PrimitiveSchemaDefinition::deserialize(v)?)))
                .collect(),
            Some(other) => Err(serde::de::Error::custom(format!(
                "`requestedSchema.properties` must be an object, not {other}"
            ))),
        }
    }
}

/// URL-mode elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestUrlParams {
    /// Always `"url"`.
    pub mode: UrlMode,
    /// What to tell the user.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The `"url"` mode marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlMode {
    /// `"url"`.
    #[serde(rename = "url")]
    Url,
}

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
        let blocks: Vec<&SamplingBlock> = match self {
            SamplingContent::One(b) => vec![b],
            SamplingContent::Many(v) => v.iter().collect(),
        };
        blocks
            .into_iter()
            .filter_map(|b| match b {
                SamplingBlock::Content(c) => c.as_text(),
                SamplingBlock::Other(_) => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }
}

/// A sampling block: ordinary content, or `tool_use` / `tool_result` kept as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The block as a typed [`SamplingMessageContentBlock`], when it is a known kind.
    pub fn to_typed(&self) -> Option<SamplingMessageContentBlock> {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
    }
}

impl From<SamplingMessageContentBlock> for SamplingBlock {
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

/// `elicitation/create` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The form values (accept only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted.
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed.
    Cancel,
}

/// A root the client exposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `roots/list` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// A small insertion-ordered string map (keeps `inputRequests` in the order they were asked).
pub mod indexmap_lite {
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::fmt;
    use std::marker::PhantomData;

    /// An ordered map from string keys to values; inserting an existing key replaces its value.
    ///
    /// ```
    /// use mcp_runtime::protocol::indexmap_lite::OrderedMap;
    /// let mut m = OrderedMap::new();
    /// m.insert("b", 1);
    /// m.insert("a", 2);
    /// assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a"]);
    /// ```
    #[derive(Debug, Clone, PartialEq)]
    pub struct OrderedMap<V> {
        entries: Vec<(String, V)>,
    }

    impl<V> Default for OrderedMap<V> {
        fn default() -> Self {
            OrderedMap {
                entries: Vec::new(),
            }
        }
    }

    impl<V> OrderedMap<V> {
        /// An empty map.
        pub fn new() -> Self {
            Self::default()
        }
        /// An empty map with room for `n` entries.
        ///
        /// ```
        /// use mcp_runtime::protocol::InputRequests;
        /// let asks = InputRequests::with_capacity(3);
        /// assert!(asks.is_empty());
        /// ```
        pub fn with_capacity(n: usize) -> Self {
            OrderedMap {
                entries: Vec::with_capacity(n),
            }
        }
        /// Inserts or replaces.
        pub fn insert(&mut self, key: impl Into<String>, value: V) {
            let key = key.into();
            match self.entries.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => self.entries.push((key, value)),
            }
        }
        /// Looks a key up.
        pub fn get(&self, key: &str) -> Option<&V> {
            self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
        }
        /// Keys in order.
        pub fn keys(&self) -> impl Iterator<Item = &str> {
            self.entries.iter().map(|(k, _)| k.as_str())
        }
        /// Entries in order.
        pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
            self.entries.iter().map(|(k, v)| (k.as_str(), v))
        }
        /// Number of entries.
        pub fn len(&self) -> usize {
            self.entries.len()
        }
        /// Whether empty.
        pub fn is_empty(&self) -> bool {
            self.entries.is_empty()
        }
    }

    impl<V: Serialize> Serialize for OrderedMap<V> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(self.entries.len()))?;
            for (k, v) in &self.entries {
                map.serialize_entry(k, v)?;
            }
            map.end()
        }
    }

    impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V2<V>(PhantomData<V>);
            impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
                type Value = OrderedMap<V>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                    let mut m = OrderedMap::new();
                    while let Some((k, v)) = a.next_entry::<String, V>()? {
                        m.insert(k, v);
                    }
                    Ok(m)
                }
            }
            d.deserialize_map(V2(PhantomData))
        }
    }
}
