//! `inputResponses` as the server keeps them: raw answers by input key.

use crate::error::McpError;
use serde::Deserialize;
use serde_json::value::RawValue;

/// Answers by input key, each kept as the JSON text the client sent (or that an earlier round
/// sealed): an answer is decoded only into the type its handler asks for. The last of duplicate
/// keys wins.
#[derive(Debug, Default)]
pub(crate) struct Responses(Vec<(String, Box<RawValue>)>);

impl Responses {
    /// Adds an answer (a later one under the same key wins).
    pub(crate) fn push(&mut self, key: String, value: Box<RawValue>) {
        self.0.push((key, value));
    }
    /// The answer under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&RawValue> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| &**v)
    }
}

impl<'de> Deserialize<'de> for Responses {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ResponsesVisitor;
        impl<'de> serde::de::Visitor<'de> for ResponsesVisitor {
            type Value = Responses;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Responses, A::Error> {
                let mut entries = Vec::with_capacity(a.size_hint().unwrap_or(0).min(16));
                while let Some(entry) = a.next_entry::<String, Box<RawValue>>()? {
                    entries.push(entry);
                }
                Ok(Responses(entries))
            }
        }
        d.deserialize_map(ResponsesVisitor)
    }
}

/// Reads `inputResponses` (absent or `null`: no answers) in one pass, keeping each answer as
/// raw JSON.
pub(crate) fn parse_responses(raw: Option<&RawValue>) -> Result<Responses, McpError> {
    let not_an_object = || {
        McpError::invalid_params(
            "Invalid params: `inputResponses` must be an object keyed by the input request keys",
        )
    };
    let Some(raw) = raw else {
        return Ok(Responses::default());
    };
    let text = raw.get().trim_start();
    match text.as_bytes().first() {
        Some(b'n') => Ok(Responses::default()),
        Some(b'{') => serde_json::from_str(text).map_err(|_| not_an_object()),
        _ => Err(not_an_object()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn responses_are_read_raw() {
        assert!(parse_responses(None).unwrap().0.is_empty());
        assert!(parse_responses(Some(&raw("null"))).unwrap().0.is_empty());
        for bad in ["12", "[]", "\"x\"", "true"] {
            let e = parse_responses(Some(&raw(bad))).unwrap_err();
            assert_eq!(e.code(), -32602);
            assert_eq!(
                e.message(),
                "Invalid params: `inputResponses` must be an object keyed by the input request keys"
            );
        }
        let r =
            parse_responses(Some(&raw(r#"{"a": {"x": [1, 2]}, "b\u00e9": 3, "a": 4}"#))).unwrap();
        assert_eq!(r.get("a").unwrap().get(), "4");
        assert_eq!(r.get("bé").unwrap().get(), "3");
        assert!(r.get("c").is_none());
    }
}
