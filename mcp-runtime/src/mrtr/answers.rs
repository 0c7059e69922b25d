//! The answers a handler can ask for: what the client sent under one key of `inputResponses`,
//! decoded into a typed value ([`FromAnswer`]): [`Roots`], [`Sampled`], [`Elicitation<T>`].

use super::form::ElicitForm;
use crate::error::{McpError, without_position};
use crate::protocol::{
    Content, CreateMessageResult, ElicitAction, ListRootsResult, Role, Root, SamplingBlock,
    SamplingContent,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// A value decoded from one entry of `inputResponses`, straight from the JSON text the client
/// sent.
///
/// ```
/// use mcp_runtime::McpError;
/// use mcp_runtime::mrtr::FromAnswer;
/// use serde_json::value::RawValue;
///
/// /// How many roots the client has.
/// struct RootCount(usize);
///
/// impl FromAnswer for RootCount {
///     fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError> {
///         #[derive(serde::Deserialize)]
///         struct List {
///             roots: Vec<serde::de::IgnoredAny>,
///         }
///         serde_json::from_str::<List>(answer.get())
///             .map(|l| RootCount(l.roots.len()))
///             .map_err(|e| McpError::invalid_params(format!("inputResponses[\"{key}\"]: {e}")))
///     }
/// }
///
/// let answer = RawValue::from_string(r#"{"roots": [{"uri": "file:///a"}]}"#.into()).unwrap();
/// assert_eq!(RootCount::from_answer("scope", &answer).unwrap().0, 1);
/// ```
pub trait FromAnswer: Sized {
    /// Decodes the answer stored under `key` (its raw JSON text).
    fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError>;
}

/// Decodes raw JSON into `T`.
pub(super) fn decode<'a, T: Deserialize<'a>>(raw: &'a RawValue) -> Result<T, serde_json::Error> {
    serde_json::from_str(raw.get())
}

fn malformed(key: &str, what: &str, e: &serde_json::Error) -> McpError {
    McpError::invalid_params(format!(
        "Invalid params: inputResponses[\"{key}\"] is not a valid {what}: {}",
        without_position(e)
    ))
}

/// The client's roots (answer to `roots/list`).
///
/// ```
/// use mcp_runtime::Roots;
/// fn count(roots: &Roots) -> usize { roots.len() }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Roots(pub Vec<Root>);

impl std::ops::Deref for Roots {
    type Target = Vec<Root>;
    fn deref(&self) -> &Vec<Root> {
        &self.0
    }
}

impl FromAnswer for Roots {
    fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError> {
        decode::<ListRootsResult>(answer)
            .map(|r| Roots(r.roots))
            .map_err(|e| malformed(key, "roots/list result", &e))
    }
}

/// A message sampled from the client's model (answer to `sampling/createMessage`).
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled(pub CreateMessageResult);

impl Sampled {
    /// The text of the message.
    pub fn text(&self) -> String {
        self.0.content.text()
    }
    /// The model that produced it.
    pub fn model(&self) -> &str {
        &self.0.model
    }
}

impl FromAnswer for Sampled {
    fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError> {
        // The usual answer, one text block and nothing else, is read directly; any other shape
        // (and every malformed one) goes through the general, untagged reading.
        if let Ok(plain) = decode::<PlainSample>(answer) {
            return Ok(Sampled(plain.into()));
        }
        decode::<CreateMessageResult>(answer)
            .map(Sampled)
            .map_err(|e| malformed(key, "sampling/createMessage result", &e))
    }
}

/// A sampling answer of exactly one text block (read without serde's untagged buffering).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PlainSample {
    role: Role,
    content: PlainText,
    model: String,
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainText {
    #[serde(rename = "type")]
    _kind: TextTag,
    text: String,
}

#[derive(Deserialize)]
enum TextTag {
    #[serde(rename = "text")]
    Text,
}

impl From<PlainSample> for CreateMessageResult {
    fn from(p: PlainSample) -> Self {
        CreateMessageResult {
            role: p.role,
            content: SamplingContent::One(SamplingBlock::Content(Content::text(p.content.text))),
            model: p.model,
            stop_reason: p.stop_reason,
            meta: None,
        }
    }
}

/// The user's answer to an elicitation form of type `T`.
///
/// ```
/// use mcp_runtime::Elicitation;
/// fn goal(answer: Elicitation<String>) -> String {
///     match answer {
///         Elicitation::Accepted(g) => g,
///         Elicitation::Declined => "declined".into(),
///         Elicitation::Cancelled => "cancelled".into(),
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form.
    Accepted(T),
    /// The user explicitly refused.
    Declined,
    /// The user dismissed the request.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The form, if accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted(t) => Some(t),
            _ => None,
        }
    }
}

