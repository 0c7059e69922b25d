//! Tool arguments as the JSON Schema validator reads them, and as the handler's typed parse
//! then reads them again: a tree over the request's text. Objects are vectors of members and a
//! string without escapes is kept as its place in the text, so the tree is built and dropped
//! for a fraction of a `serde_json::Value` (a `BTreeMap` and an owned `String` per key): the
//! 20-field benchmark call spent ≈ 37k instructions on that tree.

use jsonschema::json::{Array, Json, Node, NodeIdentity, Object, cmp};
use jsonschema::types::JsonType;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    DeserializeSeed, Deserializer, EnumAccess, Error as _, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

/// A string of the document: its place in the text when it has no escapes, else its own.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Text {
    At(usize, usize),
    Own(Box<str>),
}

impl Text {
    fn get<'a>(&'a self, text: &'a str) -> &'a str {
        match self {
            Text::At(start, end) => text.get(*start..*end).unwrap_or_default(),
            Text::Own(s) => s,
        }
    }

    /// Whether it reads `key`: lengths first, then bytes (a lookup of each of 20 required
    /// names compared sliced names and cost the 20-field call 5.8k instructions more).
    fn is(&self, text: &str, key: &str) -> bool {
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
    doc: &'a Doc,
    text: &'a str,
}

impl<'a> DocRef<'a> {
    fn with(self, doc: &'a Doc) -> DocRef<'a> {
        DocRef {
            doc,
            text: self.text,
        }
    }

    /// The same value as a `serde_json::Value` (for error messages and comparisons).
    fn value(self) -> Value {
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

    fn unexpected(self) -> Unexpected<'a> {
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
        // members, and growing from 4 cost the 20-field call 0.5k instructions.
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

/// The representation the argument validators are compiled for.
pub(crate) struct Borrowed;

impl Json for Borrowed {
    type Node<'a> = DocRef<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = ();

    // A lookup scans the members: one pass over them beats a lookup per schema property.
    const KEYS_PER_LOOKUP: usize = 64;
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(Self::Node<'_>) -> T) -> T {
        f(Doc::String(Text::At(0, string.len())).at(string))
    }
}

impl<'a> Node<'a, Borrowed> for DocRef<'a> {
    type Object = Members<'a>;
    type Array = Items<'a>;
    type Number = &'a Number;

    fn as_object(&self) -> Option<Members<'a>> {
        match self.doc {
            Doc::Object(members) => Some(Members {
                members,
                text: self.text,
            }),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<Items<'a>> {
        match self.doc {
            Doc::Array(items) => Some(Items {
                items,
                text: self.text,
            }),
            _ => None,
        }
    }
    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self.doc {
            Doc::String(s) => Some(Cow::Borrowed(s.get(self.text))),
            _ => None,
        }
    }
    fn as_number(&self) -> Option<&'a Number> {
        match self.doc {
            Doc::Number(n) => Some(n),
            _ => None,
        }
    }
    fn as_boolean(&self) -> Option<bool> {
        match self.doc {
            Doc::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        matches!(self.doc, Doc::Null)
    }
    fn json_type(&self) -> JsonType {
        match self.doc {
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
        match (self.doc, expected) {
            (Doc::Null, Value::Null) => true,
            (Doc::Bool(a), Value::Bool(b)) => a == b,
            (Doc::String(a), Value::String(b)) => a.get(self.text) == b,
            (Doc::Number(a), Value::Number(_)) => cmp::equal(&Value::Number(a.clone()), expected),
            (Doc::Array(_) | Doc::Object(_), Value::Array(_) | Value::Object(_)) => {
                cmp::equal(&self.value(), expected)
            }
            _ => false,
        }
    }
    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(self.value())
    }
    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(
            std::ptr::from_ref::<Doc>(self.doc) as usize
        ))
    }
}

/// An object's members.
#[derive(Clone, Copy)]
pub(crate) struct Members<'a> {
    members: &'a [(Text, Doc)],
    text: &'a str,
}

