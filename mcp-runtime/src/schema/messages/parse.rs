//! serde's messages about a handler's typed arguments as sentences: [`parse_error_sentence`],
//! worded as the validator's are.

use super::words::{child, count, listed, shown, subject, unknown_members};
use serde_json::Value;

/// One of serde's messages about the arguments (`path`: where, as
/// [`error_path`](crate::error_path::error_path) writes it, in serde_path_to_error's notation;
/// empty or `.` for the arguments themselves) as a sentence.
pub(crate) fn parse_error_sentence(path: &str, message: &str) -> String {
    let path = match path {
        "." => "",
        p => p,
    };
    let who = subject(path);
    if let Some(field) = between(message, "missing field `", "`") {
        return format!("`{}` is required", child(path, field));
    }
    if let Some(field) = between(message, "duplicate field `", "`") {
        return format!("`{}` is given twice", child(path, field));
    }
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((field, expected)) = rest.split_once("`, ")
    {
        let declared = backticked(expected);
        // The path ends with the unknown field itself.
        let parent = match path.strip_suffix(field) {
            Some("") => "",
            Some(p) if p.ends_with('.') => &p[..p.len() - 1],
            _ => path,
        };
        return unknown_members(parent, &[field], &declared);
    }
    if let Some(rest) = message.strip_prefix("unknown variant `")
        && let Some((variant, expected)) = rest.split_once("`, ")
    {
        let got = Value::String(variant.to_owned());
        let allowed: Vec<Value> = backticked(expected)
            .into_iter()
            .map(Value::String)
            .collect();
        return match allowed.as_slice() {
            [] => format!("{who} cannot be {}", shown(&got)),
            [only] => format!("{who} must be {} (got {})", shown(only), shown(&got)),
            all => format!("{who} must be one of {} (got {})", listed(all), shown(&got)),
        };
    }
    for head in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(head)
            && let Some((unexpected, expected)) = rest.split_once(", expected ")
        {
            return format!(
                "{who} must be {} (got {})",
                expected_in_json(expected),
                got_in_json(unexpected)
            );
        }
    }
    if let Some(rest) = message.strip_prefix("invalid length ")
        && let Some((len, expected)) = rest.split_once(", expected ")
    {
        let expected = expected_in_json(expected);
        // serde reads a struct from an array too, and then complains of its length.
        if expected == "an object" {
            return format!("{who} must be an object (got an array)");
        }
        let len = len
            .parse::<u64>()
            .map_or_else(|_| format!("{len} items"), |n| count(n, "item"));
        return format!("{who} has {len}, and must be {expected}");
    }
    match path {
        "" => message.to_owned(),
        _ => format!("{who}: {message}"),
    }
}

/// The text between `start` and the next `end`, when `message` starts with `start`.
fn between<'m>(message: &'m str, start: &str, end: &str) -> Option<&'m str> {
    let rest = message.strip_prefix(start)?;
    Some(&rest[..rest.find(end)?])
}

/// The names serde lists in backticks: `` expected one of `a`, `b` ``.
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, name)| name.to_owned())
        .collect()
}

/// What serde expected, in JSON's words.
fn expected_in_json(expected: &str) -> String {
    let integer = |low: &str, high: &str| format!("an integer from {low} to {high}");
    match expected {
        "i8" => integer("-128", "127"),
        "i16" => integer("-32768", "32767"),
        "i32" => integer("-2147483648", "2147483647"),
        "i64" | "i128" | "isize" => "an integer".into(),
        "u8" => integer("0", "255"),
        "u16" => integer("0", "65535"),
        "u32" => integer("0", "4294967295"),
        "u64" | "u128" | "usize" => "a non-negative integer".into(),
        "f32" | "f64" => "a number".into(),
        "a borrowed string" | "a string" => "a string".into(),
        "a sequence" => "an array".into(),
        "a map" => "an object".into(),
        "a boolean" => "true or false".into(),
        "a character" | "a char" => "a single character".into(),
        "unit" => "null".into(),
        e if e.starts_with("struct ") || e.starts_with("a struct") => "an object".into(),
        e if e.starts_with("a tuple of size ") => {
            format!("an array of {} items", &e["a tuple of size ".len()..])
        }
        e if e.starts_with("tuple struct ") || e.starts_with("a tuple") => "an array".into(),
        other => other.to_owned(),
    }
}

/// What serde found, as JSON: `string "x"` is `"x"`, `integer `5`` is `5`, `map` an object.
fn got_in_json(unexpected: &str) -> String {
    let ticked = |prefix: &str| {
        unexpected
            .strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('`'))
            .and_then(|r| r.strip_suffix('`'))
            .map(str::to_owned)
    };
    if let Some(s) = unexpected.strip_prefix("string ") {
        return shown(&Value::String(
            serde_json::from_str::<String>(s).unwrap_or_else(|_| s.trim_matches('"').to_owned()),
        ));
    }
    for prefix in ["integer ", "floating point ", "boolean "] {
        if let Some(v) = ticked(prefix) {
            return v;
        }
    }
    match unexpected {
        "map" => "an object".into(),
        "sequence" => "an array".into(),
        "null" | "unit value" => "null".into(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        a: i64,
        small: Option<u8>,
        priority: Option<Priority>,
        pair: Option<(u8, String)>,
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Priority {
        Low,
        High,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        x: bool,
    }

    /// The sentence for serde's error reading `text` as [`Args`].
    fn parsed(text: &str) -> String {
        let e = serde_json::from_str::<Args>(text).expect_err("invalid");
        let path = crate::error_path::error_path(text, &e);
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or_default();
        parse_error_sentence(&path, message)
    }

    #[test]
    fn the_typed_parse_speaks_the_same_way() {
        let cases = [
            (r#"{"a": "one"}"#, r#"`a` must be an integer (got "one")"#),
            (r#"{"a": 1.5}"#, "`a` must be an integer (got 1.5)"),
            (
                r#"{"a": 1, "small": 300}"#,
                "`small` must be an integer from 0 to 255 (got 300)",
            ),
            (
                r#"{"a": 1, "small": -1}"#,
                "`small` must be an integer from 0 to 255 (got -1)",
            ),
            (
                r#"{"a": 1, "priority": "asap"}"#,
                r#"`priority` must be one of "low", "high" (got "asap")"#,
            ),
            (r#"{}"#, "`a` is required"),
            (
                r#"{"a": 1, "b": 2}"#,
                "`b` is not an argument of this tool (its arguments: `a`, `small`, `priority`, `pair`, `inner`)",
            ),
            (
                r#"{"a": 1, "inner": {"x": true, "y": 1}}"#,
                "`inner.y` is not allowed (`inner` takes `x`)",
            ),
            (r#"{"a": 1, "inner": {}}"#, "`inner.x` is required"),
            (
                r#"{"a": 1, "inner": {"x": "yes"}}"#,
                r#"`inner.x` must be true or false (got "yes")"#,
            ),
            (
                r#"{"a": 1, "inner": []}"#,
                "`inner` must be an object (got an array)",
            ),
            (r#"{"a": 1, "a": 2}"#, "`a` is given twice"),
            (
                r#"{"a": 1, "pair": [1]}"#,
                "`pair` has 1 item, and must be an array of 2 items",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parsed(text), want, "{text}");
        }
    }
}
