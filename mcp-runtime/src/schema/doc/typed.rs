//! The tree as the handler's typed parse reads it: a serde `Deserializer` over [`DocRef`].

use super::tree::{Doc, DocRef, Text};
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    DeserializeSeed, Deserializer, EnumAccess, Error as _, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};

/// The typed parse of validated arguments reads the tree the validator read, not the text a
/// third time (BENCHMARKS.md, "The validator's tree"). It is only asked for a value the text
/// would give too: [`Arguments::parse`](crate::handler::Arguments::parse) reads the text again on any
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
            Doc::Object(members) => v.visit_map(MembersAccess {
                iter: members.iter(),
                text: self.text,
                value: None,
            }),
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
    use serde_json::Value;
    use std::fmt;

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
