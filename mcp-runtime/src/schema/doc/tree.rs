//! The tree itself: [`Doc`] and its strings ([`Text`]), reading it from the request's text
//! ([`Doc::parse`]), and [`DocRef`] (a value with its text), which `validate.rs` and `typed.rs`
//! read.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// A string of the document: its place in the text when it has no escapes, else its own.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Text {
    At(usize, usize),
    Own(Box<str>),
}

impl Text {
    pub(crate) fn get<'a>(&'a self, text: &'a str) -> &'a str {
        match self {
            Text::At(start, end) => text.get(*start..*end).unwrap_or_default(),
            Text::Own(s) => s,
        }
    }

    /// Whether it reads `key`: lengths first, then bytes, rather than comparing sliced names
    /// (BENCHMARKS.md, "The validator's tree").
    pub(crate) fn is(&self, text: &str, key: &str) -> bool {
        match self {
            Text::At(start, end) => {
                end - start == key.len()
                    && text.as_bytes().get(*start..*end) == Some(key.as_bytes())
            }
            Text::Own(s) => **s == *key,
        }
    }
}

/// One JSON value of a document; its strings are read with the document's text ([`Doc::at`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Doc {
    Null,
    Bool(bool),
    Number(Number),
    String(Text),
    Array(Vec<Doc>),
    /// Members in the order written (a key given twice is kept twice: the typed parse refuses
    /// it, as it does reading the text).
    Object(Vec<(Text, Doc)>),
}

impl Doc {
    /// Reads `text` (serde_json's recursion limit applies, with its error).
    pub(crate) fn parse(text: &str) -> serde_json::Result<Doc> {
        let mut de = serde_json::Deserializer::from_str(text);
        let seed = DocSeed {
            base: text.as_ptr() as usize,
            len: text.len(),
        };
        let doc = seed.deserialize(&mut de)?;
        de.end()?;
        Ok(doc)
    }

    /// The document read with `text`, the text it was parsed from.
    pub(crate) fn at<'a>(&'a self, text: &'a str) -> DocRef<'a> {
        DocRef { doc: self, text }
    }
}

/// A value of a document together with the text its strings point into: what the validator
/// walks and what the typed parse deserializes from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DocRef<'a> {
    pub(crate) doc: &'a Doc,
    pub(crate) text: &'a str,
}

impl<'a> DocRef<'a> {
    pub(super) fn with(self, doc: &'a Doc) -> DocRef<'a> {
        DocRef {
            doc,
            text: self.text,
        }
    }

    /// The same value as a `serde_json::Value` (for error messages and comparisons).
    pub(crate) fn value(self) -> Value {
        match self.doc {
            Doc::Null => Value::Null,
            Doc::Bool(b) => Value::Bool(*b),
            Doc::Number(n) => Value::Number(n.clone()),
            Doc::String(s) => Value::String(s.get(self.text).to_owned()),
            Doc::Array(items) => Value::Array(items.iter().map(|i| self.with(i).value()).collect()),
            Doc::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.get(self.text).to_owned(), self.with(v).value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }

    pub(super) fn unexpected(self) -> Unexpected<'a> {
        match self.doc {
            Doc::Null => Unexpected::Unit,
            Doc::Bool(b) => Unexpected::Bool(*b),
            Doc::Number(_) => Unexpected::Other("number"),
            Doc::String(s) => Unexpected::Str(s.get(self.text)),
            Doc::Array(_) => Unexpected::Seq,
            Doc::Object(_) => Unexpected::Map,
        }
    }
}

/// Reads one [`Doc`] of a text: `base` is the address of its first byte, `len` its length.
#[derive(Clone, Copy)]
struct DocSeed {
    base: usize,
    len: usize,
}

impl DocSeed {
    /// Where a slice the deserializer lent from the text stands in it (a copy, should it ever
    /// lend one from elsewhere).
    fn span(self, s: &str) -> Text {
        let start = (s.as_ptr() as usize).wrapping_sub(self.base);
        match start.checked_add(s.len()) {
            Some(end) if end <= self.len => Text::At(start, end),
            _ => Text::Own(s.into()),
        }
    }
}

impl<'de> DeserializeSeed<'de> for DocSeed {
    type Value = Doc;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Doc, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DocSeed {
    type Value = Doc;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Doc, E> {
        Ok(Doc::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Doc, E> {
        Ok(Doc::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Doc, E> {
        Ok(Doc::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Doc, E> {
        Ok(Doc::Number(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Doc, E> {
        // `from_f64` refuses only NaN and the infinities, which JSON text cannot hold.
        Ok(Number::from_f64(n).map_or(Doc::Null, Doc::Number))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Doc, E> {
        Ok(Doc::String(self.span(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Doc, E> {
        Ok(Doc::String(Text::Own(s.into())))
    }
    fn visit_string<E>(self, s: String) -> Result<Doc, E> {
        Ok(Doc::String(Text::Own(s.into())))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Doc::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        // serde_json gives no size hint; tool arguments are objects of a few to tens of
        // members, so room for 16 rather than growing from 4 (BENCHMARKS.md, "The validator's
        // tree").
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(16));
        while let Some(key) = map.next_key_seed(KeySeed(self))? {
            members.push((key, map.next_value_seed(self)?));
        }
        Ok(Doc::Object(members))
    }
}

/// Reads a member name, kept as its place in the text when it has no escapes.
struct KeySeed(DocSeed);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Text;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Text, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Text;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Text, E> {
        Ok(self.0.span(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<Text, E> {
        Ok(Text::Own(s.into()))
    }
    fn visit_string<E>(self, s: String) -> Result<Text, E> {
        Ok(Text::Own(s.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_a_value_and_points_into_the_text() {
        let text = r#"{"a": [1, -2, 2.5, true, null], "b\u0041": "x\ny", "c": {"d": "plain"}}"#;
        let doc = Doc::parse(text).unwrap();
        assert_eq!(
            doc.at(text).value(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        let Doc::Object(members) = &doc else {
            panic!("an object")
        };
        assert!(matches!(members[0].0, Text::At(..)));
        assert!(
            matches!(members[1].0, Text::Own(_)),
            "an escaped key is its own"
        );
        assert!(matches!(members[1].1, Doc::String(Text::Own(_))));
        let Doc::Object(inner) = &members[2].1 else {
            panic!("an object")
        };
        assert_eq!(inner[0].1.at(text).value(), Value::from("plain"));
        assert!(matches!(inner[0].1, Doc::String(Text::At(..))));
    }

    #[test]
    fn too_deep_is_serde_json_s_error() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let e = Doc::parse(&deep).unwrap_err();
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }
}
