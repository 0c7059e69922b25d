//! Which hosts read a tool's `inputSchema` as it is meant: Claude, Gemini, Codex and Cursor,
//! each judged by what its own converter (or, for Cursor, its reported behaviour) does with the
//! schema, beside the runtime's generic rules ([`mcp_runtime::schema::portability_issues`],
//! the strictest dialects any host has used).

use mcp_runtime::schema::portability_issues;
use serde_json::{Map, Value, json};

/// The hosts judged, in the order they are shown.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Host {
    Claude,
    Gemini,
    Codex,
    Cursor,
}

const HOSTS: [Host; 4] = [Host::Claude, Host::Gemini, Host::Codex, Host::Cursor];

impl Host {
    fn key(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Gemini => "gemini",
            Host::Codex => "codex",
            Host::Cursor => "cursor",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Host::Claude => "Claude",
            Host::Gemini => "Gemini",
            Host::Codex => "Codex",
            Host::Cursor => "Cursor",
        }
    }

    /// What the verdict rests on, and what the host does with a schema it finds nothing wrong
    /// with.
    fn basis(self) -> &'static str {
        match self {
            Host::Claude => {
                "Claude Code 2.1.332 sends the schema to the Anthropic API as it is, after a \
                 gate on its root (the API refuses root `anyOf`/`oneOf`/`allOf` from any Claude \
                 app): reads the rest as is"
            }
            Host::Gemini => {
                "Gemini CLI 0.61.0 sends the schema as `parametersJsonSchema`, only turning a \
                 `[T, \"null\"]` type into `nullable`: reads it as is"
            }
            Host::Codex => {
                "Codex (codex-rs `parse_tool_input_schema`, `strict: false`) keeps `type`, \
                 `enum`/`const`, `properties`, `required`, `items`, `additionalProperties`, \
                 `anyOf` and local references; the rest is dropped"
            }
            Host::Cursor => {
                "Cursor is closed source: judged by reported behaviour (composition keywords, \
                 `null` in a type list, an `enum` of non-strings and tuple `items` refused)"
            }
        }
    }
}

/// One thing a host does not read as meant.
struct Finding {
    /// JSON pointer to the keyword (or schema) at fault.
    pointer: String,
    /// The keyword, for the one-line summary.
    keyword: String,
    reason: String,
}

/// Keywords outside Codex's schema model (`JsonSchema` in codex-rs/tools/src/json_schema.rs),
/// which its parser drops (`oneOf`/`allOf` too, but for a one-alternative wrapper).
const CODEX_DROPPED: [&str; 14] = [
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
    "additionalItems",
    "$dynamicRef",
];

/// Keywords that let Codex infer a type for a schema without one (`sanitize_json_schema`).
const CODEX_TYPE_HINTS: [&str; 17] = [
    "type",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "enum",
    "const",
    "format",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "multipleOf",
];

/// A schema of the tree, where it is, and what place it holds.
struct Node<'a> {
    value: &'a Value,
    pointer: String,
    root: bool,
    /// A whole value's schema (a property, an item, a map's values), not a part of another.
    value_place: bool,
}

/// Every subschema of `root`, the root first.
fn nodes(root: &Value) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![Node {
        value: root,
        pointer: String::new(),
        root: true,
        value_place: false,
    }];
    while let Some(node) = stack.pop() {
        if let Value::Object(map) = node.value {
            for (key, child) in map {
                let at = format!("{}/{}", node.pointer, segment(key));
                let mut push = |value, pointer, value_place| {
                    stack.push(Node {
                        value,
                        pointer,
                        root: false,
                        value_place,
                    })
                };
                match (key.as_str(), child) {
                    (
                        "properties" | "$defs" | "definitions" | "patternProperties"
                        | "dependentSchemas",
                        Value::Object(children),
                    ) => {
                        for (name, c) in children {
                            push(c, format!("{at}/{}", segment(name)), true);
                        }
                    }
                    ("prefixItems" | "items" | "anyOf" | "oneOf" | "allOf", Value::Array(list)) => {
                        let whole = matches!(key.as_str(), "prefixItems" | "items");
                        for (i, c) in list.iter().enumerate() {
                            push(c, format!("{at}/{i}"), whole);
                        }
                    }
                    // `items: true` is a schema of its own; `additionalProperties: false` and
                    // the like are switches.
                    ("items", _) => push(child, at, true),
                    (
                        "additionalProperties"
                        | "contains"
                        | "unevaluatedItems"
                        | "additionalItems"
                        | "unevaluatedProperties",
                        Value::Object(_),
                    ) => push(child, at, true),
                    ("not" | "if" | "then" | "else" | "propertyNames", Value::Object(_)) => {
                        push(child, at, false)
                    }
                    _ => {}
                }
            }
        }
        out.push(node);
    }
    out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    out
}

