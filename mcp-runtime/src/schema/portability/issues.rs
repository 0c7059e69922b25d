//! Why a schema is not portable: [`portability_issues`] and its [`PortabilityIssue`]s.
//!
//! `#[inline]`: compiled by what calls it (tests, `cargo mcp-runtime inspect`), not into every
//! server (BENCHMARKS.md, "Metrics, result views and patterns behind features").

use super::keywords::{UNPORTABLE_KEYWORDS, is_null_schema};
use serde_json::{Map, Value};
use std::fmt;

/// One reason a schema is not portable, and where: a JSON pointer into the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PortabilityIssue {
    /// Where, as a JSON pointer into the schema (`""` is the root).
    pub pointer: String,
    /// Why hosts may not read that part as it is meant.
    pub reason: String,
}

impl fmt::Display for PortabilityIssue {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pointer.as_str() {
            "" => write!(f, "at the root: {}", self.reason),
            at => write!(f, "at `{at}`: {}", self.reason),
        }
    }
}

/// Why hosts may not read `schema` (a tool's `inputSchema`) as it is meant: one issue per
/// construct their converters drop, refuse or misread, each with its JSON pointer. Empty when
/// the schema is portable, as [`portable`](super::portable) makes every non-recursive generated schema.
///
/// ```
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {"limit": {"type": ["integer", "null"]}}});
/// let issues = mcp_runtime::schema::portability_issues(schema.as_object().unwrap());
/// assert_eq!(issues.len(), 1);
/// assert_eq!(issues[0].pointer, "/properties/limit/type");
/// assert!(issues[0].to_string().starts_with("at `/properties/limit/type`: a list of types"));
/// ```
#[inline]
pub fn portability_issues(schema: &Map<String, Value>) -> Vec<PortabilityIssue> {
    let mut issues = Vec::new();
    let mut at =
        |pointer: String, reason: String| issues.push(PortabilityIssue { pointer, reason });
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        at(
            "/type".into(),
            "the root is not `\"type\": \"object\"`: hosts expect an object of named arguments"
                .into(),
        );
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if schema.contains_key(key) {
            at(
                format!("/{key}"),
                format!(
                    "`{key}` at the root: hosts expect one object of named arguments, without \
                     alternatives"
                ),
            );
        }
    }
    check(&Value::Object(schema.clone()), "", Place::Root, &mut issues);
    issues
}

/// Escapes a property name as a JSON pointer segment.
#[inline]
fn segment(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Where a schema stands, for what it must say itself.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// The root (its type and alternatives are checked apart).
    Root,
    /// A value's whole schema: a property, an item, a map's values.
    Value,
    /// A part of a schema that says the rest itself (an alternative of a typed schema).
    Part,
}

#[inline]
fn check(value: &Value, pointer: &str, place: Place, issues: &mut Vec<PortabilityIssue>) {
    let root = place == Place::Root;
    let mut at = |suffix: &str, reason: String| {
        issues.push(PortabilityIssue {
            pointer: format!("{pointer}{suffix}"),
            reason,
        });
    };
    let map = match value {
        Value::Object(map) => map,
        Value::Bool(true) if place == Place::Value => {
            at(
                "",
                "`true` accepts any JSON value: hosts need a `type` to describe it".into(),
            );
            return;
        }
        _ => return,
    };
    let typed = map.contains_key("type")
        || ["enum", "const", "anyOf", "oneOf", "allOf", "$ref"]
            .iter()
            .any(|k| map.contains_key(*k));
    if !typed && place == Place::Value {
        at(
            "",
            "no `type`: the schema accepts any JSON value, and hosts need a type to describe it"
                .into(),
        );
    }
    if let Some(Value::Array(types)) = map.get("type") {
        let list: Vec<String> = types.iter().map(Value::to_string).collect();
        at(
            "/type",
            format!(
                "a list of types ([{}]): hosts expect one type; an optional argument is left out \
                 rather than sent as `null`",
                list.join(", ")
            ),
        );
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        at(
            "/$ref",
            format!(
                "a reference (`{reference}`): hosts that do not resolve references lose what it \
                 names; a recursive type cannot be inlined"
            ),
        );
    }
    if map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(Value::is_null))
    {
        at(
            "/enum",
            "`null` among the values: hosts expect an optional argument to be left out".into(),
        );
    }
    if map.contains_key("const") {
        at(
            "/const",
            "`const`: Gemini's schema drops it; a one-value `enum` says the same".into(),
        );
    }
    if map.contains_key("oneOf") && !root {
        at(
            "/oneOf",
            "`oneOf`: Gemini's schema has no `oneOf`; alternatives that cannot overlap are an \
             `anyOf`"
                .into(),
        );
    }
    for keyword in UNPORTABLE_KEYWORDS {
        if map.contains_key(keyword) && !(root && keyword == "allOf") {
            at(
                &format!("/{keyword}"),
                format!(
                    "`{keyword}`: common hosts' converters (Gemini, OpenAI strict mode) drop or \
                     refuse it"
                ),
            );
        }
    }
    if matches!(
        map.get("additionalProperties"),
        Some(Value::Object(_) | Value::Bool(true))
    ) {
        at(
            "/additionalProperties",
            "an object of free-form names (a map): OpenAI's strict mode refuses it".into(),
        );
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            for (i, branch) in branches.iter().enumerate() {
                if is_null_schema(branch) {
                    issues.push(PortabilityIssue {
                        pointer: format!("{pointer}/{key}/{i}"),
                        reason: "a `null` alternative: hosts expect an optional argument to be \
                                 left out rather than sent as `null`"
                            .into(),
                    });
                }
            }
        }
    }
    // Alternatives of a schema with a type of its own may leave the type to it.
    let branch = if map.contains_key("type") {
        Place::Part
    } else {
        Place::Value
    };
    for (key, child) in map {
        match (key.as_str(), child) {
            (
                "properties" | "$defs" | "definitions" | "patternProperties" | "dependentSchemas",
                Value::Object(children),
            ) => {
                for (name, c) in children {
                    let at = format!("{pointer}/{key}/{}", segment(name));
                    check(c, &at, Place::Value, issues);
                }
            }
            ("prefixItems" | "items", Value::Array(items)) => {
                for (i, c) in items.iter().enumerate() {
                    check(c, &format!("{pointer}/{key}/{i}"), Place::Value, issues);
                }
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(items)) => {
                // Every `allOf` part applies, so one of them may carry the type.
                let place = if key == "allOf" { Place::Part } else { branch };
                for (i, c) in items.iter().enumerate() {
                    if !is_null_schema(c) {
                        check(c, &format!("{pointer}/{key}/{i}"), place, issues);
                    }
                }
            }
            ("additionalProperties", Value::Object(_))
            | ("items" | "contains" | "unevaluatedItems" | "additionalItems", _) => {
                check(child, &format!("{pointer}/{key}"), Place::Value, issues);
            }
            ("not" | "if" | "then" | "else" | "propertyNames" | "unevaluatedProperties", _) => {
                check(child, &format!("{pointer}/{key}"), Place::Part, issues)
            }
            _ => {}
        }
    }
}