/// An `elicitation/create` answer with its `content` left as raw JSON (decoded by the form). Named
/// like [`crate::protocol::ElicitResult`] so that decoding errors read the same.
#[derive(Deserialize)]
struct ElicitResult<'a> {
    action: ElicitAction,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(rename = "_meta", default)]
    _meta: Option<Map<String, Value>>,
}

/// `{}`: the content of an accepted answer that has none.
fn empty_object() -> &'static RawValue {
    static EMPTY: OnceLock<Box<RawValue>> = OnceLock::new();
    EMPTY.get_or_init(|| RawValue::from_string("{}".to_owned()).expect("`{}` is JSON"))
}

impl<T: ElicitForm> FromAnswer for Elicitation<T> {
    fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError> {
        let result: ElicitResult<'_> =
            decode(answer).map_err(|e| malformed(key, "elicitation result", &e))?;
        if let Some(content) = result.content
            && !content.get().trim_start().starts_with('{')
        {
            // Worded as when `content` is decoded as an object.
            if let Err(e) = decode::<Map<String, Value>>(content) {
                return Err(malformed(key, "elicitation result", &e));
            }
        }
        Ok(match result.action {
            ElicitAction::Decline => Elicitation::Declined,
            ElicitAction::Cancel => Elicitation::Cancelled,
            ElicitAction::Accept => {
                let content: &RawValue = match result.content {
                    Some(c) => c,
                    None => empty_object(),
                };
                Elicitation::Accepted(
                    T::from_content(content)
                        .map_err(|e| malformed(key, "answer to the requested form", &e))?,
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ElicitResult;
    use serde::de::DeserializeOwned;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    /// The wording of the decoders that read a parsed `Value` (before answers stayed raw).
    fn via_value<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, String> {
        let v: Value = serde_json::from_str(text).unwrap();
        T::deserialize(&v).map_err(|e| {
            format!("Invalid params: inputResponses[\"k\"] is not a valid {what}: {e}")
        })
    }

    fn elicit_via_value<T: DeserializeOwned>(text: &str, one_string: bool) -> Result<(), String> {
        let r: ElicitResult = via_value(text, "elicitation result")?;
        if r.action == ElicitAction::Accept {
            let mut content = r.content.unwrap_or_default();
            let form = if one_string {
                serde_json::from_value::<String>(content.remove("value").unwrap_or(Value::Null))
                    .map(drop)
            } else {
                serde_json::from_value::<T>(Value::Object(content)).map(drop)
            };
            form.map_err(|e| {
                format!(
                    "Invalid params: inputResponses[\"k\"] is not a valid answer to the requested form: {e}"
                )
            })?;
        }
        Ok(())
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Goal {
        goal: String,
        effort: Option<u8>,
    }

    impl ElicitForm for Goal {
        fn requested_schema() -> Map<String, Value> {
            Map::new()
        }
    }

    fn message<T>(r: Result<T, McpError>) -> Result<(), String> {
        r.map(drop).map_err(|e| e.message().to_owned())
    }

    #[test]
    fn plain_sampling_answers_read_like_the_general_path() {
        for text in [
            r#"{"role":"assistant","content":{"type":"text","text":"a"},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a\"b"},"model":"m","stopReason":"endTurn"}"#,
            r#"{"model":"m","content":{"text":"x","type":"text"},"role":"user"}"#,
        ] {
            let fast = decode::<PlainSample>(&raw(text)).map(CreateMessageResult::from);
            let general = decode::<CreateMessageResult>(&raw(text));
            assert_eq!(fast.unwrap(), general.unwrap(), "{text}");
        }
        // Anything else is left to the general reading.
        for text in [
            r#"{"role":"assistant","content":[{"type":"text","text":"a"}],"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a","_meta":{}},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"image","data":"AA==","mimeType":"image/png"},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a"},"model":"m","_meta":{}}"#,
        ] {
            assert!(decode::<PlainSample>(&raw(text)).is_err(), "{text}");
            assert!(Sampled::from_answer("k", &raw(text)).is_ok(), "{text}");
        }
    }

    #[test]
    fn malformed_answers_keep_their_wording() {
        let roots = [
            "7",
            "[]",
            r#"{"roots":5}"#,
            r#"{"roots":[{"name":"x"}]}"#,
            r#"{"roots":[{"uri":3}]}"#,
            r#"{"roots":[{"uri":"file:///a"}],"_meta":1}"#,
            r#"{"roots":[{"uri":"file:///a"}]}"#,
        ];
        for text in roots {
            assert_eq!(
                message(Roots::from_answer("k", &raw(text))),
                via_value::<ListRootsResult>(text, "roots/list result").map(drop),
                "{text}"
            );
        }
        let samples = [
            "{}",
            r#"{"role":"assistant","content":{"type":"text"},"model":"m"}"#,
            r#"{"role":"robot","content":{"type":"text","text":"a"},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a"},"model":7}"#,
            r#"{"role":"assistant","content":[{"type":"text","text":"a"}],"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a"},"model":"m"}"#,
            r#"{"role":"assistant","content":[{"type":"text","text":"a"},7],"model":"m"}"#,
            r#"{"role":"assistant","content":[[1],{"type":"x"}],"model":"m"}"#,
            r#"{"role":"assistant","content":[],"model":"m"}"#,
            r#"{"role":"assistant","content":"text","model":"m"}"#,
            r#"{"role":"assistant","content":null,"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"image"},"model":"m"}"#,
            r#"{"role":"assistant","model":"m"}"#,
        ];
        for text in samples {
            let new = Sampled::from_answer("k", &raw(text));
            let old = via_value::<CreateMessageResult>(text, "sampling/createMessage result");
            match (&new, &old) {
                (Ok(a), Ok(b)) => assert_eq!(&a.0, b, "{text}"),
                _ => assert_eq!(message(new), old.map(drop), "{text}"),
            }
        }
        let elicits = [
            "12",
            r#"{"action":"maybe"}"#,
            r#"{}"#,
            r#"{"action":"accept","content":5}"#,
            r#"{"action":"accept","content":[1]}"#,
            r#"{"action":"accept","content":null}"#,
            r#"{"action":"accept"}"#,
            r#"{"action":"accept","content":{"value":3,"goal":4}}"#,
            r#"{"action":"accept","content":{"value":null,"goal":"g","effort":300}}"#,
            r#"{"action":"accept","content":{"value":"v","goal":"g","effort":3}}"#,
            r#"{"action":"accept","content":{"value":"v"},"_meta":"x"}"#,
            r#"{"action":"decline","content":{"x":1}}"#,
            r#"{"action":"cancel"}"#,
        ];
        for text in elicits {
            assert_eq!(
                message(Elicitation::<String>::from_answer("k", &raw(text))),
                elicit_via_value::<String>(text, true),
                "{text}"
            );
            assert_eq!(
                message(Elicitation::<Goal>::from_answer("k", &raw(text))),
                elicit_via_value::<Goal>(text, false),
                "{text}"
            );
        }
    }
}