impl<'a> Object<'a, Borrowed> for Members<'a> {
    type Node = DocRef<'a>;
    type MemberName = &'a str;
    type MembersIter = MembersIter<'a>;

    fn len(&self) -> usize {
        self.members.len()
    }
    fn get(&self, key: &Box<str>) -> Option<DocRef<'a>> {
        // The last of a repeated key, as a `serde_json::Value` would keep it.
        self.members
            .iter()
            .rev()
            .find(|(name, _)| name.is(self.text, key))
            .map(|(_, value)| value.at(self.text))
    }
    fn members(&self) -> MembersIter<'a> {
        MembersIter {
            iter: self.members.iter(),
            text: self.text,
        }
    }
}

/// Iterates an object's members as (name, value).
pub(crate) struct MembersIter<'a> {
    iter: std::slice::Iter<'a, (Text, Doc)>,
    text: &'a str,
}

impl<'a> Iterator for MembersIter<'a> {
    type Item = (&'a str, DocRef<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let (name, value) = self.iter.next()?;
        Some((name.get(self.text), value.at(self.text)))
    }
}

/// An array's items.
#[derive(Clone, Copy)]
pub(crate) struct Items<'a> {
    items: &'a [Doc],
    text: &'a str,
}

impl<'a> Array<'a, Borrowed> for Items<'a> {
    type Node = DocRef<'a>;
    type ElementsIter = ItemsIter<'a>;

    fn len(&self) -> usize {
        self.items.len()
    }
    fn elements(&self) -> ItemsIter<'a> {
        ItemsIter {
            iter: self.items.iter(),
            text: self.text,
        }
    }
}

/// Iterates an array's items.
pub(crate) struct ItemsIter<'a> {
    iter: std::slice::Iter<'a, Doc>,
    text: &'a str,
}

impl<'a> Iterator for ItemsIter<'a> {
    type Item = DocRef<'a>;
    fn next(&mut self) -> Option<DocRef<'a>> {
        Some(self.iter.next()?.at(self.text))
    }
}

