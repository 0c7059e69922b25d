//! Multi round-trip request shapes: `InputRequiredResult`, the three embedded request kinds and
//! the client's answers.

use super::messages::ResultType;
use super::meta::ResultMeta;
use super::ordered_map::OrderedMap;
use super::sampling::{CreateMessageRequestParams, CreateMessageResult};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
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
pub type InputRequests = OrderedMap<InputRequest>;

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
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum InputRequest {
    /// Ask the user through a form or a URL (`elicitation/create`).
    Elicit(ElicitRequestParams),
    /// Ask the client's LLM for a message (`sampling/createMessage`).
    Sample(CreateMessageRequestParams),
    /// Ask for the client's roots (`roots/list`).
    ListRoots(Option<ListRootsParams>),
    /// One of the above with its JSON written once ahead of time ([`PreparedRequest`]): what
    /// the code `#[tool]` generates for a `#[roots]`, `#[sample]` or `#[elicit]` parameter
    /// sends. Never read from the wire. [`typed`](Self::typed) looks through it.
    Prepared(std::sync::Arc<PreparedRequest>),
}

impl InputRequest {
    /// The embedded request's method.
    pub fn method(&self) -> &'static str {
        match self.typed() {
            InputRequest::Elicit(_) => "elicitation/create",
            InputRequest::Sample(_) => "sampling/createMessage",
            _ => "roots/list",
        }
    }

    /// The request itself: a [`Prepared`](Self::Prepared) request's inner one, else `self`.
    ///
    /// ```
    /// use mcp_runtime::protocol::{InputRequest, PreparedRequest};
    /// let prepared = PreparedRequest::new(InputRequest::ListRoots(None)).unwrap();
    /// let r = InputRequest::Prepared(std::sync::Arc::new(prepared));
    /// assert!(matches!(r.typed(), InputRequest::ListRoots(None)));
    /// assert_eq!(r, InputRequest::ListRoots(None));
    /// ```
    pub fn typed(&self) -> &InputRequest {
        match self {
            InputRequest::Prepared(p) => &p.request,
            other => other,
        }
    }
}

/// Equal when the requests are, prepared or not.
impl PartialEq for InputRequest {
    // Inline: compiled only where requests are compared (tests, clients), not into every
    // server (BENCHMARKS.md, "The author's build cost").
    #[inline]
    fn eq(&self, other: &InputRequest) -> bool {
        match (self.typed(), other.typed()) {
            (InputRequest::Elicit(a), InputRequest::Elicit(b)) => a == b,
            (InputRequest::Sample(a), InputRequest::Sample(b)) => a == b,
            (InputRequest::ListRoots(a), InputRequest::ListRoots(b)) => a == b,
            _ => false,
        }
    }
}

/// An input request and its JSON, written once: a request asked on every first round is then
/// copied out rather than serialized again (BENCHMARKS.md, "Prepared input requests").
///
/// ```
/// use mcp_runtime::protocol::{InputRequest, PreparedRequest};
/// let p = PreparedRequest::new(InputRequest::ListRoots(None)).unwrap();
/// assert_eq!(p.json().get(), r#"{"method":"roots/list"}"#);
/// assert_eq!(p.request(), &InputRequest::ListRoots(None));
/// ```
#[derive(Debug)]
pub struct PreparedRequest {
    request: InputRequest,
    json: Box<RawValue>,
}

impl PreparedRequest {
    /// Writes `request`'s JSON (a prepared request is taken apart, not nested).
    pub fn new(request: InputRequest) -> Result<PreparedRequest, serde_json::Error> {
        let request = match request {
            InputRequest::Prepared(p) => p.request.clone(),
            other => other,
        };
        let json = serde_json::value::to_raw_value(&request)?;
        Ok(PreparedRequest { request, json })
    }

    /// The request.
    pub fn request(&self) -> &InputRequest {
        &self.request
    }

    /// Its JSON text.
    pub fn json(&self) -> &RawValue {
        &self.json
    }
}

impl Serialize for InputRequest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        if let InputRequest::Prepared(p) = self {
            return p.json.serialize(s);
        }
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("method", self.method())?;
        match self {
            InputRequest::Elicit(p) => map.serialize_entry("params", p)?,
            InputRequest::Sample(p) => map.serialize_entry("params", p)?,
            InputRequest::ListRoots(None) => {}
            InputRequest::ListRoots(Some(p)) => map.serialize_entry("params", p)?,
            InputRequest::Prepared(_) => {}
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
pub type InputResponses = OrderedMap<InputResponse>;

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
    // Inline: compiled only by its callers (clients), not into every server (its reader of every
    // field schema is about 38 k lines of IR; BENCHMARKS.md, "The author's build cost").
    #[inline]
    pub fn fields(
        &self,
    ) -> Result<Vec<(String, super::elicitation::PrimitiveSchemaDefinition)>, serde_json::Error>
    {
        match self.requested_schema.get("properties") {
            None => Ok(Vec::new()),
            Some(Value::Object(props)) => props
                .iter()
                .map(|(k, v)| {
                    Ok((
                        k.clone(),
                        super::elicitation::PrimitiveSchemaDefinition::deserialize(v)?,
                    ))
                })
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
