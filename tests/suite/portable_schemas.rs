//! Portable input schemas (the default `SchemaDialect`): every example's tools and the test
//! fixtures list schemas hosts' converters read without loss; the full dialect lists schemars'
//! output; validation is the same in both (the same arguments accepted and refused, with the
//! same messages); refused arguments are told as sentences naming what is allowed; and
//! `testing::assert_portable_schemas` names the tool and the place of what is not portable.
//!
//! The study server builds from the inventory (every `#[tool]` of its binary), so it is checked
//! in its own binary (`tests/transcript_study.rs`); `.ci/hosts.sh` feeds every example's
//! listed schemas to the converters of real hosts.

use crate::common::pipeline_fixture;
use crate::examples::{acme, apps, everything, notes};
use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::schema::{SchemaDialect, portability_issues};
use mcp_runtime::testing::{
    ClientError, TestClient, assert_portable_schemas, non_portable_schemas,
};
use mcp_runtime::{NoArguments, Server, ServerBuilder, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The hand-written schema of the conformance suite's `json_schema_2020_12_tool`: `$defs`,
/// `$ref`, `allOf`/`anyOf`, `if`/`then`/`else` on purpose (the suite checks that they are
/// served as written).
const CONFORMANCE_FIXTURE: &str = "json_schema_2020_12_tool";

/// Every example's server, by the example's name.
fn examples() -> Vec<(&'static str, Server)> {
    vec![
        ("acme-knowledge", acme::build().expect("builds")),
        ("notes", notes::build().expect("builds")),
        ("apps", apps::build().expect("builds")),
        ("everything", everything::build().expect("builds")),
    ]
}

#[test]
fn every_example_lists_portable_schemas() {
    for (name, server) in examples() {
        if name == "everything" {
            // Only the conformance fixture, whose schema is written by hand to be full 2020-12.
            let found: Vec<String> = non_portable_schemas(&server)
                .into_iter()
                .map(|n| n.tool)
                .collect();
            assert_eq!(found, [CONFORMANCE_FIXTURE], "{name}");
        } else {
            assert_portable_schemas(&server);
        }
    }
    assert_portable_schemas(&pipeline_fixture::server());
}

// ------------------------------------------------------------------------------------------
// A tool with every shape an argument type takes
// ------------------------------------------------------------------------------------------

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    Normal,
    High,
}

/// A shape with data (schemars: `oneOf` of a string and objects).
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Shape {
    Dot,
    Circle(f64),
    Rect { w: u32, h: u32 },
}