/// Escapes a name as a JSON pointer segment.
fn segment(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn finding(pointer: &str, keyword: &str, reason: impl Into<String>) -> Finding {
    Finding {
        pointer: match keyword {
            "" => pointer.to_owned(),
            k => format!("{pointer}/{}", segment(k)),
        },
        keyword: keyword.to_owned(),
        reason: reason.into(),
    }
}

/// What `host` does not read as meant in `schema`.
fn findings(host: Host, schema: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    // Every host hands the model an object of named arguments (the MCP schema's
    // `inputSchema.type: "object"`; Gemini's `parametersJsonSchema` "must describe an object").
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        out.push(finding(
            "",
            "type",
            "the root is not `\"type\": \"object\"`: hosts expect an object of named arguments",
        ));
    }
    for node in nodes(schema) {
        match host {
            Host::Claude => claude(&node, &mut out),
            Host::Gemini => {}
            Host::Codex => codex(&node, &mut out),
            Host::Cursor => cursor(&node, &mut out),
        }
    }
    out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    out
}

fn claude(node: &Node<'_>, out: &mut Vec<Finding>) {
    let Some(map) = node.value.as_object().filter(|_| node.root) else {
        return;
    };
    // Claude Code 2.1.332's MCP schema gate (the bundled module that flattens a root's
    // combinators, checking them against the Anthropic API): root `anyOf`/`oneOf`/`allOf` are
    // refused by the API, so it merges their branches into one object and states the
    // constraint in prose, or drops the tool.
    for key in ["anyOf", "oneOf", "allOf"] {
        if map.contains_key(key) {
            out.push(finding(
                "",
                key,
                format!(
                    "`{key}` at the root: the Anthropic API refuses it; Claude Code merges the \
                     alternatives into one object (the rule becomes a sentence of the \
                     description) or drops the tool"
                ),
            ));
        }
    }
    // The same gate refuses a root property name outside `^[a-zA-Z0-9_.-]{1,64}$`.
    for name in map
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::keys)
    {
        let fits = (1..=64).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        if !fits {
            out.push(finding(
                &format!("/properties/{}", segment(name)),
                "",
                format!(
                    "argument name `{name}`: Claude Code refuses names outside \
                     [a-zA-Z0-9_.-], 64 characters at most"
                ),
            ));
        }
    }
}

fn codex(node: &Node<'_>, out: &mut Vec<Finding>) {
    let at = node.pointer.as_str();
    let map = match node.value {
        Value::Object(map) => map,
        // codex-rs `sanitize_json_schema`: a boolean schema becomes `{"type": "string"}`.
        Value::Bool(_) if node.value_place => {
            out.push(finding(
                at,
                "",
                "a boolean schema: Codex replaces it with `{\"type\": \"string\"}`",
            ));
            return;
        }
        _ => return,
    };
    // codex-rs/tools/src/json_schema.rs: `JsonSchema` has no field for these, so parsing the
    // sanitized schema into it drops them.
    for key in CODEX_DROPPED {
        if map.contains_key(key) {
            out.push(finding(
                at,
                key,
                format!("`{key}`: Codex's schema model has no `{key}`; it is dropped"),
            ));
        }
    }
    // `oneOf`/`allOf` are not fields either; `unwrap_single_variant_combiner` keeps only a
    // one-alternative wrapper.
    for key in ["oneOf", "allOf"] {
        if map
            .get(key)
            .is_some_and(|v| v.as_array().is_none_or(|a| a.len() != 1))
        {
            out.push(finding(
                at,
                key,
                format!(
                    "`{key}` with several alternatives: Codex's schema model has no `{key}`; it \
                     is dropped"
                ),
            ));
        }
    }
    // `JsonSchema::items` is one schema: a list there fails the parse, and the tool with it.
    if map.get("items").is_some_and(Value::is_array) {
        out.push(finding(
            at,
            "items",
            "`items` as a list (a tuple): Codex's schema model takes one schema there, so the \
             schema does not parse and Codex leaves the tool out",
        ));
    }
    // `resolve_json_schema_reference` follows `#…` pointers only.
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && !reference.starts_with('#')
    {
        out.push(finding(
            at,
            "$ref",
            format!("`{reference}`: Codex resolves only references within the schema (`#…`)"),
        ));
    }
    // With nothing to infer a type from, `sanitize_json_schema` says `string`.
    if node.value_place && !CODEX_TYPE_HINTS.iter().any(|k| map.contains_key(*k)) {
        out.push(finding(
            at,
            "",
            "no `type`: Codex tells the model it is a string (the schema accepts any value)",
        ));
    }
}

