//! The tree as the JSON Schema validator reads it: jsonschema's `Json` traits over [`DocRef`].

use super::tree::{Doc, DocRef, Text};
use jsonschema::json::{Array, Json, Node, NodeIdentity, Object, cmp};
use jsonschema::types::JsonType;
use serde_json::{Number, Value};
use std::borrow::Cow;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

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
}
