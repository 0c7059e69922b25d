//! What the `Deserialize` and `JsonSchema` impls `#[tool]` writes for its arguments struct
//! call: the parts that are the same for every tool (reading a key, refusing an unknown or
//! repeated one, a missing field; the object's schema, a property), once here, generic only
//! over the deserializer and the field's type, where serde's and schemars' derives would
//! expand them again in every tool and instantiate them for every tool's struct.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeSeed, Deserializer, Expected, MapAccess, Unexpected, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::marker::PhantomData;

/// A key of a tool's arguments object, read as the index of the field it names in the
/// struct's field list (`FIELDS`, serde's name for it): any other key is serde's
/// `unknown field` error, as `#[serde(deny_unknown_fields)]` words it.
#[derive(Clone, Copy)]
pub struct FieldKey(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for FieldKey {
    type Value = usize;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for FieldKey {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<usize, E> {
        match usize::try_from(value) {
            Ok(i) if i < self.0.len() => Ok(i),
            _ => Err(E::invalid_value(
                Unexpected::Unsigned(value),
                &FieldIndex(self.0.len()),
            )),
        }
    }

    #[inline(always)]
    fn visit_str<E: de::Error>(self, value: &str) -> Result<usize, E> {
        match self.0.iter().position(|name| *name == value) {
            Some(i) => Ok(i),
            None => Err(E::unknown_field(value, self.0)),
        }
    }

    fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<usize, E> {
        match self.0.iter().position(|name| name.as_bytes() == value) {
            Some(i) => Ok(i),
            None => Err(E::unknown_field(&String::from_utf8_lossy(value), self.0)),
        }
    }
}

/// What an index must be: `field index 0 <= i < N`.
struct FieldIndex(usize);

impl Expected for FieldIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field index 0 <= i < {}", self.0)
    }
}