/// The typed parse of validated arguments reads the tree the validator read, not the text a
/// third time (≈ 8k instructions of the 20-field call). It is only asked for a value the text
/// would give too: [`Arguments::parse`](crate::Arguments::parse) reads the text again on any
/// error, for the error's wording and path.
impl<'de> Deserializer<'de> for DocRef<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, serde_json::Error> {
        match self.doc {
            Doc::Null => v.visit_unit(),
            Doc::Bool(b) => v.visit_bool(*b),
            Doc::Number(n) => n.deserialize_any(v),
            Doc::String(s) => v.visit_borrowed_str(s.get(self.text)),
            Doc::Array(items) => {
                let mut seq = Seq {
                    iter: items.iter(),
                    text: self.text,
                };
                let value = v.visit_seq(&mut seq)?;
                match seq.iter.len() {
                    0 => Ok(value),
                    _ => Err(serde_json::Error::invalid_length(
                        items.len(),
                        &"fewer items",
                    )),
                }
            }
            Doc::Object(members) => v.visit_map(
                Members {
                    members,
                    text: self.text,
                }
                .access(),
            ),
        }
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, serde_json::Error> {
        match self.doc {
            Doc::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, serde_json::Error> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, serde_json::Error> {
        match self.doc {
            Doc::String(s) => v.visit_enum(BorrowedStrDeserializer::new(s.get(self.text))),
            Doc::Object(members) if members.len() == 1 => {
                let (key, value) = &members[0];
                v.visit_enum(Variant {
                    key: key.get(self.text),
                    value: value.at(self.text),
                })
            }
            _ => Err(serde_json::Error::invalid_type(self.unexpected(), &v)),
        }
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, serde_json::Error> {
        v.visit_unit()
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// An array's items, handed to a visitor one by one.
struct Seq<'de> {
    iter: std::slice::Iter<'de, Doc>,
    text: &'de str,
}

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = serde_json::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, serde_json::Error> {
        match self.iter.next() {
            Some(item) => seed.deserialize(item.at(self.text)).map(Some),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

impl<'de> Members<'de> {
    fn access(self) -> MembersAccess<'de> {
        MembersAccess {
            iter: self.members.iter(),
            text: self.text,
            value: None,
        }
    }
}

/// An object's members, handed to a visitor one by one.
struct MembersAccess<'de> {
    iter: std::slice::Iter<'de, (Text, Doc)>,
    text: &'de str,
    value: Option<&'de Doc>,
}

impl<'de> MapAccess<'de> for MembersAccess<'de> {
    type Error = serde_json::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, serde_json::Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(BorrowedStrDeserializer::new(key.get(self.text)))
            .map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, serde_json::Error> {
        let value = self
            .value
            .take()
            .ok_or_else(|| serde_json::Error::custom("a value asked for before its key"))?;
        seed.deserialize(value.at(self.text))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An externally tagged variant: `{"Variant": value}`.
struct Variant<'de> {
    key: &'de str,
    value: DocRef<'de>,
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = serde_json::Error;
    type Variant = DocRef<'de>;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, DocRef<'de>), serde_json::Error> {
        let variant = seed.deserialize(BorrowedStrDeserializer::new(self.key))?;
        Ok((variant, self.value))
    }
}

impl<'de> VariantAccess<'de> for DocRef<'de> {
    type Error = serde_json::Error;
    fn unit_variant(self) -> Result<(), serde_json::Error> {
        match self.doc {
            Doc::Null => Ok(()),
            _ => Err(serde_json::Error::invalid_type(
                self.unexpected(),
                &"a unit variant",
            )),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, serde_json::Error> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        v: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_any(v)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_any(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde::de::DeserializeOwned;
    use serde_json::json;

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
        assert_eq!(inner[0].1.at(text).as_string().as_deref(), Some("plain"));
        assert!(matches!(inner[0].1, Doc::String(Text::At(..))));
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
            },
            "propertyNames": {"maxLength": 5}
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
            r#"{"name": "ab", "kind": "a", "longname": 1}"#,
            r#"[1, 2]"#,
        ] {
            let doc = Doc::parse(text).unwrap();
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                ours.is_valid(doc.at(text)),
                theirs.is_valid(&value),
                "{text}"
            );
            // The same errors; ours in the order the members were written, a `Value`'s in
            // the order of its sorted keys.
            let mut ours: Vec<String> = ours
                .iter_errors(doc.at(text))
                .map(|e| e.to_string())
                .collect();
            let mut theirs: Vec<String> =
                theirs.iter_errors(&value).map(|e| e.to_string()).collect();
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "{text}");
        }
    }

    #[test]
    fn escaped_names_and_many_required_names_are_found() {
        // More than 16 required names: the `required` keyword looks each one up (fewer are
        // checked in one pass over the members); `n\u0061me` is `name` written with an escape.
        let names: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        let mut properties = Map::new();
        for n in &names {
            properties.insert(n.clone(), json!({"type": "integer"}));
        }
        properties.insert("name".into(), json!({"type": "string", "minLength": 2}));
        let mut required = names.clone();
        required.push("name".into());
        let schema = json!({"type": "object", "properties": properties, "required": required});
        let ours = jsonschema::options_for::<Borrowed>()
            .build(&schema)
            .unwrap();
        let theirs = jsonschema::validator_for(&schema).unwrap();
        let members: Vec<String> = names.iter().map(|n| format!("\"{n}\": 1")).collect();
        let mut verdicts = Vec::new();
        for last in [
            r#""n\u0061me": "ok""#,
            r#""n\u0061me": "x""#,
            r#""nam": "ok""#,
        ] {
            for skip in [None, Some(7)] {
                let mut all: Vec<String> = members.clone();
                if let Some(i) = skip {
                    all.remove(i);
                }
                all.push(last.to_owned());
                let text = format!("{{{}}}", all.join(", "));
                let doc = Doc::parse(&text).unwrap();
                let value: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(
                    ours.is_valid(doc.at(&text)),
                    theirs.is_valid(&value),
                    "{text}"
                );
                verdicts.push(ours.is_valid(doc.at(&text)));
            }
        }
        // Only the first has every name, `name` long enough.
        assert_eq!(verdicts, [true, false, false, false, false, false]);
    }

