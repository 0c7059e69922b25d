//! Multi round-trip request shapes: `InputRequiredResult`, the three embedded request kinds and
//! the client's answers.

use super::{Content, ResultMeta, ResultType, Role, ToolInfo};
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

/// One request embedded in `inputRequests`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
#[non_exhaustive]
pub enum InputRequest {
    /// Ask the user through a form or a URL.
    #[serde(rename = "elicitation/create")]
    Elicit(ElicitRequestParams),
    /// Ask the client's LLM for a message.
    #[serde(rename = "sampling/createMessage")]
    Sample(CreateMessageRequestParams),
    /// Ask for the client's roots.
    #[serde(rename = "roots/list")]
    ListRoots(#[serde(default)] ListRootsParams),
}

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// `"form"` (may be omitted on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What to tell the user.
    pub message: String,
    /// Flat object schema of the form.
    pub requested_schema: Map<String, Value>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
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
pub enum SamplingBlock {
    /// Text, image or audio.
    Content(Content),
    /// `tool_use`, `tool_result` or an unknown block.
    Other(Map<String, Value>),
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