/// An internally tagged step.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[allow(dead_code)]
enum Step {
    Wait { secs: u32 },
    Say { text: String },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Inner {
    a: u32,
    b: Option<String>,
}

/// Either a number or a word.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Loose {
    Number(u64),
    Word(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct FileArgs {
    /// What the task is.
    #[schemars(length(min = 3))]
    title: String,
    /// How urgent it is.
    priority: Priority,
    /// How urgent it becomes when due.
    escalate: Option<Priority>,
    /// Who to tell.
    #[schemars(email)]
    notify: Option<String>,
    #[schemars(range(min = 1, max = 10))]
    limit: Option<u32>,
    inner: Option<Inner>,
    shape: Option<Shape>,
    step: Option<Step>,
    loose: Option<Loose>,
    #[schemars(length(min = 1), inner(length(min = 1)))]
    tags: Option<Vec<String>>,
    small: Option<u8>,
    #[serde(default)]
    urgent: bool,
}

/// A tree of labels (a recursive type: its schema cannot be inlined).
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

fn tools(builder: ServerBuilder) -> Server {
    builder
        .tool(
            Tool::new("file")
                .description("File a task.")
                .handler(|a: FileArgs, _cx| async move { format!("{a:?}") }),
        )
        .tool(
            Tool::new("nothing")
                .description("Take no arguments.")
                .handler(|_: NoArguments, _cx| async { "ok" }),
        )
        .build()
        .expect("valid server")
}

/// What a call answered: its error flag and text, or the JSON-RPC error.
fn outcome(result: Result<CallToolResult, ClientError>) -> Result<(bool, String), String> {
    result
        .map(|r| (r.failed(), r.text()))
        .map_err(|e| e.to_string())
}

/// Arguments of `file`, each with whether it is accepted.
fn file_cases() -> Vec<(Value, bool)> {
    let base = json!({"title": "Ship it", "priority": "normal"});
    let with = |extra: Value| {
        let mut v = base.clone();
        for (k, x) in extra.as_object().expect("an object") {
            v[k] = x.clone();
        }
        v
    };
    vec![
        (base.clone(), true),
        (
            with(
                json!({"escalate": "high", "notify": "a@b.example", "limit": 3,
                        "inner": {"a": 1, "b": "x"}, "shape": {"Rect": {"w": 1, "h": 2}},
                        "step": {"kind": "wait", "secs": 5}, "loose": 7, "tags": ["a"],
                        "small": 255, "urgent": true}),
            ),
            true,
        ),
        // An explicit `null` for an optional argument is still accepted.
        (
            with(
                json!({"escalate": null, "notify": null, "limit": null, "inner": null,
                        "shape": null, "step": null, "loose": null, "tags": null,
                        "small": null}),
            ),
            true,
        ),
        (with(json!({"inner": {"a": 1, "b": null}})), true),
        (with(json!({"shape": "Dot"})), true),
        (with(json!({"shape": {"Circle": 1.5}})), true),
        (with(json!({"step": {"kind": "say", "text": "hi"}})), true),
        (with(json!({"loose": "word"})), true),
        // Refused.
        (json!({"priority": "low"}), false),
        (with(json!({"title": "ab"})), false),
        (with(json!({"priority": "asap"})), false),
        (with(json!({"escalate": "asap"})), false),
        (with(json!({"notify": "nope"})), false),
        (with(json!({"limit": 0})), false),
        (with(json!({"limit": 11})), false),
        (with(json!({"limit": "3"})), false),
        (with(json!({"inner": {"b": "x"}})), false),
        (with(json!({"inner": {"a": 1, "c": 2}})), false),
        (with(json!({"shape": "Square"})), false),
        (with(json!({"shape": {"Circle": "big"}})), false),
        (with(json!({"step": {"kind": "jump"}})), false),
        (with(json!({"step": {"kind": "wait"}})), false),
        (with(json!({"loose": true})), false),
        (with(json!({"tags": []})), false),
        (with(json!({"tags": [""]})), false),
        (with(json!({"small": 256})), false),
        (with(json!({"urgent": null})), false),
        (with(json!({"extra": 1})), false),
        (with(json!({"title": null})), false),
    ]
}

#[tokio::test]
async fn both_dialects_accept_and_refuse_the_same_arguments_alike() {
    let portable = TestClient::new(tools(Server::builder()));
    let full = TestClient::new(tools(Server::builder().schema_dialect(SchemaDialect::Full)));
    for (arguments, accepted) in file_cases() {
        let a = outcome(portable.call_tool("file", arguments.clone()).await);
        let b = outcome(full.call_tool("file", arguments.clone()).await);
        assert_eq!(a, b, "{arguments}");
        let (failed, text) = a.expect("a tool result");
        assert_eq!(!failed, accepted, "{arguments}: {text}");
    }
    for arguments in [json!({}), json!({"x": 1})] {
        let a = outcome(portable.call_tool("nothing", arguments.clone()).await);
        let b = outcome(full.call_tool("nothing", arguments.clone()).await);
        assert_eq!(a, b, "{arguments}");
    }
}

#[tokio::test]
async fn what_the_server_accepts_the_listed_schema_describes() {
    // Every accepted argument object, its `null`s left out (which is how the portable schema
    // says "no value"), is valid against the listed schema: hosts are never told less than
    // the server takes.
    let client = TestClient::new(tools(Server::builder()));
    let listed = client.list_tools().await.expect("tools/list");
    let schema = Value::Object(listed[0].input_schema.clone());
    assert_eq!(portability_issues(&listed[0].input_schema), []);
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the listed schema is valid 2020-12");
    for (arguments, accepted) in file_cases() {
        let without_nulls = drop_nulls(&arguments);
        let served = client.call_tool("file", without_nulls.clone()).await;
        let (failed, text) = outcome(served).expect("a tool result");
        let valid = validator.is_valid(&without_nulls);
        if accepted {
            assert!(!failed, "{without_nulls}: {text}");
            assert!(
                valid,
                "{without_nulls} is refused by the listed schema {schema}"
            );
        } else if !failed {
            // Refused only for a `null` that, left out, is fine.
            assert!(valid, "{without_nulls}");
        }
    }
}

/// `value` without its object members that are `null`, at any depth.
fn drop_nulls(value: &Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), drop_nulls(v)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(drop_nulls).collect()),
        other => other.clone(),
    }
}

