//! Tool arguments as the JSON Schema validator reads them: a tree borrowed from the request's
//! text. Objects are vectors of members and strings without escapes point into the text, so
//! the tree is built and dropped for a fraction of a `serde_json::Value` (a `BTreeMap` and an
//! owned `String` per key): the 20-field benchmark call spent ≈ 37k instructions on that tree.

use jsonschema::json::{Array, Json, Node, NodeIdentity, Object, cmp};
use jsonschema::types::JsonType;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

/// One JSON value, borrowing its strings from the text it was read from where it can.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Doc<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Doc<'a>>),
    /// Members in the order written (a key given twice is kept twice: the typed parse that
    /// follows validation refuses it).
    Object(Vec<(Cow<'a, str>, Doc<'a>)>),
}

impl<'a> Doc<'a> {
    /// Reads `text` (serde_json's recursion limit applies, with its error).
    pub(crate) fn parse(text: &'a str) -> serde_json::Result<Doc<'a>> {
        let mut de = serde_json::Deserializer::from_str(text);
        let doc = DocSeed.deserialize(&mut de)?;
        de.end()?;
        Ok(doc)
    }

    /// The same value as a `serde_json::Value` (for error messages and comparisons).
    fn to_value(&self) -> Value {
        match self {
            Doc::Null => Value::Null,
            Doc::Bool(b) => Value::Bool(*b),
            Doc::Number(n) => Value::Number(n.clone()),
            Doc::String(s) => Value::String(s.as_ref().to_owned()),
            Doc::Array(items) => Value::Array(items.iter().map(Doc::to_value).collect()),
            Doc::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.as_ref().to_owned(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }
}

/// Reads one [`Doc`] borrowing from the deserializer's input.
struct DocSeed;

impl<'de> DeserializeSeed<'de> for DocSeed {
    type Value = Doc<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Doc<'de>, D::Error> {
        d.deserialize_any(DocVisitor)
    }
}

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Doc<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Doc<'de>, E> {
        Ok(Doc::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Doc<'de>, E> {
        Ok(Doc::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Doc<'de>, E> {
        Ok(Doc::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Doc<'de>, E> {
        Ok(Doc::Number(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Doc<'de>, E> {
        // `from_f64` refuses only NaN and the infinities, which JSON text cannot hold.
        Ok(Number::from_f64(n).map_or(Doc::Null, Doc::Number))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Doc<'de>, E> {
        Ok(Doc::String(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Doc<'de>, E> {
        Ok(Doc::String(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Doc<'de>, E> {
        Ok(Doc::String(Cow::Owned(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(DocSeed)? {
            items.push(item);
        }
        Ok(Doc::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc<'de>, A::Error> {
        // serde_json gives no size hint; tool arguments are objects of a few to tens of
        // members, and growing from 4 cost the 20-field call 0.5k instructions.
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(16));
        while let Some(key) = map.next_key_seed(KeySeed)? {
            members.push((key, map.next_value_seed(DocSeed)?));
        }
        Ok(Doc::Object(members))
    }
}

/// Reads a member name, borrowed when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(s))
    }
}

/// The representation the argument validators are compiled for.
pub(crate) struct Borrowed;

impl Json for Borrowed {
    type Node<'a> = &'a Doc<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = ();

    // A lookup scans the members: one pass over them beats a lookup per schema property.
    const KEYS_PER_LOOKUP: usize = 64;
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(Self::Node<'_>) -> T) -> T {
        f(&Doc::String(Cow::Borrowed(string)))
    }
}

impl<'a> Node<'a, Borrowed> for &'a Doc<'a> {
    type Object = Members<'a>;
    type Array = Items<'a>;
    type Number = &'a Number;

    fn as_object(&self) -> Option<Members<'a>> {
        match self {
            Doc::Object(members) => Some(Members(members)),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<Items<'a>> {
        match self {
            Doc::Array(items) => Some(Items(items)),
            _ => None,
        }
    }
    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self {
            Doc::String(s) => Some(Cow::Borrowed(s.as_ref())),
            _ => None,
        }
    }
    fn as_number(&self) -> Option<&'a Number> {
        match self {
            Doc::Number(n) => Some(n),
            _ => None,
        }
    }
    fn as_boolean(&self) -> Option<bool> {
        match self {
            Doc::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        matches!(self, Doc::Null)
    }
    fn json_type(&self) -> JsonType {
        match self {
            Doc::Null => JsonType::Null,
            Doc::Bool(_) => JsonType::Boolean,
            Doc::Number(_) => JsonType::Number,
            Doc::String(_) => JsonType::String,
            Doc::Array(_) => JsonType::Array,
            Doc::Object(_) => JsonType::Object,
        }
    }
    /// `enum` and `const` compare scalars in place: the default would build a `Value` for each.
    fn equals_value(&self, expected: &Value) -> bool {
        match (self, expected) {
            (Doc::Null, Value::Null) => true,
            (Doc::Bool(a), Value::Bool(b)) => a == b,
            (Doc::String(a), Value::String(b)) => a.as_ref() == b,
            (Doc::Number(a), Value::Number(_)) => cmp::equal(&Value::Number(a.clone()), expected),
            (Doc::Array(_) | Doc::Object(_), Value::Array(_) | Value::Object(_)) => {
                cmp::equal(&self.to_value(), expected)
            }
            _ => false,
        }
    }
    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(Doc::to_value(self))
    }
    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(
            std::ptr::from_ref::<Doc<'a>>(*self) as usize
        ))
    }
}

/// An object's members.
#[derive(Clone, Copy)]
pub(crate) struct Members<'a>(&'a [(Cow<'a, str>, Doc<'a>)]);

impl<'a> Object<'a, Borrowed> for Members<'a> {
    type Node = &'a Doc<'a>;
    type MemberName = &'a str;
    type MembersIter = MembersIter<'a>;

    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, key: &Box<str>) -> Option<&'a Doc<'a>> {
        // The last of a repeated key, as a `serde_json::Value` would keep it.
        self.0
            .iter()
            .rev()
            .find(|(name, _)| name.as_ref() == key.as_ref())
            .map(|(_, value)| value)
    }
    fn members(&self) -> MembersIter<'a> {
        MembersIter(self.0.iter())
    }
}

/// Iterates an object's members as (name, value).
pub(crate) struct MembersIter<'a>(std::slice::Iter<'a, (Cow<'a, str>, Doc<'a>)>);

impl<'a> Iterator for MembersIter<'a> {
    type Item = (&'a str, &'a Doc<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(name, value)| (name.as_ref(), value))
    }
}

