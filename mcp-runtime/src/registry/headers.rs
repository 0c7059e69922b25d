//! `x-mcp-header`: tool arguments mirrored into `Mcp-Param-{Name}` HTTP headers.

use crate::McpError;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderKind {
    String,
    Integer,
    Boolean,
}

/// One argument mirrored into a header.
#[derive(Debug, Clone)]
pub(crate) struct ParamHeader {
    /// The name as declared (`Region`).
    pub(crate) name: String,
    /// Lowercase, for lookups.
    pub(crate) lower: String,
    /// Property names from the root to the argument.
    pub(crate) path: Vec<String>,
    pub(crate) kind: HeaderKind,
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn kind_of(schema: &Map<String, Value>) -> Option<HeaderKind> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => return None,
    };
    match types.as_slice() {
        ["string"] => Some(HeaderKind::String),
        ["integer"] => Some(HeaderKind::Integer),
        ["boolean"] => Some(HeaderKind::Boolean),
        _ => None,
    }
}

/// Finds and checks every `x-mcp-header` of an input schema (digest §7.6).
pub(crate) fn collect(schema: &Map<String, Value>) -> Result<Vec<ParamHeader>, String> {
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), true, &mut out)?;
    for (i, a) in out.iter().enumerate() {
        if out[..i].iter().any(|b| b.lower == a.lower) {
            return Err(format!(
                "`x-mcp-header` name `{}` is used twice (names are compared case-insensitively)",
                a.name
            ));
        }
    }
    Ok(out)
}

fn walk(
    schema: &Map<String, Value>,
    path: &mut Vec<String>,
    reachable: bool,
    out: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    if let Some(h) = schema.get("x-mcp-header") {
        let at = if path.is_empty() {
            "the root".to_owned()
        } else {
            format!("`{}`", path.join("."))
        };
        let Some(name) = h.as_str() else {
            return Err(format!("`x-mcp-header` at {at} must be a string"));
        };
        if name.is_empty() || !name.chars().all(is_tchar) {
            return Err(format!(
                "`x-mcp-header` `{name}` at {at} must be a non-empty HTTP token (letters, digits, `!#$%&'*+-.^_`|~`)"
            ));
        }
        if !reachable || path.is_empty() {
            return Err(format!(
                "`x-mcp-header` `{name}` at {at} must sit on a property reached from the root through `properties` only"
            ));
        }
        let kind = kind_of(schema).ok_or_else(|| {
            format!("`x-mcp-header` `{name}` at {at} is only allowed on string, integer or boolean properties")
        })?;
        out.push(ParamHeader {
            name: name.to_owned(),
            lower: name.to_ascii_lowercase(),
            path: path.clone(),
            kind,
        });
    }
    for (key, value) in schema {
        match (key.as_str(), value) {
            ("properties", Value::Object(props)) => {
                for (prop, sub) in props {
                    if let Value::Object(sub) = sub {
                        path.push(prop.clone());
                        walk(sub, path, reachable, out)?;
                        path.pop();
                    }
                }
            }
            ("x-mcp-header" | "const" | "enum" | "default" | "examples", _) => {}
            (_, Value::Object(sub)) => {
                path.push(key.clone());
                walk(sub, path, false, out)?;
                path.pop();
            }
            (_, Value::Array(items)) => {
                for sub in items.iter().filter_map(Value::as_object) {
                    path.push(key.clone());
                    walk(sub, path, false, out)?;
                    path.pop();
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Checks `Mcp-Param-*` headers (lowercase names without the prefix, raw values) against the
/// arguments: a present, non-null argument needs its header with an equal value.
pub(crate) fn check(
    declared: &[ParamHeader],
    arguments: &Map<String, Value>,
    headers: &[(String, String)],
) -> Result<(), McpError> {
    for h in declared {
        let mut value = None;
        let mut level = Some(arguments);
        for (i, step) in h.path.iter().enumerate() {
            let v = level.and_then(|m| m.get(step));
            if i + 1 == h.path.len() {
                value = v;
            } else {
                level = v.and_then(Value::as_object);
            }
        }
        let Some(value) = value.filter(|v| !v.is_null()) else {
            continue;
        };
        let header = headers.iter().find(|(n, _)| *n == h.lower).map(|(_, v)| v);
        let Some(raw) = header else {
            return Err(McpError::header_mismatch(format!(
                "Header mismatch: Mcp-Param-{} is required because argument `{}` is present",
                h.name,
                h.path.join(".")
            )));
        };
        let decoded = crate::transport::http::decode_header_text(raw).ok_or_else(|| {
            McpError::header_mismatch(format!(
                "Header mismatch: Mcp-Param-{} has an invalid value encoding",
                h.name
            ))
        })?;
        let equal = match (h.kind, value) {
            (HeaderKind::String, Value::String(s)) => decoded == *s,
            (HeaderKind::Boolean, Value::Bool(b)) => decoded == if *b { "true" } else { "false" },
            (HeaderKind::Integer, Value::Number(n)) => match (decoded.parse::<f64>(), n.as_f64()) {
                (Ok(a), Some(b)) => a == b,
                _ => false,
            },
            _ => false,
        };
        if !equal {
            return Err(McpError::header_mismatch(format!(
                "Header mismatch: Mcp-Param-{} header value '{decoded}' does not match body value '{}'",
                h.name,
                match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn constraints() {
        let ok = schema(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {"n": {"type": ["integer", "null"], "x-mcp-header": "N"}}}
        }}));
        let found = collect(&ok).unwrap();
        assert_eq!(found.len(), 2);
        for bad in [
            json!({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}}),
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
        ] {
            assert!(collect(&schema(bad.clone())).is_err(), "{bad}");
        }
    }

    #[test]
    fn header_checks() {
        let declared = collect(&schema(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"}
        }})))
        .unwrap();
        let args = json!({"region": "us-west1", "count": 42, "flag": true});
        let args = args.as_object().unwrap();
        let h = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert!(
            check(
                &declared,
                args,
                &h(&[("region", "us-west1"), ("count", "42.0"), ("flag", "true")])
            )
            .is_ok()
        );
        assert!(
            check(
                &declared,
                args,
                &h(&[
                    ("region", "=?base64?dXMtd2VzdDE=?="),
                    ("count", "42"),
                    ("flag", "true")
                ])
            )
            .is_ok()
        );
        assert_eq!(
            check(&declared, args, &h(&[("count", "42"), ("flag", "true")]))
                .unwrap_err()
                .code(),
            -32020
        );
        assert!(
            check(
                &declared,
                args,
                &h(&[("region", "eu"), ("count", "42"), ("flag", "true")])
            )
            .is_err()
        );
        assert!(
            check(
                &declared,
                args,
                &h(&[
                    ("region", "=?base64?SGVsbG8?="),
                    ("count", "42"),
                    ("flag", "true")
                ])
            )
            .is_err()
        );
        let empty = Map::new();
        assert!(
            check(&declared, &empty, &[]).is_ok(),
            "absent arguments expect no header"
        );
    }
}