fn cursor(node: &Node<'_>, out: &mut Vec<Finding>) {
    let Some(map) = node.value.as_object() else {
        return;
    };
    let at = node.pointer.as_str();
    // Reported (code-yeongyu/senpi#952, an A/B against Cursor's gateway, 2026-08): any
    // `oneOf`/`anyOf`/`allOf` in an advertised tool's schema fails the whole request.
    for key in ["anyOf", "oneOf", "allOf"] {
        if map.contains_key(key) {
            out.push(finding(
                at,
                key,
                format!("`{key}`: reported to make Cursor's model request fail"),
            ));
        }
    }
    // Reported (cursor/cursor#3778): Cursor's own check of the arguments refuses values
    // against a type list with `null` in it.
    if let Some(Value::Array(types)) = map.get("type")
        && types.iter().any(|t| t == "null")
    {
        out.push(finding(
            at,
            "type",
            "a type list with `null`: Cursor's argument check is reported to refuse values",
        ));
    }
    // Reported (get-bb/bb#2222, cursor-agent 2026.08 with its default model): an `enum` with a
    // value that is not a string, or `items` as a list (a tuple), fails the whole request.
    if map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| values.iter().any(|v| !v.is_string()))
    {
        out.push(finding(
            at,
            "enum",
            "an `enum` with a value that is not a string: reported to make Cursor's model \
             request fail",
        ));
    }
    if map.get("items").is_some_and(Value::is_array) {
        out.push(finding(
            at,
            "items",
            "`items` as a list (a tuple): reported to make Cursor's model request fail",
        ));
    }
}

/// A tool's portability: one verdict per host (`ok` and its `issues`, each a `pointer`, the
/// `keyword` at fault when there is one, and a `reason`).
pub(crate) fn per_host(schema: &Value) -> Value {
    let mut hosts = Map::new();
    for host in HOSTS {
        let issues: Vec<Value> = findings(host, schema)
            .into_iter()
            .map(|f| json!({"pointer": f.pointer, "keyword": f.keyword, "reason": f.reason}))
            .collect();
        hosts.insert(
            host.key().into(),
            json!({"ok": issues.is_empty(), "issues": issues}),
        );
    }
    Value::Object(hosts)
}

/// The runtime's generic issues (the strictest dialects), each a `pointer` and a `reason`.
pub(crate) fn generic(schema: &Value) -> Value {
    let issues = match schema.as_object() {
        Some(map) => portability_issues(map),
        None => return json!([{"pointer": "", "reason": "the schema is not an object"}]),
    };
    issues
        .into_iter()
        .map(|i| json!({"pointer": i.pointer, "reason": i.reason}))
        .collect()
}

/// What each host's verdict rests on, keyed like [`per_host`].
pub(crate) fn bases() -> Value {
    HOSTS
        .iter()
        .map(|h| (h.key().to_owned(), Value::from(h.basis())))
        .collect::<Map<_, _>>()
        .into()
}

/// `Claude ✓ · Gemini ✓ · Codex ✗ (oneOf at /properties/x, …)`.
pub(crate) fn line(portability: &Value) -> String {
    let verdicts: Vec<String> = HOSTS
        .iter()
        .map(|host| {
            let verdict = &portability[host.key()];
            let issues = verdict["issues"].as_array().cloned().unwrap_or_default();
            if verdict["ok"] == true {
                return format!("{} ✓", host.title());
            }
            let mut shown: Vec<String> = issues.iter().take(2).map(short).collect();
            shown.dedup();
            if issues.len() > 2 {
                shown.push("…".into());
            }
            format!("{} ✗ ({})", host.title(), shown.join(", "))
        })
        .collect();
    verdicts.join(" · ")
}

