//! `inputResponses` as the server keeps them: raw answers by input key.

use crate::protocol::RawInputResponses;
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
    /// How many answers there are.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
    /// Every answer, in the order given (a later one under a key overrides an earlier one).
    #[cfg(feature = "tasks")]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), &**v))
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

impl Responses {
    /// This round's answers, copied out of the message.
    pub(crate) fn read(raw: Option<RawInputResponses<'_>>) -> Responses {
        let Some(RawInputResponses(answers)) = raw else {
            return Responses::default();
        };
        Responses(
            answers
                .into_iter()
                .map(|(key, answer)| (key, answer.to_owned()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_are_read_raw() {
        let read = |text: &str| {
            let raw: Option<RawInputResponses<'_>> = serde_json::from_str(text).unwrap();
            Responses::read(raw)
        };
        assert!(Responses::read(None).0.is_empty());
        assert!(read("null").0.is_empty());
        for bad in ["12", "[]", "\"x\"", "true"] {
            let e = serde_json::from_str::<RawInputResponses<'_>>(bad).unwrap_err();
            assert!(
                e.to_string().contains(
                    "expected `inputResponses`, an object keyed by the input request keys"
                ),
                "{e}"
            );
        }
        let r = read(r#"{"a": {"x": [1, 2]}, "b\u00e9": 3, "a": 4}"#);
        assert_eq!(r.get("a").unwrap().get(), "4");
        assert_eq!(r.get("bé").unwrap().get(), "3");
        assert!(r.get("c").is_none());
    }
}