/// An array's items.
#[derive(Clone, Copy)]
pub(crate) struct Items<'a>(&'a [Doc<'a>]);

impl<'a> Array<'a, Borrowed> for Items<'a> {
    type Node = &'a Doc<'a>;
    type ElementsIter = std::slice::Iter<'a, Doc<'a>>;

    fn len(&self) -> usize {
        self.0.len()
    }
    fn elements(&self) -> std::slice::Iter<'a, Doc<'a>> {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_like_a_value_and_borrows_plain_strings() {
        let text = r#"{"a": [1, -2, 2.5, true, null], "b\u0041": "x\ny", "c": {"d": "plain"}}"#;
        let doc = Doc::parse(text).unwrap();
        assert_eq!(doc.to_value(), serde_json::from_str::<Value>(text).unwrap());
        let Doc::Object(members) = &doc else {
            panic!("an object")
        };
        assert!(matches!(members[0].0, Cow::Borrowed("a")));
        assert!(
            matches!(members[1].0, Cow::Owned(_)),
            "an escaped key is owned"
        );
        assert!(matches!(members[1].1, Doc::String(Cow::Owned(_))));
        let Doc::Object(inner) = &members[2].1 else {
            panic!("an object")
        };
        assert!(matches!(inner[0].1, Doc::String(Cow::Borrowed("plain"))));
    }

    #[test]
    fn validates_as_a_value_does() {
        let schema = json!({
            "type": "object", "required": ["name", "kind"], "additionalProperties": false,
            "properties": {
                "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
                "kind": {"enum": ["a", "b", 3]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "n": {"type": "integer", "minimum": 1}
            }
        });
        let ours = jsonschema::options_for::<Borrowed>()
            .build(&schema)
            .unwrap();
        let theirs = jsonschema::validator_for(&schema).unwrap();
        for text in [
            r#"{"name": "ab", "kind": "a"}"#,
            r#"{"name": "ab", "kind": 3.0, "tags": ["x", "y"], "n": 2}"#,
            r#"{"name": "a", "kind": "c"}"#,
            r#"{"name": "AB", "kind": "b", "tags": ["x", "x"]}"#,
            r#"{"kind": "a", "extra": 1}"#,
            r#"{"name": "ab", "kind": "a", "n": 1.5}"#,
            r#"[1, 2]"#,
        ] {
            let doc = Doc::parse(text).unwrap();
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours.is_valid(&doc), theirs.is_valid(&value), "{text}");
            // The same errors; ours in the order the members were written, a `Value`'s in
            // the order of its sorted keys.
            let mut ours: Vec<String> = ours.iter_errors(&doc).map(|e| e.to_string()).collect();
            let mut theirs: Vec<String> =
                theirs.iter_errors(&value).map(|e| e.to_string()).collect();
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "{text}");
        }
    }

    #[test]
    fn too_deep_is_serde_json_s_error() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let e = Doc::parse(&deep).unwrap_err();
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }
}