/// One issue in a few words: `oneOf at /properties/x`, `allOf at the root`.
fn short(issue: &Value) -> String {
    let pointer = issue["pointer"].as_str().unwrap_or("");
    let keyword = issue["keyword"].as_str().unwrap_or("");
    let (what, at) = match keyword {
        "" => ("schema", pointer),
        k => (
            k,
            pointer
                .strip_suffix(&format!("/{}", segment(k)))
                .unwrap_or(pointer),
        ),
    };
    match at {
        "" => format!("{what} at the root"),
        at => format!("{what} at {at}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(schema: Value) -> Value {
        per_host(&schema)
    }

    #[test]
    fn a_plain_schema_reads_the_same_everywhere() {
        let v = verdict(json!({"type": "object", "properties": {
            "q": {"type": "string"}, "n": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["q"]}));
        for host in HOSTS {
            assert_eq!(v[host.key()]["ok"], true, "{}: {v}", host.key());
        }
        assert_eq!(line(&v), "Claude ✓ · Gemini ✓ · Codex ✓ · Cursor ✓");
    }

    #[test]
    fn each_host_is_judged_by_its_own_converter() {
        // A nested `oneOf`: dropped by Codex, refused by Cursor; as is for Claude and Gemini.
        let v = verdict(json!({"type": "object", "properties": {
            "x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}));
        assert_eq!(v["claude"]["ok"], true);
        assert_eq!(v["gemini"]["ok"], true);
        assert_eq!(v["codex"]["issues"][0]["pointer"], "/properties/x/oneOf");
        assert_eq!(v["cursor"]["ok"], false);
        assert_eq!(
            line(&v),
            "Claude ✓ · Gemini ✓ · Codex ✗ (oneOf at /properties/x) · Cursor ✗ (oneOf at /properties/x)"
        );
        // A root `allOf`: flattened (or the tool dropped) by Claude Code.
        let v = verdict(
            json!({"type": "object", "allOf": [{"required": ["a"]}, {"required": ["b"]}],
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}),
        );
        assert_eq!(v["claude"]["issues"][0]["pointer"], "/allOf");
        assert!(
            line(&v).starts_with("Claude ✗ (allOf at the root)"),
            "{}",
            line(&v)
        );
        // An argument name the Anthropic API refuses.
        let v = verdict(json!({"type": "object", "properties": {"a b": {"type": "string"}}}));
        assert_eq!(v["claude"]["issues"][0]["pointer"], "/properties/a b");
        // `[T, "null"]`: Gemini CLI rewrites it; Cursor's check is reported to refuse it.
        let v =
            verdict(json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}));
        assert_eq!(v["gemini"]["ok"], true);
        assert_eq!(v["codex"]["ok"], true);
        assert_eq!(v["cursor"]["issues"][0]["pointer"], "/properties/n/type");
        // Numbers in an `enum`, a tuple: reported to fail Cursor's request.
        let v = verdict(json!({"type": "object", "properties": {
            "n": {"type": "integer", "enum": [1, 2]},
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}}));
        assert_eq!(v["codex"]["issues"][0]["pointer"], "/properties/pair/items");
        let cursor: Vec<&str> = v["cursor"]["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["pointer"].as_str().unwrap())
            .collect();
        assert_eq!(cursor, ["/properties/n/enum", "/properties/pair/items"]);
        // Untyped and boolean schemas: Codex says `string`; a one-alternative wrapper is kept.
        let v = verdict(json!({"type": "object", "properties": {
            "any": {"description": "anything"}, "yes": true,
            "one": {"allOf": [{"type": "integer"}]}}}));
        let codex: Vec<&str> = v["codex"]["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["pointer"].as_str().unwrap())
            .collect();
        assert_eq!(codex, ["/properties/any", "/properties/yes"]);
        // Not an object at the root: no host reads it.
        let v = verdict(json!({"type": "string"}));
        for host in HOSTS {
            assert_eq!(v[host.key()]["ok"], false);
        }
    }

    #[test]
    fn the_generic_rules_are_the_runtime_s() {
        let issues = generic(&json!({"type": "object", "properties": {"c": {"const": 1}}}));
        assert_eq!(issues[0]["pointer"], "/properties/c/const");
    }
}
