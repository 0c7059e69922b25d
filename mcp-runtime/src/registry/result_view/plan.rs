//! From a tool's output schema to what its generated view draws: which array is the table's
//! rows and which members its columns, which members a form shows, which members a chart's bars
//! are labelled and measured by. Only the schema is read (its `$ref`s to `$defs` followed,
//! nullable types taken as their other type); the page does the rest with the result.

use crate::registry::result_layout::ResultView;
use serde_json::{Map, Value, json};

/// What a member holds, as the page formats it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Text,
    Number,
    Boolean,
    List,
    Object,
    Any,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::List => "list",
            Kind::Object => "object",
            Kind::Any => "any",
        }
    }
}

/// How many `$ref`s are followed in a row before a schema is taken as opaque.
const MAX_REFS: usize = 16;

/// The schema `s` stands for: its `$ref` (to `#/$defs/…` or `#/definitions/…`) followed, a
/// nullable `anyOf`/`oneOf` or a one-item `allOf` taken as its other member.
fn resolve<'a>(
    root: &'a Map<String, Value>,
    mut s: &'a Map<String, Value>,
) -> &'a Map<String, Value> {
    for _ in 0..MAX_REFS {
        if let Some(target) = s.get("$ref").and_then(Value::as_str) {
            let found = ["#/$defs/", "#/definitions/"].iter().find_map(|prefix| {
                let name = target.strip_prefix(prefix)?;
                root.get(&prefix[2..prefix.len() - 1])?
                    .get(name)?
                    .as_object()
            });
            match found {
                Some(next) => s = next,
                None => return s,
            }
            continue;
        }
        let one_of = ["anyOf", "oneOf", "allOf"].iter().find_map(|key| {
            let all = s.get(*key)?.as_array()?;
            let mut rest = all.iter().filter(|v| v.get("type") != Some(&json!("null")));
            let only = rest.next()?;
            rest.next().is_none().then_some(only)?.as_object()
        });
        match one_of {
            Some(next) => s = next,
            None => return s,
        }
    }
    s
}

/// The kind of the (resolved) schema `s`.
fn kind(s: &Map<String, Value>) -> Kind {
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ if s.contains_key("enum") || s.contains_key("const") => vec!["string"],
        _ if s.contains_key("properties") => vec!["object"],
        _ => return alternatives(s),
    };
    match types.as_slice() {
        ["string"] => Kind::Text,
        ["integer"] | ["number"] | ["integer", "number"] | ["number", "integer"] => Kind::Number,
        ["boolean"] => Kind::Boolean,
        ["array"] => Kind::List,
        ["object"] => Kind::Object,
        _ => Kind::Any,
    }
}

/// The kind all of `s`'s `oneOf`/`anyOf` alternatives share (an enum of documented variants is
/// a `oneOf` of texts), `Any` when they differ.
fn alternatives(s: &Map<String, Value>) -> Kind {
    let all = ["oneOf", "anyOf"]
        .iter()
        .find_map(|k| s.get(*k)?.as_array());
    let mut kinds = all
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .map(kind);
    match kinds.next() {
        Some(first) if kinds.all(|k| k == first) => first,
        _ => Kind::Any,
    }
}

/// The members of the object schema `s`, in the order they are declared as far as the schema
/// says (its `required` list keeps a struct's field order; the others follow by name).
fn members<'a>(
    root: &'a Map<String, Value>,
    s: &'a Map<String, Value>,
) -> Vec<(&'a str, &'a Map<String, Value>)> {
    let Some(props) = s.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut names: Vec<&str> = required
        .iter()
        .copied()
        .filter(|n| props.contains_key(*n))
        .collect();
    names.extend(
        props
            .keys()
            .map(String::as_str)
            .filter(|n| !required.contains(n)),
    );
    names
        .into_iter()
        .filter_map(|n| Some((n, resolve(root, props.get(n)?.as_object()?))))
        .collect()
}

/// A member's column or field: its key, its label (the schema's `title`, else the key made
/// words) and its kind.
fn field(name: &str, s: &Map<String, Value>) -> Value {
    let label = s
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| words(name));
    json!({ "key": name, "label": label, "kind": kind(s).name() })
}

/// `createdAt` and `created_at` as "Created at".
pub(super) fn words(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c == '_' || c == '-' {
            out.push(' ');
        } else if c.is_uppercase() && i > 0 {
            out.push(' ');
            out.extend(c.to_lowercase());
        } else if i == 0 {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The array of objects the rows are: the result itself, or its first member that is one.
fn rows<'a>(root: &'a Map<String, Value>) -> Option<(Vec<&'a str>, &'a Map<String, Value>)> {
    let items_of = |s: &'a Map<String, Value>| {
        if kind(s) != Kind::List {
            return None;
        }
        let items = resolve(root, s.get("items")?.as_object()?);
        (kind(items) == Kind::Object && !members(root, items).is_empty()).then_some(items)
    };
    let top = resolve(root, root);
    if let Some(items) = items_of(top) {
        return Some((Vec::new(), items));
    }
    members(root, top)
        .into_iter()
        .find_map(|(name, s)| Some((vec![name], items_of(s)?)))
}

