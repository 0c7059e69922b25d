//! What JSON Schema keywords mean to the portable form: which only annotate, which hold one
//! subschema, which hosts cannot read, and which schema stands for `null` alone.

use serde_json::Value;

/// Keywords that only annotate: next to a `$ref`, the referring schema's own win over the
/// referenced type's (a field's doc comment is more precise than its type's).
pub(super) const ANNOTATIONS: [&str; 8] = [
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Keywords common hosts' converters neither understand nor pass on (Gemini's schema and
/// OpenAI's strict mode know none of them).
pub(super) const UNPORTABLE_KEYWORDS: [&str; 15] = [
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "patternProperties",
    "prefixItems",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "additionalItems",
];

/// The keywords whose value is one subschema (`items` too, in its non-array form).
pub(super) fn holds_one_schema(key: &str) -> bool {
    matches!(
        key,
        "items"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "additionalItems"
    )
}

/// Whether `value` is a schema that accepts only `null`.
pub(super) fn is_null_schema(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    let only_null = match (map.get("type"), map.get("const"), map.get("enum")) {
        (Some(Value::String(t)), None, None) => t == "null",
        (None, Some(Value::Null), None) => true,
        (None, None, Some(Value::Array(values))) => values.iter().all(Value::is_null),
        _ => false,
    };
    only_null
        && map.keys().all(|k| {
            matches!(k.as_str(), "type" | "const" | "enum") || ANNOTATIONS.contains(&k.as_str())
        })
}
