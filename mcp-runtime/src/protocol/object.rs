//! Members that must be JSON objects. serde's derived structs (and internally tagged enums) also
//! read a JSON array, member by member, so `"argument": ["name", "A"]` would pass for
//! `{"name": "name", "value": "A"}`; these readers take objects only, and answer anything else
//! with serde's "invalid type" error.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor, value::MapAccessDeserializer};
use std::marker::PhantomData;

/// `T`, read only from a JSON object.
pub(crate) struct Object<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Object)
            }
        }
        d.deserialize_map(ObjectVisitor(PhantomData))
    }
}

/// `deserialize_with` for a member that must be an object.
pub(crate) fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Object::deserialize(d).map(|o| o.0)
}

/// `deserialize_with` for an optional member that must be an object when present (`null` reads
/// as absent).
pub(crate) fn optional_object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<Object<T>>::deserialize(d).map(|o| o.map(|o| o.0))
}

#[cfg(test)]
mod tests {
    use crate::protocol::messages::{CompleteRequestParams, SubscriptionsListenRequestParams};
    use crate::protocol::meta::RequestMeta;

    #[test]
    fn arrays_do_not_pass_for_objects() {
        let ok: CompleteRequestParams = serde_json::from_str(
            r#"{"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}, "context": null}"#,
        )
        .unwrap();
        assert!(ok.context.is_none());
        for bad in [
            r#"{"ref": ["ref/prompt", "p"], "argument": {"name": "a", "value": "v"}}"#,
            r#"{"ref": {"type": "ref/prompt", "name": "p"}, "argument": ["a", "v"]}"#,
            r#"{"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}, "context": [{}]}"#,
        ] {
            assert!(
                serde_json::from_str::<CompleteRequestParams>(bad).is_err(),
                "{bad}"
            );
        }
        assert!(
            serde_json::from_str::<SubscriptionsListenRequestParams>(r#"{"notifications": []}"#)
                .is_err()
        );
        for bad in [
            r#"{"io.modelcontextprotocol/clientCapabilities": []}"#,
            r#"{"io.modelcontextprotocol/clientInfo": ["n", "1"]}"#,
        ] {
            assert!(serde_json::from_str::<RequestMeta>(bad).is_err(), "{bad}");
        }
    }
}