/// What the page draws for `view` of a result of `schema`, or why it cannot.
pub(super) fn plan(
    view: ResultView,
    schema: &Map<String, Value>,
    title: &str,
) -> Result<Value, String> {
    let top = resolve(schema, schema);
    let table = |(path, items)| {
        let columns: Vec<Value> = members(schema, items)
            .into_iter()
            .map(|(n, s)| field(n, s))
            .collect();
        json!({ "layout": "table", "title": title, "rows": path, "columns": columns })
    };
    let form = || {
        let fields: Vec<Value> = members(schema, top)
            .into_iter()
            .map(|(n, s)| field(n, s))
            .collect();
        (!fields.is_empty()).then(|| json!({ "layout": "form", "title": title, "fields": fields }))
    };
    match view {
        ResultView::Auto => match rows(schema) {
            Some(found) => Ok(table(found)),
            None => form().ok_or_else(|| "a generated view shows an object's members or an array of objects: its result has neither".to_owned()),
        },
        ResultView::Table => rows(schema)
            .map(table)
            .ok_or_else(|| "a table shows an array of objects (the result, or one of its members): its result has none".to_owned()),
        ResultView::Form => form().ok_or_else(|| "a form shows an object's members: its result is not an object with members".to_owned()),
        ResultView::Chart => chart(schema, top, title),
    }
}

/// A bar chart: an array of objects with a text member (each bar's label) and a number member
/// (its length), or an object with an array of texts and an array of numbers.
fn chart(
    root: &Map<String, Value>,
    top: &Map<String, Value>,
    title: &str,
) -> Result<Value, String> {
    if let Some((path, items)) = rows(root) {
        let fields = members(root, items);
        let label = fields.iter().find(|(_, s)| kind(s) == Kind::Text);
        let value = fields.iter().find(|(_, s)| kind(s) == Kind::Number);
        if let (Some((label, l)), Some((value, s))) = (label, value) {
            let (measured, by) = (field(value, s), field(label, l));
            return Ok(json!({
                "layout": "chart", "title": title, "rows": path, "label": label, "value": value,
                "measure": measured["label"], "by": by["label"],
            }));
        }
    }
    let list_of = |want: Kind| {
        members(root, top).into_iter().find(|(_, s)| {
            kind(s) == Kind::List
                && s.get("items")
                    .and_then(Value::as_object)
                    .is_some_and(|i| kind(resolve(root, i)) == want)
        })
    };
    match (list_of(Kind::Text), list_of(Kind::Number)) {
        (Some((labels, _)), Some((values, s))) => {
            let measured = field(values, s);
            Ok(json!({ "layout": "chart", "title": title, "labels": labels, "values": values, "measure": measured["label"] }))
        }
        _ => Err("a chart needs an array of objects with a text and a number member, or an array of texts beside an array of numbers: its result has neither".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::{ResultView, plan};
    use serde_json::{Map, Value, json};

    fn schema(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_table_follows_refs_and_keeps_the_declared_order() {
        let s = schema(json!({
            "type": "object",
            "properties": { "cards": { "type": "array", "items": { "$ref": "#/$defs/Card" } } },
            "required": ["cards"],
            "$defs": { "Card": { "type": "object",
                "properties": { "id": { "type": "integer" }, "title": { "type": "string" },
                                "column": { "$ref": "#/$defs/Column" }, "due": { "type": ["string", "null"], "title": "Due on" } },
                "required": ["title", "id", "column"] },
                "Column": { "oneOf": [ { "type": "string", "const": "todo", "description": "Not started." },
                                       { "type": "string", "const": "done" } ] } }
        }));
        let p = plan(ResultView::Auto, &s, "Cards").unwrap();
        assert_eq!(p["layout"], "table");
        assert_eq!(p["rows"], json!(["cards"]));
        let cols: Vec<(&str, &str, &str)> = p["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["key"].as_str().unwrap(),
                    c["label"].as_str().unwrap(),
                    c["kind"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            cols,
            [
                ("title", "Title", "text"),
                ("id", "Id", "number"),
                ("column", "Column", "text"),
                ("due", "Due on", "text")
            ]
        );
    }

    #[test]
    fn a_form_a_chart_and_what_neither_can_show() {
        let record = schema(
            json!({ "type": "object", "properties": { "createdAt": { "type": "string" }, "done": { "type": "boolean" } } }),
        );
        let p = plan(ResultView::Auto, &record, "t").unwrap();
        assert_eq!(p["layout"], "form");
        assert_eq!(p["fields"][0]["label"], "Created at");
        assert!(
            plan(ResultView::Table, &record, "t")
                .unwrap_err()
                .contains("array of objects")
        );
        assert!(plan(ResultView::Chart, &record, "t").is_err());

        let parallel = schema(json!({ "type": "object", "properties": {
            "labels": { "type": "array", "items": { "type": "string" } },
            "values": { "type": "array", "items": { "type": "number" } } } }));
        let p = plan(ResultView::Chart, &parallel, "t").unwrap();
        assert_eq!(
            (p["labels"].as_str(), p["values"].as_str()),
            (Some("labels"), Some("values"))
        );

        let bars = schema(json!({ "type": "array", "items": { "type": "object",
            "properties": { "column": { "type": "string" }, "cards": { "type": "integer" } } } }));
        let p = plan(ResultView::Chart, &bars, "t").unwrap();
        assert_eq!(
            (p["label"].as_str(), p["value"].as_str(), p["rows"].clone()),
            (Some("column"), Some("cards"), json!([]))
        );

        let text = schema(json!({ "type": "string" }));
        assert!(
            plan(ResultView::Auto, &text, "t")
                .unwrap_err()
                .contains("neither")
        );
    }

    #[test]
    fn a_ref_cycle_ends() {
        let s = schema(json!({ "$ref": "#/$defs/A", "$defs": { "A": { "$ref": "#/$defs/A" } } }));
        assert!(plan(ResultView::Auto, &s, "t").is_err());
    }
}
