//! Values as the command line reads and shows them: a typed value from what was typed, a
//! list's items as JSON and as lines. Shared by the commands and the terminal prompts.

use serde_json::Value;

/// A value typed by its JSON Schema: numbers, booleans, arrays (JSON, or comma-separated) and
/// objects (JSON) parsed; anything else a string.
pub(crate) fn typed(value: &str, schema: &Value) -> Result<Value, String> {
    let kind = match &schema["type"] {
        Value::String(kind) => kind.as_str(),
        // `["integer", "null"]` and the like: the first non-null type.
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("string"),
        _ => "string",
    };
    let bad = |what: &str| format!("`{value}` is not {what}");
    match kind {
        "integer" => value
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| bad("an integer")),
        "number" => value
            .trim()
            .parse::<f64>()
            .map(Value::from)
            .map_err(|_| bad("a number")),
        "boolean" => match value.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "n" | "0" => Ok(Value::Bool(false)),
            _ => Err(bad("true or false")),
        },
        "array" => match serde_json::from_str::<Value>(value) {
            Ok(Value::Array(items)) => Ok(Value::Array(items)),
            _ => value
                .split(',')
                .map(|item| typed(item.trim(), &schema["items"]))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
        },
        "object" => serde_json::from_str::<Value>(value)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| bad("a JSON object")),
        _ => Ok(Value::String(value.to_owned())),
    }
}

pub(crate) fn to_values<T: serde::Serialize>(items: Vec<T>) -> Vec<Value> {
    items
        .into_iter()
        .filter_map(|item| serde_json::to_value(item).ok())
        .collect()
}

/// An item of a list on one line: its name (or URI), and its description.
pub(crate) fn one_line(item: &Value) -> String {
    let name = ["name", "uri", "uriTemplate"]
        .iter()
        .find_map(|k| item[*k].as_str())
        .unwrap_or("?");
    let mut line = name.to_owned();
    if let Some(uri) = item["uri"].as_str().or(item["uriTemplate"].as_str())
        && uri != name
    {
        line.push_str(&format!(" <{uri}>"));
    }
    if let Some(arguments) = item["arguments"].as_array() {
        let names: Vec<String> = arguments
            .iter()
            .map(|a| {
                let name = a["name"].as_str().unwrap_or("?");
                match a["required"] == true {
                    true => name.to_owned(),
                    false => format!("{name}?"),
                }
            })
            .collect();
        line.push_str(&format!("({})", names.join(", ")));
    }
    if let Some(description) = item["description"].as_str() {
        let first = description.lines().next().unwrap_or("");
        line.push_str(&format!(" — {first}"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_typed_by_their_schema() {
        assert_eq!(typed("3", &json!({"type": "integer"})), Ok(json!(3)));
        assert_eq!(typed("2.5", &json!({"type": "number"})), Ok(json!(2.5)));
        assert_eq!(typed("yes", &json!({"type": "boolean"})), Ok(json!(true)));
        assert_eq!(
            typed(
                "a, b",
                &json!({"type": "array", "items": {"type": "string"}})
            ),
            Ok(json!(["a", "b"]))
        );
        assert_eq!(typed("[1,2]", &json!({"type": "array"})), Ok(json!([1, 2])));
        assert_eq!(
            typed("7", &json!({"type": ["integer", "null"]})),
            Ok(json!(7))
        );
        assert_eq!(typed("7", &json!({})), Ok(json!("7")));
        assert!(
            typed("x", &json!({"type": "integer"}))
                .unwrap_err()
                .contains("not an integer")
        );
    }
}
