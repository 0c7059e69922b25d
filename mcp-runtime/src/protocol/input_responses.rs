//! `inputResponses` as a server reads them, borrowed from the message text. (Below the
//! request params that carry them, apart from the typed answers of `mrtr`.)

use super::ordered_map::OrderedMap;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// `inputResponses` as a server reads them: each answer kept as its JSON text, borrowed from the
/// message, to be decoded only into the type its handler asks for. (The last of duplicate keys
/// wins.)
///
/// ```
/// use mcp_runtime::protocol::RawInputResponses;
/// let r: RawInputResponses<'_> = serde_json::from_str(r#"{"goal": {"action": "cancel"}}"#).unwrap();
/// assert_eq!(r.0.get("goal").unwrap().get(), r#"{"action": "cancel"}"#);
/// let e = serde_json::from_str::<RawInputResponses<'_>>("[]").unwrap_err();
/// assert!(e.to_string().contains("an object keyed by the input request keys"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct RawInputResponses<'a>(pub OrderedMap<&'a RawValue>);

impl Serialize for RawInputResponses<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawInputResponses<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Answers<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Answers<'a> {
            type Value = RawInputResponses<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("`inputResponses`, an object keyed by the input request keys")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Self::Value, A::Error> {
                let mut answers = OrderedMap::with_capacity(a.size_hint().unwrap_or(0).min(16));
                while let Some((key, answer)) = a.next_entry::<String, &'a RawValue>()? {
                    answers.insert(key, answer);
                }
                Ok(RawInputResponses(answers))
            }
        }
        d.deserialize_map(Answers(std::marker::PhantomData))
    }
}