#[tokio::test]
async fn the_portable_and_the_full_listings() {
    let portable = TestClient::new(tools(Server::builder()));
    let full = TestClient::new(tools(Server::builder().schema_dialect(SchemaDialect::Full)));
    let p = Value::Object(portable.list_tools().await.unwrap()[0].input_schema.clone());
    let f = Value::Object(full.list_tools().await.unwrap()[0].input_schema.clone());
    let props = &p["properties"];
    assert_eq!(p["type"], "object");
    assert_eq!(p["required"], json!(["title", "priority"]));
    assert!(
        p.get("$defs").is_none() && !p.to_string().contains("$ref"),
        "{p}"
    );
    assert!(!p.to_string().contains("null"), "{p}");
    assert_eq!(
        props["escalate"],
        json!({"type": "string", "enum": ["low", "normal", "high"],
               "description": "How urgent it becomes when due."})
    );
    assert_eq!(props["notify"]["type"], "string");
    assert_eq!(props["notify"]["format"], "email");
    assert_eq!(
        props["limit"],
        json!({"type": "integer", "minimum": 1, "maximum": 10})
    );
    assert_eq!(props["inner"]["required"], json!(["a"]));
    assert_eq!(props["inner"]["properties"]["b"], json!({"type": "string"}));
    assert_eq!(props["shape"]["anyOf"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        props["step"]["anyOf"][0]["properties"]["kind"],
        json!({"type": "string", "enum": ["wait"]})
    );
    // The full form is schemars' own.
    assert_eq!(f["properties"]["limit"]["type"], json!(["integer", "null"]));
    assert!(f["properties"]["escalate"]["anyOf"].is_array(), "{f}");
    assert!(f["$defs"]["Shape"]["oneOf"].is_array(), "{f}");
    assert_eq!(
        Value::Object(mcp_runtime::schema::portable(f.as_object().unwrap())),
        p
    );
    // A tool without arguments is the same in both.
    assert_eq!(
        portable.list_tools().await.unwrap()[1].input_schema,
        full.list_tools().await.unwrap()[1].input_schema
    );
}

#[tokio::test]
async fn refused_arguments_are_told_as_sentences() {
    let client = TestClient::new(tools(Server::builder()));
    let base = json!({"title": "Ship it", "priority": "normal"});
    let with = |k: &str, v: Value| {
        let mut a = base.clone();
        a[k] = v;
        a
    };
    let cases = [
        (
            with("priority", json!("asap")),
            r#"`priority` must be one of "low", "normal", "high" (got "asap")"#,
        ),
        (
            with("escalate", json!("asap")),
            r#"`escalate` must be one of "low", "normal", "high" (got "asap")"#,
        ),
        (
            with("notify", json!("nope")),
            r#"`notify` must be an email address (got "nope")"#,
        ),
        (
            with("title", json!("ab")),
            r#"`title` must be at least 3 characters long (got "ab")"#,
        ),
        (
            with("limit", json!(11)),
            "`limit` must be at most 10 (got 11)",
        ),
        (
            with("limit", json!("3")),
            r#"`limit` must be an integer (got "3")"#,
        ),
        (
            with("small", json!(256)),
            "`small` must be at most 255 (got 256)",
        ),
        (
            with("tags", json!([])),
            "`tags` must have at least 1 item (got [])",
        ),
        (with("inner", json!({"b": "x"})), "`inner.a` is required"),
        (
            with("inner", json!({"a": 1, "c": 2})),
            "`inner.c` is not allowed (`inner` takes `a`, `b`)",
        ),
        (
            with("shape", json!({"Circle": "big"})),
            r#"`shape.Circle` must be a number (got "big")"#,
        ),
        (
            with("loose", json!(true)),
            "`loose` must be an integer or a string (got true)",
        ),
        (
            with("extra", json!(1)),
            "`extra` is not an argument of this tool (its arguments: ",
        ),
        (json!({"title": "Ship it"}), "`priority` is required"),
    ];
    for (arguments, want) in cases {
        let result = client.call_tool("file", arguments.clone()).await.unwrap();
        assert!(result.failed(), "{arguments}");
        let text = result.text();
        let head = "Invalid arguments for tool `file`: ";
        assert!(text.starts_with(head), "{text}");
        assert!(text[head.len()..].starts_with(want), "{arguments}: {text}");
    }
    // A tool whose arguments only the typed parse checks speaks the same way.
    let nothing = client.call_tool("nothing", json!({"x": 1})).await.unwrap();
    assert_eq!(
        nothing.text(),
        "Invalid arguments for tool `nothing`: this tool takes no arguments (got `x`)"
    );
}

#[tokio::test]
async fn hand_written_schemas_are_listed_as_written() {
    let schema = json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}},
                        "$defs": {"unused": {"type": "string"}}});
    let tool = || {
        Tool::new("raw")
            .input_schema(schema.as_object().unwrap().clone())
            .raw_handler(|_| async {
                Ok(mcp_runtime::handler::ToolOutcome::Complete(
                    CallToolResult::new(vec![]),
                ))
            })
    };
    for builder in [
        Server::builder(),
        Server::builder().schema_dialect(SchemaDialect::Full),
    ] {
        let server = builder.tool(tool()).build().unwrap();
        let listed = TestClient::new(server).list_tools().await.unwrap();
        assert_eq!(Value::Object(listed[0].input_schema.clone()), schema);
    }
}