    #[test]
    fn too_deep_is_serde_json_s_error() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let e = Doc::parse(&deep).unwrap_err();
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }

    #[derive(Debug, PartialEq, Deserialize)]
    enum Shape {
        Dot,
        Circle(f64),
        Rect { w: u32, h: u32 },
        Pair(u8, u8),
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Everything {
        name: String,
        small: u8,
        big: i64,
        ratio: f32,
        flag: Option<bool>,
        missing: Option<String>,
        tags: Vec<String>,
        pair: (u16, String),
        shapes: Vec<Shape>,
        extra: Value,
        #[serde(default)]
        nested: Option<Box<Everything>>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Loose {
        Num(u64),
        Text(String),
    }

    /// What the tree gives `T`: the text's value, or an error where the text errs (the
    /// messages may differ: `Arguments::parse` words errors from the text).
    fn same<T: DeserializeOwned + PartialEq + fmt::Debug>(text: &str) {
        let doc = Doc::parse(text).unwrap();
        let from_tree = T::deserialize(doc.at(text));
        let from_text = serde_json::from_str::<T>(text);
        match (from_tree, from_text) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{text}: the tree gave {a:?}, the text {b:?}"),
        }
    }

    #[test]
    fn the_typed_parse_reads_the_tree_as_the_text() {
        same::<Everything>(
            r#"{"name": "a\"b", "small": 7, "big": -9007199254740993, "ratio": 0.1,
                "flag": null, "tags": ["x", "y\u00e9"], "pair": [3, "z"],
                "shapes": ["Dot", {"Circle": 1.5}, {"Rect": {"w": 2, "h": 3}}, {"Pair": [1, 2]}],
                "extra": {"k": [1, 2.5, null, {"e": "s"}]},
                "nested": {"name": "n", "small": 0, "big": 0, "ratio": 1, "flag": true,
                           "tags": [], "pair": [0, ""], "shapes": [], "extra": null}}"#,
        );
        for bad in [
            r#"{"name": "a", "small": 300}"#,
            r#"{"name": "a", "name": "b"}"#,
            r#"{"name": 1}"#,
            r#"{"name": "a", "small": 1, "big": 1, "ratio": 1, "tags": [], "pair": [1, "a", 2],
                "shapes": [], "extra": 1}"#,
            r#"{"name": "a", "small": 1, "big": 1, "ratio": 1, "tags": [], "pair": [1, "a"],
                "shapes": ["Square"], "extra": 1}"#,
            r#"{"name": "a", "small": 1, "big": 1, "ratio": 1, "tags": [], "pair": [1, "a"],
                "shapes": [{"Dot": 1}], "extra": 1}"#,
            r#"{"name": "a", "small": 1, "big": 1, "ratio": 1, "tags": [], "pair": [1, "a"],
                "shapes": [], "extra": 1, "other": 2}"#,
            r#"{"name": "a", "small": 1.0, "big": 1, "ratio": 1, "tags": [], "pair": [1, "a"],
                "shapes": [], "extra": 1}"#,
        ] {
            same::<Everything>(bad);
        }
        same::<Vec<Loose>>(r#"[1, "two", 18446744073709551615]"#);
        same::<std::collections::BTreeMap<String, Option<u8>>>(r#"{"a": 1, "b": null}"#);
        same::<(bool, char)>(r#"[true, "c"]"#);
    }
}
