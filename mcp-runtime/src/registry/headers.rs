//! `x-mcp-header`: the tool arguments a schema declares to be mirrored into `Mcp-Param-{Name}`
//! HTTP headers (found and checked when the registry is built; the HTTP transport compares the
//! headers with the arguments).

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
}