/// Reads the value of the field `name` into `slot`, or serde's `duplicate field` error when
/// it was read already.
#[inline(always)]
pub fn field_value<'de, A, T>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: de::Deserialize<'de>,
{
    if slot.is_some() {
        return Err(<A::Error as de::Error>::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The value read for the field `name`, or, when the object lacked it, what serde makes of a
/// missing field: `None` for an `Option`, else its `missing field` error.
#[inline(always)]
pub fn required<'de, T, E>(slot: Option<T>, name: &'static str) -> Result<T, E>
where
    T: de::Deserialize<'de>,
    E: de::Error,
{
    match slot {
        Some(value) => Ok(value),
        None => T::deserialize(MissingField(name, PhantomData)),
    }
}

/// serde's deserializer of a missing field: `None` for an option, the error for anything else.
struct MissingField<E>(&'static str, PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for MissingField<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The schema of an arguments object before its properties, as schemars derives it for a
/// struct denying unknown fields: `{"type": "object", "additionalProperties": false}`.
pub fn object_schema() -> Schema {
    let mut object = Map::new();
    object.insert("type".into(), Value::String("object".into()));
    object.insert("additionalProperties".into(), Value::Bool(false));
    Schema::from(object)
}

/// Adds the argument `name`, of type `T`, to `schema` (made by [`object_schema`]), as
/// schemars' derive adds a field: its subschema, with `description` when not empty, and `name`
/// among the required unless `T` is an `Option`.
pub fn property<T: JsonSchema>(
    schema: &mut Schema,
    generator: &mut SchemaGenerator,
    name: &str,
    description: &str,
) {
    let optional = generator.contract().is_deserialize() && T::_schemars_private_is_option();
    let sub = generator.subschema_for::<T>();
    add_property(schema, name, description, optional, sub);
}

/// The non-generic part of [`property`].
fn add_property(schema: &mut Schema, name: &str, description: &str, optional: bool, sub: Schema) {
    let mut sub = sub;
    if !description.is_empty() {
        sub.insert("description".into(), description.into());
    }
    let object = schema.ensure_object();
    if let Some(properties) = object
        .entry("properties")
        .or_insert(Value::Object(Map::new()))
        .as_object_mut()
    {
        properties.insert(name.to_owned(), sub.into());
    }
    if !optional
        && let Some(required) = object
            .entry("required")
            .or_insert(Value::Array(Vec::new()))
            .as_array_mut()
    {
        required.push(name.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// Deserialized by hand as `#[tool]` writes it, and by serde's derive: both must read and
    /// refuse alike.
    #[derive(Debug, PartialEq)]
    struct Compact {
        a: i64,
        b: Option<String>,
        c: Vec<u8>,
    }

    impl<'de> Deserialize<'de> for Compact {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Compact;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    // Worded as the derive words `Derived`.
                    f.write_str("struct Derived")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Compact, A::Error> {
                    let (mut a, mut b, mut c) = (None, None, None);
                    while let Some(key) = map.next_key_seed(FieldKey(FIELDS))? {
                        match key {
                            0 => field_value(&mut map, &mut a, "a")?,
                            1 => field_value(&mut map, &mut b, "b")?,
                            2 => field_value(&mut map, &mut c, "c")?,
                            _ => {}
                        }
                    }
                    Ok(Compact {
                        a: required(a, "a")?,
                        b: required(b, "b")?,
                        c: c.unwrap_or_default(),
                    })
                }
            }
            const FIELDS: &[&str] = &["a", "b", "c"];
            deserializer.deserialize_struct("Derived", FIELDS, V)
        }
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Derived {
        a: i64,
        b: Option<String>,
        #[serde(default)]
        c: Vec<u8>,
    }

    #[test]
    fn reads_and_refuses_as_the_derive_does() {
        let cases = [
            r#"{"a": 1}"#,
            r#"{"a": 1, "b": "x", "c": [1, 2]}"#,
            r#"{"b": null, "a": -4}"#,
            r#"{}"#,
            r#"{"b": "x"}"#,
            r#"{"a": 1, "d": 2}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": "one"}"#,
            r#"{"a": 1, "c": [300]}"#,
            r#"{"a": 1, "c": null}"#,
            r#"[1, "x", []]"#,
            r#""text""#,
            r#"{"a\u0000": 1}"#,
        ];
        for text in cases {
            let compact = serde_json::from_str::<Compact>(text).map_err(|e| e.to_string());
            let derived = serde_json::from_str::<Derived>(text).map_err(|e| e.to_string());
            match (&compact, &derived) {
                (Ok(c), Ok(d)) => {
                    assert_eq!((c.a, &c.b, &c.c), (d.a, &d.b, &d.c), "{text}")
                }
                (Err(c), _) if text.starts_with('[') => {
                    // The derive also reads a struct from an array; arguments are an object.
                    assert!(c.starts_with("invalid type: sequence"), "{c} / {derived:?}");
                }
                (Err(c), Err(d)) => assert_eq!(c, d, "{text}"),
                _ => panic!("{text}: {compact:?} / {derived:?}"),
            }
        }
    }

    /// A struct whose schema is written as `#[tool]` writes it.
    struct Written<A, B>(std::marker::PhantomData<(A, B)>);

    impl<A: JsonSchema, B: JsonSchema> JsonSchema for Written<A, B> {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Written".into()
        }
        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            let mut schema = object_schema();
            property::<A>(&mut schema, generator, "a", "The first.");
            property::<B>(&mut schema, generator, "b", "");
            schema
        }
    }

    #[derive(schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct DerivedSchema<A, B> {
        #[schemars(description = "The first.")]
        a: A,
        b: B,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Point {
        x: f64,
    }

    #[test]
    fn schemas_are_the_derives() {
        fn both<A: JsonSchema, B: JsonSchema>() {
            assert_eq!(
                crate::schema::schema_for::<Written<A, B>>(),
                crate::schema::schema_for::<DerivedSchema<A, B>>(),
                "{}",
                std::any::type_name::<(A, B)>()
            );
        }
        both::<i64, Option<String>>();
        both::<Option<Point>, Vec<Point>>();
        both::<Point, Option<Option<u8>>>();
        both::<std::collections::BTreeMap<String, Point>, (u8, bool)>();
    }

    #[test]
    fn an_index_key_is_checked() {
        let mut map = std::collections::BTreeMap::new();
        map.insert(5u64, 1);
        let de =
            serde::de::value::MapDeserializer::<_, serde::de::value::Error>::new(map.into_iter());
        let e = Compact::deserialize(de).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid value: integer `5`, expected field index 0 <= i < 3"
        );
    }
}