#[test]
fn the_helper_names_the_tool_and_the_place() {
    let server = Server::builder()
        .tool(
            Tool::new("plant")
                .description("Plant a tree.")
                .handler(|t: Tree, _cx| async move { t.label }),
        )
        .tool(Tool::new("fine").handler(|_: NoArguments, _cx| async { "ok" }))
        .build()
        .unwrap();
    let found = non_portable_schemas(&server);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].tool, "plant");
    let pointers: Vec<&str> = found[0].issues.iter().map(|i| i.pointer.as_str()).collect();
    assert_eq!(pointers, ["/properties/children/items/$ref"]);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_portable_schemas(&server)
    }))
    .expect_err("a recursive type is not portable");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.starts_with("1 tool schema is not portable:\ntool `plant`:\n  - at `/properties/children/items/$ref`: a reference (`#`)"),
        "{message}"
    );
    // The full dialect lists schemars' output: not portable, and said so.
    let full = Server::builder()
        .schema_dialect(SchemaDialect::Full)
        .tool(Tool::new("file").handler(|a: FileArgs, _cx| async move { a.title }))
        .build()
        .unwrap();
    let found = non_portable_schemas(&full);
    assert_eq!(found.len(), 1);
    assert!(
        found[0]
            .issues
            .iter()
            .any(|i| i.pointer == "/properties/limit/type"),
        "{:?}",
        found[0].issues
    );
}
