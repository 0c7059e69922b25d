//! The hostile-input suite: generated hostile requests over real HTTP on 127.0.0.1 against the
//! fixture server of `tests/common/pipeline_fixture.rs` (tools, resources, templates, prompts,
//! completions, listen). Each must get its documented status and JSON-RPC error code, none a
//! 5xx, no panic anywhere in the server (a panic hook counts them), and the server must answer
//! a normal `tools/call` right after each one.
//!
//! Run: `cargo test --test hostile` (a few seconds; the case count is printed with
//! `-- --nocapture`).
//!
//! # What "documented" means, per class
//!
//! The statuses are those of the transport's table (`mcp-runtime/src/transport/http/mod.rs`),
//! the codes those of the spec (digest §2.5, §7.4, §12.1):
//!
//! - **Bad JSON, invalid UTF-8, raw NUL or control bytes in the body** → 400, `-32700`, no `id`
//!   (JSON text is UTF-8 and control characters must be escaped, RFC 8259 §7).
//! - **Not one request object** (array, scalar, `jsonrpc` not `"2.0"`, `method` not a string,
//!   a member given twice in the envelope) → 400, `-32600`; the `id` is echoed when it could be
//!   read (one `id`, a string or an integer within `i64`), absent otherwise.
//! - **Absurd ids**: strings of any length and content, and integers within `i64`, are echoed
//!   exactly; any other id (`null`, fraction or exponent, beyond `i64`, object, array, boolean,
//!   nested past the recursion limit) → 400, `-32600`, no `id` (`RequestId` is string |
//!   integer, §2.1/§12).
//! - **`params` not an object, `_meta` not an object, or a `_meta` key of the wrong type**
//!   (`protocolVersion`, `clientCapabilities`, `clientInfo`, `logLevel`, `progressToken`), or
//!   `params`, `_meta`, `name` or `uri` given twice → 400, `-32602` (required `_meta`: §2.5 "400
//!   MUST"; refused before any other check, §12.1 step 6). An unknown `logLevel` string → 200, `-32602`
//!   (§12.1 step 12). Other `_meta` keys (trace context, extensions) are carried, not
//!   interpreted: any value is served.
//! - **A wrong type in a field of a method's params** (`arguments`, `inputResponses`,
//!   `requestState`, prompt `arguments` and their values, `ref`, `argument`, `context`,
//!   `notifications`, `cursor`, …) → 200, `-32602` (the method's own error: transport table).
//!   `null` in an optional field reads as absent (serde's `Option`), and the request is served as
//!   without it. Tool arguments of the right shape but failing the input schema are a tool
//!   execution error: 200, a result with `isError: true` (§4.2, "two error channels").
//! - **`name`/`uri` of the wrong type**: the `Mcp-Name` header mirrors them (§7.3) and a
//!   non-string cannot be mirrored; the client sends the JSON text, which the header check
//!   (before the method's params, §12.1 step 8) finds different → 400, `-32020`.
//! - **Header injection and header values**: CR/LF splits a header line into a second header —
//!   a repeated MCP header → 400, `-32020` (§7.4); bare CR, NUL and obs-fold are refused by the
//!   HTTP layer (hyper) with 400 and no JSON-RPC body (RFC 9112 §5), and CR LF CR LF ends the
//!   head (what follows is the body: 400, `-32700`); non-ASCII bytes in an MCP
//!   header → 400, `-32020` ("invalid characters", §7.4), in `Host`/`Origin` → 403 (§7.7), in
//!   `Content-Type` → 415, in `Accept` → 406 (transport table); an over-long value the HTTP
//!   layer still takes is compared like any other (mismatch → 400, `-32020`), a head past the
//!   HTTP layer's limit (or too many headers) → 431 without a JSON-RPC body.
//! - **Duplicate JSON keys** are refused, named in the message: in the envelope → 400, `-32600`
//!   without `id`; in `params`, a member the checks before the method read (`_meta`, `name`,
//!   `uri`) → 400, `-32602`, any other → 200, `-32602` (the method's error); a field twice in
//!   typed tool arguments → a tool execution error; a key twice in `_meta` (known or not)
//!   → 400, `-32602`, naming the key. Where values are kept as maps (the answers of
//!   `inputResponses`) the last one wins (serde_json's `Map`).
//! - **Huge values** within the body limit are served, or refused by the method with its own
//!   error (a URI past the 8 KiB template-matching limit → resource not found, 200, `-32602`).
//! - **Deep nesting** within serde_json's recursion limit (128) is served; past it a value that
//!   must be read cannot be: an argument the tool reads → tool execution error, beside a
//!   mirrored or schema-checked argument → 200, `-32602`, in prompt arguments → 200, `-32602`,
//!   in `_meta` → 400, `-32602`, as the `id` → 400, `-32600`; a member nobody reads is skipped
//!   without recursion (served); a body of nested arrays or objects → 400, `-32600`.
//! - **Oversized bodies**: over the limit (declared or read) → 413, `-32600`, no `id`; a
//!   declared `Content-Length` larger than the body sent before the client closes its side →
//!   400, `-32600` (the body could not be read); a malformed `Content-Length` → 400 from the
//!   HTTP layer.
//! - **Slow bodies** (sent in pieces with pauses, bounded to a few hundred milliseconds) are read
//!   whole and served: 200.

mod common;

use common::pipeline_fixture as fixture;
use common::{HttpResponse, post, spawn_http_with, within};
use mcp_runtime::HttpOptions;
use mcp_runtime::protocol::Method;
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The body limit of the server under test (small, so oversized bodies stay cheap).
const LIMIT: usize = 256 * 1024;

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

type Headers = Vec<(String, String)>;

/// What a case expects.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// A JSON-RPC error: HTTP status, code, and the `id` (`None`: no `id`).
    Error(u16, i64, Option<Value>),
    /// 200 with a `complete` result echoing this id.
    Result(Value),
    /// 200 with a `complete` tool result marked `isError: true`, echoing this id.
    ToolError(Value),
    /// Refused by the HTTP layer with this status, no JSON-RPC body.
    Http(u16),
}

/// How a case is sent.
enum Wire {
    /// Through the HTTP client: headers and body.
    Client(Vec<(String, String)>, Vec<u8>),
    /// Raw bytes on a TCP connection, written in pieces with `pause` between them; the write
    /// side is closed after the last piece when `close` is set.
    Raw {
        pieces: Vec<Vec<u8>>,
        pause: Duration,
        close: bool,
    },
}

struct Case {
    class: &'static str,
    name: String,
    wire: Wire,
    expect: Expect,
}

/// A header value a client mirrors a body value into (§7.5): visible ASCII as is, anything
/// else in the base64 sentinel; a value that is not a string is sent as its JSON text.
fn mirror(value: &Value) -> String {
    match value {
        Value::String(s) => {
            let plain = !s.is_empty()
                && s.bytes().all(|b| (0x21..0x7f).contains(&b))
                && !s.starts_with("=?base64?");
            if plain {
                s.clone()
            } else {
                format!("=?base64?{}?=", common::base64(s.as_bytes()))
            }
        }
        other => other.to_string(),
    }
}

/// The headers a conforming client sends with `body`, mirroring whatever the body holds.
fn headers(body: &Value) -> Vec<(String, String)> {
    let mut h = common::post_headers();
    h.push((
        "MCP-Protocol-Version".to_owned(),
        fixture::VERSION.to_owned(),
    ));
    if let Some(v) = body.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion") {
        h[2].1 = mirror(v);
    }
    if let Some(m) = body.get("method") {
        h.push(("Mcp-Method".to_owned(), mirror(m)));
    }
    let name = match body.get("method").and_then(Value::as_str) {
        Some("tools/call" | "prompts/get") => body.pointer("/params/name"),
        Some("resources/read") => body.pointer("/params/uri"),
        _ => None,
    };
    if let Some(n) = name {
        h.push(("Mcp-Name".to_owned(), mirror(n)));
    }
    if body.pointer("/params/name") == Some(&json!("region")) {
        for (arg, header) in [("region", "Mcp-Param-Region"), ("count", "Mcp-Param-Count")] {
            if let Some(v) = body
                .pointer(&format!("/params/arguments/{arg}"))
                .filter(|v| !v.is_null())
            {
                h.push((header.to_owned(), mirror(v)));
            }
        }
    }
    h
}

fn client(class: &'static str, name: String, body: &Value, expect: Expect) -> Case {
    Case {
        class,
        name,
        wire: Wire::Client(
            headers(body),
            serde_json::to_vec(body).expect("serializable"),
        ),
        expect,
    }
}

fn raw_client(
    class: &'static str,
    name: &str,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    expect: Expect,
) -> Case {
    Case {
        class,
        name: name.to_owned(),
        wire: Wire::Client(headers, body),
        expect,
    }
}

fn std_headers(method: &str) -> Vec<(String, String)> {
    headers(&fixture::request(json!(0), method, json!({})))
}

fn err(status: u16, code: i64, id: &Value) -> Expect {
    Expect::Error(status, code, Some(id.clone()))
}

fn params_of(method: &str) -> Value {
    match method {
        "tools/call" => json!({"name": "echo", "arguments": {"text": "hi"}}),
        "resources/read" => json!({"uri": "test://static"}),
        "prompts/get" => json!({"name": "greet", "arguments": {"name": "Ada"}}),
        "completion/complete" => {
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}})
        }
        "subscriptions/listen" => json!({"notifications": {"toolsListChanged": true}}),
        _ => json!({}),
    }
}

/// Wrong values, one of each JSON type (and the empty and non-empty forms of containers).
fn wrong_values() -> Vec<(&'static str, Value)> {
    vec![
        ("null", Value::Null),
        ("true", json!(true)),
        ("0", json!(0)),
        ("-1", json!(-1)),
        ("1.5", json!(1.5)),
        ("a string", json!("str")),
        ("[]", json!([])),
        ("[1]", json!([1])),
        ("{}", json!({})),
        ("{a:1}", json!({"a": 1})),
    ]
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// How a field of the wrong type is answered.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// A params field: 200 / -32602; `null` reads as absent, with this outcome.
    Field(Absent),
    /// Mirrored into `Mcp-Name`: 400 / -32020.
    Mirrored,
    /// `_meta` or one of its typed keys: 400 / -32602; `null` as absent, with this outcome.
    Meta(Absent),
}

/// What a request without the field gets.
#[derive(Clone, Copy, Debug)]
enum Absent {
    Served,
    ToolError,
    InvalidParams,
    Rejected,
}

/// The first class: every field of every method, with a value of each wrong type.
fn wrong_types(cases: &mut Vec<Case>) {
    let meta_fields: Vec<(&str, &str, Rule)> = vec![
        ("_meta", "object", Rule::Meta(Absent::Rejected)),
        (
            "_meta/io.modelcontextprotocol~1protocolVersion",
            "string",
            Rule::Meta(Absent::Rejected),
        ),
        (
            "_meta/io.modelcontextprotocol~1clientCapabilities",
            "object",
            Rule::Meta(Absent::Rejected),
        ),
        (
            "_meta/io.modelcontextprotocol~1clientInfo",
            "object",
            Rule::Meta(Absent::Served),
        ),
        (
            "_meta/io.modelcontextprotocol~1logLevel",
            "string",
            Rule::Meta(Absent::Served),
        ),
        (
            "_meta/progressToken",
            "string|integer",
            Rule::Meta(Absent::Served),
        ),
    ];
    let mut table: Vec<(&str, &str, &str, Rule)> = vec![
        ("tools/call", "name", "string", Rule::Mirrored),
        (
            "tools/call",
            "arguments",
            "object",
            Rule::Field(Absent::ToolError),
        ),
        (
            "tools/call",
            "inputResponses",
            "object",
            Rule::Field(Absent::Served),
        ),
        (
            "tools/call",
            "requestState",
            "string",
            Rule::Field(Absent::Served),
        ),
        (
            "tools/call",
            "arguments/text",
            "string",
            Rule::Field(Absent::ToolError),
        ),
        ("resources/read", "uri", "string", Rule::Mirrored),
        (
            "resources/read",
            "inputResponses",
            "object",
            Rule::Field(Absent::Served),
        ),
        (
            "resources/read",
            "requestState",
            "string",
            Rule::Field(Absent::Served),
        ),
        ("prompts/get", "name", "string", Rule::Mirrored),
        (
            "prompts/get",
            "arguments",
            "object",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "prompts/get",
            "arguments/name",
            "string",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "prompts/get",
            "inputResponses",
            "object",
            Rule::Field(Absent::Served),
        ),
        (
            "prompts/get",
            "requestState",
            "string",
            Rule::Field(Absent::Served),
        ),
        (
            "completion/complete",
            "ref",
            "object",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "completion/complete",
            "ref/type",
            "string",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "completion/complete",
            "ref/name",
            "string",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "completion/complete",
            "argument",
            "object",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "completion/complete",
            "argument/name",
            "string",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "completion/complete",
            "argument/value",
            "string",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "completion/complete",
            "context",
            "object",
            Rule::Field(Absent::Served),
        ),
        (
            "completion/complete",
            "context/arguments",
            "object",
            Rule::Field(Absent::Served),
        ),
        // A listen that is served streams until it ends: only its errors are asked for here.
        (
            "subscriptions/listen",
            "notifications",
            "object",
            Rule::Field(Absent::InvalidParams),
        ),
        (
            "subscriptions/listen",
            "notifications/toolsListChanged",
            "boolean",
            Rule::Field(Absent::Served),
        ),
        (
            "subscriptions/listen",
            "notifications/resourceSubscriptions",
            "array",
            Rule::Field(Absent::Served),
        ),
        (
            "tools/list",
            "cursor",
            "string",
            Rule::Field(Absent::Served),
        ),
        (
            "resources/list",
            "cursor",
            "string",
            Rule::Field(Absent::Served),
        ),
        (
            "resources/templates/list",
            "cursor",
            "string",
            Rule::Field(Absent::Served),
        ),
        (
            "prompts/list",
            "cursor",
            "string",
            Rule::Field(Absent::Served),
        ),
    ];
    for method in [
        "server/discover",
        "tools/list",
        "tools/call",
        "resources/read",
        "prompts/get",
        "completion/complete",
        "subscriptions/listen",
    ] {
        for (field, ty, rule) in &meta_fields {
            table.push((method, field, ty, *rule));
        }
    }
    let mut n = 0u32;
    for (method, field, ty, rule) in table {
        for (label, value) in wrong_values() {
            let t = json_type(&value);
            let same = ty
                .split('|')
                .any(|ty| ty == t || (ty == "integer" && value.as_i64().is_some()));
            if same {
                continue;
            }
            n += 1;
            let id = json!(format!("wt-{n}"));
            let mut body = fixture::request(id.clone(), method, params_of(method));
            let path = field.replace("~1", "\u{1}");
            let path: Vec<String> = path.split('/').map(|s| s.replace('\u{1}', "/")).collect();
            {
                let mut target = &mut body["params"];
                for step in &path[..path.len() - 1] {
                    target = &mut target[step.as_str()];
                }
                target[path[path.len() - 1].as_str()] = value.clone();
            }
            let absent = |a: Absent| match a {
                Absent::Served => Expect::Result(id.clone()),
                Absent::ToolError => Expect::ToolError(id.clone()),
                Absent::InvalidParams => err(200, -32602, &id),
                Absent::Rejected => err(400, -32602, &id),
            };
            let expect = match (rule, value.is_null()) {
                (Rule::Mirrored, _) => err(400, -32020, &id),
                (Rule::Field(a), true) => absent(a),
                (Rule::Field(_), false) => err(200, -32602, &id),
                (Rule::Meta(a), true) => absent(a),
                (Rule::Meta(_), false) => err(400, -32602, &id),
            };
            if method == "subscriptions/listen" && matches!(expect, Expect::Result(_)) {
                continue;
            }
            // A tool's `text` of another type fails the input schema: a tool execution error.
            let expect = if field == "arguments/text" && !value.is_null() {
                Expect::ToolError(id.clone())
            } else {
                expect
            };
            cases.push(client(
                "wrong types",
                format!("{method} {field} = {label}"),
                &body,
                expect,
            ));
        }
    }
    // `params` itself, for every method.
    for method in Method::ALL.iter().map(|m| m.name()) {
        for (label, value) in wrong_values() {
            if value.is_object() {
                continue;
            }
            n += 1;
            let id = json!(n);
            let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": value});
            cases.push(client(
                "wrong types",
                format!("{method} params = {label}"),
                &body,
                err(400, -32602, &id),
            ));
        }
    }
    // An unknown log level (a string, but not a level) is the method's error.
    let mut body = fixture::request(json!("lvl"), "tools/list", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("loud");
    cases.push(client(
        "wrong types",
        "unknown logLevel".into(),
        &body,
        err(200, -32602, &json!("lvl")),
    ));
    // Other `_meta` keys are carried, not interpreted.
    for (i, value) in [json!(5), json!({"deep": [1, 2]}), json!(null)]
        .into_iter()
        .enumerate()
    {
        let id = json!(format!("trace-{i}"));
        let mut body = fixture::request(id.clone(), "tools/call", params_of("tools/call"));
        body["params"]["_meta"]["traceparent"] = value;
        cases.push(client(
            "wrong types",
            format!("traceparent of another type #{i}"),
            &body,
            Expect::Result(id),
        ));
    }
    // The envelope: jsonrpc, method and id.
    for (label, value) in wrong_values() {
        n += 1;
        let id = json!(n);
        let mut body = fixture::request(id.clone(), "tools/list", json!({}));
        body["jsonrpc"] = value.clone();
        cases.push(client(
            "wrong types",
            format!("jsonrpc = {label}"),
            &body,
            err(400, -32600, &id),
        ));
        if !value.is_string() {
            let mut body = fixture::request(id.clone(), "tools/list", json!({}));
            body["method"] = value.clone();
            let mut h = headers(&body);
            h.push(("Mcp-Method".into(), "tools/list".into()));
            cases.push(Case {
                class: "wrong types",
                name: format!("method = {label}"),
                wire: Wire::Client(h, serde_json::to_vec(&body).expect("serializable")),
                expect: err(400, -32600, &id),
            });
        }
    }
    for (label, value) in [json!(true), json!(1.5), json!([]), json!({}), json!(null)]
        .into_iter()
        .map(|v| (v.to_string(), v))
    {
        let mut body = fixture::request(json!(0), "tools/list", json!({}));
        body["id"] = value;
        cases.push(client(
            "wrong types",
            format!("id = {label}"),
            &body,
            Expect::Error(400, -32600, None),
        ));
    }
}

/// A body written by hand around a standard `_meta`.
fn text_request(id: &str, method: &str, params_head: &str) -> Vec<u8> {
    let meta = serde_json::to_string(&fixture::meta()).expect("serializable");
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params_head}"_meta":{meta}}}}}"#)
        .into_bytes()
}

fn bad_json(cases: &mut Vec<Case>) {
    let h = std_headers("tools/list");
    let bodies: Vec<(&str, Vec<u8>)> = vec![
        ("empty", b"".to_vec()),
        ("whitespace", b"  \n ".to_vec()),
        (
            "truncated",
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#.to_vec(),
        ),
        (
            "trailing comma",
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list",}"#.to_vec(),
        ),
        ("single quotes", br#"{'jsonrpc':'2.0','id':1}"#.to_vec()),
        ("unquoted key", br#"{jsonrpc:"2.0"}"#.to_vec()),
        (
            "two objects",
            br#"{"jsonrpc":"2.0"}{"jsonrpc":"2.0"}"#.to_vec(),
        ),
        ("comment", b"{/* c */}".to_vec()),
        ("NaN", br#"{"jsonrpc":"2.0","id":NaN}"#.to_vec()),
        ("bad escape", br#"{"jsonrpc":"2.\q"}"#.to_vec()),
        ("unterminated string", br#"{"jsonrpc":"2.0"#.to_vec()),
        ("bare word", b"tools/list".to_vec()),
        ("form body", b"jsonrpc=2.0&id=1".to_vec()),
        (
            "leading zero number",
            br#"{"jsonrpc":"2.0","id":01}"#.to_vec(),
        ),
        ("BOM", b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\"}".to_vec()),
    ];
    for (name, body) in bodies {
        cases.push(raw_client(
            "bad JSON",
            name,
            h.clone(),
            body,
            Expect::Error(400, -32700, None),
        ));
    }
    for (name, body) in [
        (
            "array of requests",
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#.to_vec(),
        ),
        ("positional array", br#"["2.0",1,"tools/list",{}]"#.to_vec()),
        ("string", br#""tools/list""#.to_vec()),
        ("number", b"42".to_vec()),
        ("null", b"null".to_vec()),
        ("empty object", b"{}".to_vec()),
    ] {
        cases.push(raw_client(
            "bad JSON",
            name,
            h.clone(),
            body,
            Expect::Error(400, -32600, None),
        ));
    }
}

fn utf8_and_nul(cases: &mut Vec<Case>) {
    let h = std_headers("tools/call");
    let good = String::from_utf8(text_request(
        "1",
        "tools/call",
        r#""name":"echo","arguments":{"text":"hi"},"#,
    ))
    .expect("UTF-8");
    let at = good.find("hi").expect("the text");
    let mut splice = |name: &str, bytes: &[u8], class: &'static str| {
        let mut body = good.as_bytes().to_vec();
        body.splice(at..at + 2, bytes.iter().copied());
        cases.push(raw_client(
            class,
            name,
            h.clone(),
            body,
            Expect::Error(400, -32700, None),
        ));
    };
    splice("0xff in a string", b"\xff", "invalid UTF-8");
    splice("overlong encoding", b"\xc0\xaf", "invalid UTF-8");
    splice(
        "UTF-16 surrogate in UTF-8",
        b"\xed\xa0\x80",
        "invalid UTF-8",
    );
    splice("truncated sequence", b"\xe2\x82", "invalid UTF-8");
    splice(
        "code point past U+10FFFF",
        b"\xf4\x90\x80\x80",
        "invalid UTF-8",
    );
    splice("raw NUL in a string", b"a\x00b", "NUL bytes");
    splice("raw control byte in a string", b"a\x01b", "NUL bytes");
    let mut outside = good.as_bytes().to_vec();
    outside.insert(1, 0);
    cases.push(raw_client(
        "NUL bytes",
        "NUL between members",
        h.clone(),
        outside,
        Expect::Error(400, -32700, None),
    ));
    let mut key = good.as_bytes().to_vec();
    key.splice(2..2, *b"\xfe");
    cases.push(raw_client(
        "invalid UTF-8",
        "0xfe in a key",
        h.clone(),
        key,
        Expect::Error(400, -32700, None),
    ));
    // Escaped NUL is valid JSON text: served, or the method's own answer.
    let body = fixture::request(
        json!("nul-1"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "a\u{0}b"}}),
    );
    cases.push(client(
        "NUL bytes",
        "escaped NUL in an argument".into(),
        &body,
        Expect::Result(json!("nul-1")),
    ));
    let body = fixture::request(
        json!("nul-2"),
        "tools/call",
        json!({"name": "ec\u{0}ho", "arguments": {"text": "a"}}),
    );
    cases.push(client(
        "NUL bytes",
        "escaped NUL in the tool name".into(),
        &body,
        err(200, -32602, &json!("nul-2")),
    ));
    let body = fixture::request(json!("nul-3"), "tools/list\u{0}", json!({}));
    cases.push(client(
        "NUL bytes",
        "escaped NUL in the method".into(),
        &body,
        err(404, -32601, &json!("nul-3")),
    ));
    let body = fixture::request(
        json!("nul-4"),
        "resources/read",
        json!({"uri": "test://static\u{0}"}),
    );
    cases.push(client(
        "NUL bytes",
        "escaped NUL in a URI".into(),
        &body,
        err(200, -32602, &json!("nul-4")),
    ));
    let mut body = fixture::request(json!("nul-5"), "tools/list", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28\u{0}");
    cases.push(client(
        "NUL bytes",
        "escaped NUL in the protocol version".into(),
        &body,
        err(400, -32022, &json!("nul-5")),
    ));
    // A lone surrogate escape is valid JSON text but no Unicode string.
    let body = text_request(
        "\"sur\"",
        "tools/call",
        r#""name":"echo","arguments":{"text":"\ud800"},"#,
    );
    let h = headers(&fixture::request(
        json!(0),
        "tools/call",
        params_of("tools/call"),
    ));
    cases.push(raw_client(
        "invalid UTF-8",
        "lone surrogate escape in an argument",
        h,
        body,
        Expect::ToolError(json!("sur")),
    ));
}

fn huge(cases: &mut Vec<Case>) {
    let big = "x".repeat(200 * 1024);
    let body = fixture::request(
        json!("big-1"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": big}}),
    );
    cases.push(client(
        "huge values",
        "200 KiB argument".into(),
        &body,
        Expect::Result(json!("big-1")),
    ));
    let body = fixture::request(
        json!("big-2"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "a", "extra": vec![0; 50_000]}}),
    );
    cases.push(client(
        "huge values",
        "array of 50,000 items".into(),
        &body,
        Expect::Result(json!("big-2")),
    ));
    let answers: Map<String, Value> = (0..5_000)
        .map(|i| (format!("k{i}"), json!({"action": "cancel"})))
        .collect();
    let body = fixture::request(
        json!("big-3"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "a"}, "inputResponses": answers}),
    );
    cases.push(client(
        "huge values",
        "5,000 input responses".into(),
        &body,
        Expect::Result(json!("big-3")),
    ));
    let body = fixture::request(
        json!("big-4"),
        "tools/list",
        json!({"cursor": "c".repeat(100_000)}),
    );
    cases.push(client(
        "huge values",
        "100 KB cursor (past the 8 KiB string limit)".into(),
        &body,
        err(400, -32602, &json!("big-4")),
    ));
    let body = fixture::request(
        json!("big-5"),
        "tools/call",
        json!({"name": "two_rounds", "arguments": {}, "requestState": "s".repeat(100_000)}),
    );
    cases.push(client(
        "huge values",
        "100 KB requestState".into(),
        &body,
        err(200, -32602, &json!("big-5")),
    ));
    let body = fixture::request(
        json!("big-6"),
        "tools/call",
        json!({"name": "n".repeat(20_000), "arguments": {}}),
    );
    cases.push(client(
        "huge values",
        "20 KB tool name (and Mcp-Name; past the 8 KiB string limit)".into(),
        &body,
        err(400, -32602, &json!("big-6")),
    ));
    let body = fixture::request(
        json!("big-7"),
        "resources/read",
        json!({"uri": format!("test://items/{}", "9".repeat(20_000))}),
    );
    cases.push(client(
        "huge values",
        "20 KB templated URI (past the 8 KiB string limit)".into(),
        &body,
        err(400, -32602, &json!("big-7")),
    ));
    let body = fixture::request(
        json!("big-7b"),
        "resources/read",
        json!({"uri": format!("test://items/{}", "9".repeat(4_000))}),
    );
    cases.push(client(
        "huge values",
        "4 KB templated URI".into(),
        &body,
        Expect::Result(json!("big-7b")),
    ));
    let mut body = fixture::request(json!("big-8"), "tools/call", params_of("tools/call"));
    body["params"]["_meta"]["progressToken"] = json!("p".repeat(50_000));
    cases.push(client(
        "huge values",
        "50 KB progress token".into(),
        &body,
        Expect::Result(json!("big-8")),
    ));
    let body = fixture::request(
        json!("big-9"),
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "é".repeat(50_000)}}),
    );
    cases.push(client(
        "huge values",
        "100 KB non-ASCII prompt argument".into(),
        &body,
        Expect::Result(json!("big-9")),
    ));
    let body = fixture::request(
        json!("big-10"),
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A".repeat(100_000)}}),
    );
    cases.push(client(
        "huge values",
        "100 KB completion value (past the 8 KiB string limit)".into(),
        &body,
        err(400, -32602, &json!("big-10")),
    ));
}

fn nested(depth: usize, arrays: bool) -> String {
    if arrays {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    } else {
        format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
    }
}

fn deep(cases: &mut Vec<Case>) {
    let h_call = headers(&fixture::request(
        json!(0),
        "tools/call",
        params_of("tools/call"),
    ));
    let h_list = std_headers("tools/list");
    let h_get = headers(&fixture::request(
        json!(0),
        "prompts/get",
        params_of("prompts/get"),
    ));
    for arrays in [true, false] {
        let kind = if arrays { "arrays" } else { "objects" };
        // Within the limit: the whole message is at most ~125 levels deep.
        let body = text_request(
            "\"deep-ok\"",
            "tools/call",
            &format!(
                r#""name":"echo","arguments":{{"text":"a","x":{}}},"#,
                nested(100, arrays)
            ),
        );
        cases.push(raw_client(
            "deep nesting",
            &format!("100 {kind} in arguments"),
            h_call.clone(),
            body,
            Expect::Result(json!("deep-ok")),
        ));
        for depth in [200, 5_000] {
            let body = text_request(
                "\"deep-args\"",
                "tools/call",
                &format!(
                    r#""name":"echo","arguments":{{"text":"a","x":{}}},"#,
                    nested(depth, arrays)
                ),
            );
            // Past `Limits::depth` (128), wherever it is: refused before the message is read,
            // with the id of its readable envelope.
            cases.push(raw_client(
                "deep nesting",
                &format!("{depth} {kind} in an argument the tool does not read"),
                h_call.clone(),
                body,
                err(400, -32602, &json!("deep-args")),
            ));
            let body = text_request(
                "\"deep-text\"",
                "tools/call",
                &format!(
                    r#""name":"echo","arguments":{{"text":{}}},"#,
                    nested(depth, arrays)
                ),
            );
            cases.push(raw_client(
                "deep nesting",
                &format!("{depth} {kind} in an argument the tool reads"),
                h_call.clone(),
                body,
                err(400, -32602, &json!("deep-text")),
            ));
            // Regression: the tree of a tool with mirrored arguments could not be built, and the
            // `Mcp-Param-Region` check saw no arguments (the call was served without the header).
            let body = text_request(
                "\"deep-region\"",
                "tools/call",
                &format!(
                    r#""name":"region","arguments":{{"region":"eu","x":{}}},"#,
                    nested(depth, arrays)
                ),
            );
            let h_region = headers(&fixture::request(
                json!(0),
                "tools/call",
                json!({"name": "region"}),
            ));
            cases.push(raw_client(
                "deep nesting",
                &format!("{depth} {kind} beside a mirrored argument, no Mcp-Param header"),
                h_region.clone(),
                body.clone(),
                err(400, -32602, &json!("deep-region")),
            ));
            let mut with_header = h_region;
            with_header.push(("Mcp-Param-Region".into(), "eu".into()));
            cases.push(raw_client(
                "deep nesting",
                &format!("{depth} {kind} beside a mirrored argument"),
                with_header,
                body,
                err(400, -32602, &json!("deep-region")),
            ));
            let body = text_request(
                "\"deep-prompt\"",
                "prompts/get",
                &format!(
                    r#""name":"greet","arguments":{{"name":"a","x":{}}},"#,
                    nested(depth, arrays)
                ),
            );
            cases.push(raw_client(
                "deep nesting",
                &format!("{depth} {kind} in prompt arguments"),
                h_get.clone(),
                body,
                err(400, -32602, &json!("deep-prompt")),
            ));
            let meta = serde_json::to_string(&fixture::meta()).expect("serializable");
            let meta = format!(
                "{},\"x\":{}}}",
                &meta[..meta.len() - 1],
                nested(depth, arrays)
            );
            let body = format!(r#"{{"jsonrpc":"2.0","id":"deep-meta","method":"tools/list","params":{{"_meta":{meta}}}}}"#).into_bytes();
            cases.push(raw_client(
                "deep nesting",
                &format!("{depth} {kind} in _meta"),
                h_list.clone(),
                body,
                err(400, -32602, &json!("deep-meta")),
            ));
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/list"}}"#,
                nested(depth, arrays)
            )
            .into_bytes();
            cases.push(raw_client(
                "deep nesting",
                &format!("{depth} {kind} as the id"),
                h_list.clone(),
                body,
                Expect::Error(400, -32600, None),
            ));
        }
        let body = nested(40_000, arrays).into_bytes();
        cases.push(raw_client(
            "deep nesting",
            &format!("a body of 40,000 nested {kind}"),
            h_list.clone(),
            body,
            Expect::Error(400, -32600, None),
        ));
    }
}

fn ids(cases: &mut Vec<Case>) {
    let echoed: Vec<(&str, Value)> = vec![
        ("i64::MAX", json!(i64::MAX)),
        ("i64::MIN", json!(i64::MIN)),
        ("zero", json!(0)),
        ("empty string", json!("")),
        ("non-ASCII string", json!("ид-🦀")),
        ("string with NUL and quotes", json!("a\u{0}\"b\\")),
        ("numeric string", json!("18446744073709551616")),
    ];
    for (name, id) in echoed {
        let body = fixture::request(id.clone(), "tools/call", params_of("tools/call"));
        cases.push(client(
            "absurd ids",
            name.to_owned(),
            &body,
            Expect::Result(id),
        ));
    }
    // Past the 8 KiB string limit: refused, the id answered as sent.
    let long = json!("i".repeat(100_000));
    let body = fixture::request(long.clone(), "tools/call", params_of("tools/call"));
    cases.push(client(
        "absurd ids",
        "100 KB string".to_owned(),
        &body,
        Expect::Error(400, -32602, Some(long)),
    ));
    let h = std_headers("tools/list");
    for (name, id_text) in [
        ("2^63", "9223372036854775808"),
        ("-(2^63)-1", "-9223372036854775809"),
        ("20 digits", "99999999999999999999"),
        ("400 digits", &"9".repeat(400)),
        ("1e400", "1e400"),
        ("1.0", "1.0"),
        ("1e3", "1e3"),
        ("-1.5e-300", "-1.5e-300"),
        ("object", r#"{"id":1}"#),
        ("array", "[1]"),
        ("false", "false"),
        ("null", "null"),
    ] {
        let body = text_request(id_text, "tools/list", "");
        cases.push(raw_client(
            "absurd ids",
            name,
            h.clone(),
            body,
            Expect::Error(400, -32600, None),
        ));
    }
}

fn duplicates(cases: &mut Vec<Case>) {
    let meta = serde_json::to_string(&fixture::meta()).expect("serializable");
    let h_list = std_headers("tools/list");
    let h_call = headers(&fixture::request(
        json!(0),
        "tools/call",
        params_of("tools/call"),
    ));
    let rows: Vec<(&str, String, Headers, Expect)> = vec![
        (
            "two ids",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list","params":{{"_meta":{meta}}}}}"#
            ),
            h_list.clone(),
            Expect::Error(400, -32600, None),
        ),
        (
            "two methods",
            format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","method":"tools/call","params":{{"_meta":{meta}}}}}"#
            ),
            h_list.clone(),
            Expect::Error(400, -32600, None),
        ),
        (
            "two jsonrpc",
            format!(
                r#"{{"jsonrpc":"2.0","jsonrpc":"1.0","id":4,"method":"tools/list","params":{{"_meta":{meta}}}}}"#
            ),
            h_list.clone(),
            Expect::Error(400, -32600, None),
        ),
        (
            "two params",
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{"_meta":{meta}}},"params":{{}}}}"#
            ),
            h_list.clone(),
            Expect::Error(400, -32600, None),
        ),
        (
            "two tool names",
            format!(
                r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"echo","name":"two_rounds","arguments":{{"text":"a"}},"_meta":{meta}}}}}"#
            ),
            h_call.clone(),
            err(400, -32602, &json!(6)),
        ),
        (
            "two _meta",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"_meta":{meta},"_meta":{meta}}}}}"#
            ),
            h_list.clone(),
            err(400, -32602, &json!(7)),
        ),
        (
            "two cursors",
            format!(
                r#"{{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{{"cursor":"a","cursor":"b","_meta":{meta}}}}}"#
            ),
            h_list.clone(),
            err(200, -32602, &json!(8)),
        ),
        (
            "two arguments",
            format!(
                r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"a"}},"arguments":{{}},"_meta":{meta}}}}}"#
            ),
            h_call.clone(),
            err(200, -32602, &json!(9)),
        ),
        (
            "a field twice in typed tool arguments",
            format!(
                r#"{{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"a","text":"b"}},"_meta":{meta}}}}}"#
            ),
            h_call.clone(),
            Expect::ToolError(json!(10)),
        ),
        (
            "protocolVersion twice in _meta",
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
                .to_owned(),
            h_call.clone(),
            err(400, -32602, &json!(12)),
        ),
        (
            "an unknown key twice in _meta",
            r#"{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"x.example/trace":1,"x.example/trace":2}}}"#
                .to_owned(),
            h_list.clone(),
            err(400, -32602, &json!(13)),
        ),
        (
            "an answer twice in inputResponses: the last wins",
            format!(
                r#"{{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"a"}},"inputResponses":{{"k":1,"k":{{}}}},"_meta":{meta}}}}}"#
            ),
            h_call.clone(),
            Expect::Result(json!(11)),
        ),
    ];
    for (name, body, h, expect) in rows {
        cases.push(raw_client(
            "duplicate keys",
            name,
            h,
            body.into_bytes(),
            expect,
        ));
    }
}

/// Raw request bytes: `head` lines (without the final blank line) and `body`.
fn raw(head: &[String], body: &[u8]) -> Vec<u8> {
    let mut out = head.join("\r\n").into_bytes();
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(body);
    out
}

/// The request line and headers of a standard call, as lines, with `Content-Length`.
fn head_lines(body: &Value, len: usize, extra: &[&str], drop: &[&str]) -> Vec<String> {
    let mut lines = vec![
        "POST /mcp HTTP/1.1".to_owned(),
        "Host: 127.0.0.1".to_owned(),
        "Connection: close".to_owned(),
        format!("Content-Length: {len}"),
    ];
    for (n, v) in headers(body) {
        if !drop.iter().any(|d| d.eq_ignore_ascii_case(&n)) {
            lines.push(format!("{n}: {v}"));
        }
    }
    lines.extend(extra.iter().map(|s| (*s).to_owned()));
    lines
}

fn raw_case(class: &'static str, name: &str, bytes: Vec<u8>, expect: Expect) -> Case {
    Case {
        class,
        name: name.to_owned(),
        wire: Wire::Raw {
            pieces: vec![bytes],
            pause: Duration::ZERO,
            close: false,
        },
        expect,
    }
}

fn header_injection(cases: &mut Vec<Case>) {
    let call = fixture::request(json!("h"), "tools/call", params_of("tools/call"));
    let body = serde_json::to_vec(&call).expect("serializable");
    let len = body.len();
    let id = json!("h");
    let line = |extra: &[&str], drop: &[&str]| raw(&head_lines(&call, len, extra, drop), &body);
    // CR LF in a value: the line splits, and the injected line is one more header.
    cases.push(raw_case(
        "header injection",
        "CRLF in Mcp-Name injects a second Mcp-Name",
        line(&["Mcp-Name: echo\r\nMcp-Name: two_rounds"], &["Mcp-Name"]),
        err(400, -32020, &id),
    ));
    cases.push(raw_case(
        "header injection",
        "CRLF in Mcp-Method injects a second Mcp-Method",
        line(
            &["Mcp-Method: tools/call\r\nMcp-Method: tools/list"],
            &["Mcp-Method"],
        ),
        err(400, -32020, &id),
    ));
    cases.push(raw_case(
        "header injection",
        "CRLF injects a second MCP-Protocol-Version",
        line(
            &["MCP-Protocol-Version: 2026-07-28\r\nMCP-Protocol-Version: 2025-11-25"],
            &["MCP-Protocol-Version"],
        ),
        err(400, -32020, &id),
    ));
    // CR LF CR LF ends the head: what follows is read as the body, which is no JSON.
    cases.push(raw_case(
        "header injection",
        "CRLF CRLF ends the head early",
        line(&["X-A: a\r\n\r\nGET / HTTP/1.1"], &[]),
        Expect::Error(400, -32700, None),
    ));
    for (name, header) in [
        ("bare CR in Mcp-Name", "Mcp-Name: echo\rX-Injected: 1"),
        ("NUL in Mcp-Name", "Mcp-Name: ec\0ho"),
        ("obs-fold continuation", "Mcp-Name: echo\r\n two_rounds"),
        ("space before the colon", "Mcp-Name : echo"),
        ("no colon", "Mcp-Name echo"),
    ] {
        cases.push(raw_case(
            "header injection",
            name,
            line(&[header], &["Mcp-Name"]),
            Expect::Http(400),
        ));
    }
    // Non-ASCII bytes in header values.
    for (name, header, drop, expect) in [
        (
            "UTF-8 in Mcp-Name",
            "Mcp-Name: échο",
            "Mcp-Name",
            err(400, -32020, &id),
        ),
        (
            "Latin-1 byte in Mcp-Method",
            "Mcp-Method: tools/call\u{e9}",
            "Mcp-Method",
            err(400, -32020, &id),
        ),
        (
            "UTF-8 in MCP-Protocol-Version",
            "MCP-Protocol-Version: 2026-07-28é",
            "MCP-Protocol-Version",
            err(400, -32020, &id),
        ),
        (
            "UTF-8 in Host",
            "Host: lоcalhost",
            "Host",
            Expect::Http(403),
        ),
        (
            "UTF-8 in Origin",
            "Origin: http://lоcalhost",
            "Origin",
            Expect::Http(403),
        ),
        (
            "UTF-8 in Content-Type",
            "Content-Type: application/jsoné",
            "Content-Type",
            Expect::Error(415, -32600, None),
        ),
        (
            "UTF-8 in Accept",
            "Accept: application/jsoné",
            "Accept",
            Expect::Error(406, -32600, None),
        ),
    ] {
        let mut lines = head_lines(&call, len, &[], &[drop]);
        if drop == "Host" {
            lines.retain(|l| !l.starts_with("Host:"));
        }
        lines.push(header.to_owned());
        let mut bytes = raw(&lines, &body);
        if name.starts_with("Latin-1") {
            // The one byte 0xE9 (obs-text), not its UTF-8 form.
            let text = "tools/call\u{e9}".as_bytes().to_vec();
            let at = bytes
                .windows(text.len())
                .position(|w| w == text)
                .expect("the value");
            bytes.splice(at + 10..at + 12, [0xe9]);
        }
        cases.push(raw_case("header injection", name, bytes, expect));
    }
    // Over-long header values.
    cases.push(raw_case(
        "header injection",
        "64 KB Mcp-Name",
        line(
            &[&format!("Mcp-Name: {}", "e".repeat(64 * 1024))],
            &["Mcp-Name"],
        ),
        err(400, -32020, &id),
    ));
    cases.push(raw_case(
        "header injection",
        "1 MB header value",
        line(&[&format!("X-Big: {}", "b".repeat(1024 * 1024))], &[]),
        Expect::Http(431),
    ));
    let many: Vec<String> = (0..200).map(|i| format!("X-H{i}: v")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    cases.push(raw_case(
        "header injection",
        "200 headers",
        line(&many, &[]),
        Expect::Http(431),
    ));
    // Duplicate MCP headers, with equal and with different values.
    for (name, extra) in [
        (
            "MCP-Protocol-Version twice, equal",
            "MCP-Protocol-Version: 2026-07-28",
        ),
        ("Mcp-Method twice, equal", "Mcp-Method: tools/call"),
        ("Mcp-Name twice, equal", "Mcp-Name: echo"),
        ("Mcp-Name twice, different", "Mcp-Name: two_rounds"),
        (
            "Mcp-Name twice, different case of the name",
            "mcp-name: echo",
        ),
    ] {
        cases.push(raw_case(
            "header injection",
            name,
            line(&[extra], &[]),
            err(400, -32020, &id),
        ));
    }
    let region = fixture::request(
        json!("r"),
        "tools/call",
        json!({"name": "region", "arguments": {"region": "eu"}}),
    );
    let rbody = serde_json::to_vec(&region).expect("serializable");
    for (name, extra, expect) in [
        (
            "Mcp-Param-Region twice, different",
            "Mcp-Param-Region: us",
            err(400, -32020, &json!("r")),
        ),
        (
            "Mcp-Param-Region twice, equal",
            "Mcp-Param-Region: eu",
            err(400, -32020, &json!("r")),
        ),
        (
            "Mcp-Param-Count without its argument",
            "Mcp-Param-Count: 5",
            Expect::Result(json!("r")),
        ),
    ] {
        cases.push(raw_case(
            "header injection",
            name,
            raw(&head_lines(&region, rbody.len(), &[extra], &[]), &rbody),
            expect,
        ));
    }
    // A sentinel that decodes to CR LF: compared, never interpreted.
    let injected = format!(
        "Mcp-Name: =?base64?{}?=",
        common::base64(b"echo\r\nX-Injected: 1")
    );
    cases.push(raw_case(
        "header injection",
        "sentinel decoding to CRLF",
        line(&[&injected], &["Mcp-Name"]),
        err(400, -32020, &id),
    ));
}

fn bodies(cases: &mut Vec<Case>) {
    let call = fixture::request(json!("b"), "tools/call", params_of("tools/call"));
    let body = serde_json::to_vec(&call).expect("serializable");
    let len = body.len();
    // Over the limit, read whole by the client.
    let big = fixture::request(
        json!("big"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x".repeat(LIMIT)}}),
    );
    cases.push(client(
        "oversized bodies",
        "body over the limit".into(),
        &big,
        Expect::Error(413, -32600, None),
    ));
    // Declared over the limit, nothing sent: refused before reading.
    cases.push(raw_case(
        "oversized bodies",
        "Content-Length of 10 GB, no body",
        raw(&head_lines(&call, 10_000_000_000, &[], &[]), b""),
        Expect::Error(413, -32600, None),
    ));
    // Chunked over the limit.
    let chunk = vec![b' '; 64 * 1024];
    let mut chunked = raw(
        &head_lines(&call, 0, &["Transfer-Encoding: chunked"], &[])
            .into_iter()
            .filter(|l| !l.starts_with("Content-Length"))
            .collect::<Vec<_>>(),
        b"",
    );
    for _ in 0..5 {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(&chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    cases.push(raw_case(
        "oversized bodies",
        "chunked body over the limit",
        chunked,
        Expect::Error(413, -32600, None),
    ));
    // Declared larger than what is sent, then the client closes its side.
    cases.push(Case {
        class: "oversized bodies",
        name: "Content-Length larger than the body".into(),
        wire: Wire::Raw {
            pieces: vec![raw(&head_lines(&call, len + 100, &[], &[]), &body)],
            pause: Duration::ZERO,
            close: true,
        },
        expect: Expect::Error(400, -32600, None),
    });
    // Declared smaller: the body is cut, and is no JSON.
    cases.push(raw_case(
        "oversized bodies",
        "Content-Length smaller than the body",
        raw(&head_lines(&call, len - 10, &[], &[]), &body),
        Expect::Error(400, -32700, None),
    ));
    for (name, value) in [
        ("not a number", "abc"),
        ("negative", "-1"),
        ("two values", "10, 20"),
    ] {
        let mut lines = head_lines(&call, len, &[], &[]);
        lines.retain(|l| !l.starts_with("Content-Length"));
        lines.push(format!("Content-Length: {value}"));
        cases.push(raw_case(
            "oversized bodies",
            &format!("Content-Length {name}"),
            raw(&lines, &body),
            Expect::Http(400),
        ));
    }
    // Slow bodies: in pieces, with pauses; read whole and served.
    let mut head = raw(&head_lines(&call, len, &[], &[]), b"");
    let pieces: Vec<Vec<u8>> = {
        let mut p = vec![std::mem::take(&mut head)];
        p.extend(body.chunks(len.div_ceil(5)).map(<[u8]>::to_vec));
        p
    };
    cases.push(Case {
        class: "slow bodies",
        name: "body in 5 pieces, 150 ms apart".into(),
        wire: Wire::Raw {
            pieces,
            pause: Duration::from_millis(150),
            close: false,
        },
        expect: Expect::Result(json!("b")),
    });
    let all = raw(&head_lines(&call, len, &[], &[]), &body);
    let pieces: Vec<Vec<u8>> = all
        .chunks(all.len().div_ceil(8))
        .map(<[u8]>::to_vec)
        .collect();
    cases.push(Case {
        class: "slow bodies",
        name: "head and body in 8 pieces, 100 ms apart".into(),
        wire: Wire::Raw {
            pieces,
            pause: Duration::from_millis(100),
            close: false,
        },
        expect: Expect::Result(json!("b")),
    });
    let mut lines = head_lines(&call, 0, &["Transfer-Encoding: chunked"], &[]);
    lines.retain(|l| !l.starts_with("Content-Length"));
    let mut pieces = vec![raw(&lines, b"")];
    for piece in body.chunks(len.div_ceil(4)) {
        let mut frame = format!("{:x}\r\n", piece.len()).into_bytes();
        frame.extend_from_slice(piece);
        frame.extend_from_slice(b"\r\n");
        pieces.push(frame);
    }
    pieces.push(b"0\r\n\r\n".to_vec());
    cases.push(Case {
        class: "slow bodies",
        name: "chunked body in 4 chunks, 150 ms apart".into(),
        wire: Wire::Raw {
            pieces,
            pause: Duration::from_millis(150),
            close: false,
        },
        expect: Expect::Result(json!("b")),
    });
}

fn all_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    wrong_types(&mut cases);
    bad_json(&mut cases);
    utf8_and_nul(&mut cases);
    huge(&mut cases);
    deep(&mut cases);
    ids(&mut cases);
    duplicates(&mut cases);
    header_injection(&mut cases);
    bodies(&mut cases);
    cases
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

/// Panics outside this file's own assertions (in the runtime, axum or hyper).
static SERVER_PANICS: AtomicUsize = AtomicUsize::new(0);

fn count_server_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_tests = info
            .location()
            .is_some_and(|l| l.file().starts_with("tests/"));
        if !in_tests {
            SERVER_PANICS.fetch_add(1, Ordering::SeqCst);
        }
        previous(info);
    }));
}

/// Writes `pieces` on a new connection and reads the response until the server closes it.
async fn send_raw(
    addr: std::net::SocketAddr,
    pieces: &[Vec<u8>],
    pause: Duration,
    close: bool,
) -> HttpResponse {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 && !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        // The server may answer (and close) before reading everything: a failed write is fine.
        if stream.write_all(piece).await.is_err() {
            break;
        }
    }
    if close {
        let _ = stream.shutdown().await;
    }
    let mut out = Vec::new();
    let _ = within("the raw response", stream.read_to_end(&mut out)).await;
    parse_response(&out)
}

/// Parses a raw HTTP/1.1 response (fixed length or chunked body).
fn parse_response(bytes: &[u8]) -> HttpResponse {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(bytes)));
    let head = std::str::from_utf8(&bytes[..end]).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("a status line");
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line}"));
    let mut headers = http::HeaderMap::new();
    for line in lines {
        if let Some((n, v)) = line.split_once(':') {
            headers.append(
                http::HeaderName::from_bytes(n.trim().as_bytes()).expect("a header name"),
                http::HeaderValue::from_str(v.trim()).expect("a header value"),
            );
        }
    }
    let mut body = bytes[end + 4..].to_vec();
    let chunked = headers
        .get("transfer-encoding")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"chunked"));
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        while let Some(nl) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..nl]).unwrap_or("0"), 16)
                .unwrap_or(0);
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[nl + 2..nl + 2 + size]);
            rest = &rest[nl + 2 + size + 2..];
        }
        body = out;
    }
    HttpResponse {
        status: http::StatusCode::from_u16(status).expect("a status"),
        headers,
        body: body.into(),
    }
}

/// Judges one answer; `Err` says how it differs.
fn judge(expect: &Expect, resp: &HttpResponse) -> Result<(), String> {
    let status = resp.status.as_u16();
    if status >= 500 {
        return Err(format!("a {status}"));
    }
    let json = || -> Result<Value, String> {
        if resp.content_type() != "application/json" {
            return Err(format!("content type `{}`", resp.content_type()));
        }
        serde_json::from_slice(&resp.body).map_err(|e| format!("not JSON: {e}"))
    };
    match expect {
        Expect::Http(want) => {
            if status != *want {
                return Err(format!("status {status}, expected {want}"));
            }
            if resp.content_type() == "application/json" {
                return Err("a JSON body on an HTTP-layer refusal".into());
            }
        }
        Expect::Error(want, code, id) => {
            let body = json()?;
            common::assert_response_valid("", &body);
            if status != *want || body["error"]["code"] != *code {
                return Err(format!(
                    "status {status} code {}, expected {want} {code}",
                    body["error"]["code"]
                ));
            }
            if body["error"]["message"]
                .as_str()
                .is_none_or(|m| m.len() <= 10)
            {
                return Err("no clear message".into());
            }
            match id {
                Some(id) if body.get("id") != Some(id) => {
                    return Err(format!("id {:?}, expected {id}", body.get("id")));
                }
                None if body.get("id").is_some() => return Err("an id, expected none".into()),
                _ => {}
            }
        }
        Expect::Result(id) | Expect::ToolError(id) => {
            if status != 200 {
                return Err(format!("status {status}, expected 200"));
            }
            let messages = resp.messages();
            let body = messages.last().ok_or("no message")?.clone();
            if body.get("result").is_none() || body["id"] != *id {
                return Err(format!("expected a result for id {id}"));
            }
            if body["result"]["resultType"] != "complete" {
                return Err("not a complete result".into());
            }
            let is_error = body["result"]["isError"] == true;
            if is_error != matches!(expect, Expect::ToolError(_)) {
                return Err(format!("isError is {is_error}"));
            }
        }
    }
    Ok(())
}

/// A normal request, right after a hostile one.
async fn still_serves(url: &str, n: usize) -> Result<(), String> {
    let id = json!(format!("after-{n}"));
    let body = fixture::request(
        id.clone(),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "still here"}}),
    );
    let resp = post(
        url,
        &headers(&body),
        serde_json::to_vec(&body).expect("serializable"),
    )
    .await;
    let answer = resp.json();
    if resp.status != 200
        || answer["id"] != id
        || answer["result"]["content"][0]["text"] != "still here"
    {
        return Err(format!(
            "the next normal request failed: {} {answer}",
            resp.status
        ));
    }
    Ok(())
}

fn clip(s: &str) -> String {
    if s.len() <= 300 {
        return s.to_owned();
    }
    let mut end = 300;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &s[..end], s.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_request_gets_its_documented_answer() {
    count_server_panics();
    let http = spawn_http_with(fixture::server(), HttpOptions::default().body_limit(LIMIT)).await;
    let url = http.url();
    let cases = all_cases();
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut per_class: Vec<(&str, usize)> = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        match per_class.iter_mut().find(|(c, _)| *c == case.class) {
            Some((_, k)) => *k += 1,
            None => per_class.push((case.class, 1)),
        }
        let resp = match &case.wire {
            Wire::Client(h, body) => post(&url, h, body.clone()).await,
            Wire::Raw {
                pieces,
                pause,
                close,
            } => send_raw(http.addr, pieces, *pause, *close).await,
        };
        if let Err(why) = judge(&case.expect, &resp) {
            failures.push(format!(
                "[{}] {}: {why}\n      body: {}",
                case.class,
                case.name,
                clip(&String::from_utf8_lossy(&resp.body))
            ));
        }
        if let Err(why) = still_serves(&url, n).await {
            failures.push(format!("[{}] {}: {why}", case.class, case.name));
        }
    }
    println!(
        "{} hostile requests in {:.1} s: {per_class:?}",
        cases.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} hostile requests failed:\n  {}",
        failures.len(),
        cases.len(),
        failures.join("\n  ")
    );
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    assert_eq!(
        SERVER_PANICS.load(Ordering::SeqCst),
        0,
        "the server panicked"
    );
}

// ---------------------------------------------------------------------------------------------
// Named cases: duplicate `_meta` keys, and the `Host`/`Origin` parsing of the DNS-rebinding
// guard, each over a real socket
// ---------------------------------------------------------------------------------------------

/// The error of a raw body sent with `headers`.
async fn error_of(url: &str, headers: &Headers, body: String) -> (u16, Value) {
    let resp = post(url, headers, body).await;
    let answer = resp.json();
    (resp.status.as_u16(), answer["error"].clone())
}

/// A `_meta` key given twice, known or not, is refused with `-32602` naming it (the last value
/// winning would let two readers of one request disagree).
#[tokio::test]
async fn a_key_twice_in_meta_is_invalid_params_naming_the_key() {
    let http = spawn_http_with(fixture::server(), HttpOptions::default()).await;
    let url = http.url();
    let h_call = headers(&fixture::request(
        json!(0),
        "tools/call",
        params_of("tools/call"),
    ));
    let version = "io.modelcontextprotocol/protocolVersion";
    let caps = "io.modelcontextprotocol/clientCapabilities";
    for (what, meta, key) in [
        (
            "protocolVersion twice",
            format!(r#"{{"{version}":"2026-07-28","{caps}":{{}},"{version}":"2026-07-28"}}"#),
            version,
        ),
        (
            "protocolVersion twice, different",
            format!(r#"{{"{version}":"2025-11-25","{caps}":{{}},"{version}":"2026-07-28"}}"#),
            version,
        ),
        (
            "clientCapabilities twice",
            format!(
                r#"{{"{version}":"2026-07-28","{caps}":{{}},"{caps}":{{"elicitation":{{}}}}}}"#
            ),
            caps,
        ),
        (
            "progressToken twice",
            format!(
                r#"{{"{version}":"2026-07-28","{caps}":{{}},"progressToken":1,"progressToken":2}}"#
            ),
            "progressToken",
        ),
        (
            "an unknown key twice",
            format!(
                r#"{{"{version}":"2026-07-28","x.example/tenant":"a","{caps}":{{}},"x.example/tenant":"b"}}"#
            ),
            "x.example/tenant",
        ),
        (
            "an unknown key twice, once escaped",
            format!(
                r#"{{"{version}":"2026-07-28","{caps}":{{}},"x.example/tenant":"a","x.example\/tenant":"b"}}"#
            ),
            "x.example/tenant",
        ),
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"a"}},"_meta":{meta}}}}}"#
        );
        let (status, error) = error_of(&url, &h_call, body).await;
        assert_eq!(
            (status, &error["code"]),
            (400, &json!(-32602)),
            "{what}: {error}"
        );
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!("duplicate field `{key}`")),
            "{what}: {message}"
        );
    }
    // The same keys once each are served.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":"once","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"a"}},"_meta":{{"{version}":"2026-07-28","{caps}":{{}},"x.example/tenant":"a"}}}}}}"#
    );
    let resp = post(&url, &h_call, body).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json()["result"]["content"][0]["text"], "a");
}

/// A raw `POST /mcp` of a standard `tools/call` with `host` lines (none when empty) and
/// `extra` lines, and the status of its answer.
async fn status_with(addr: std::net::SocketAddr, hosts: &[&str], extra: &[&str]) -> (u16, String) {
    let call = fixture::request(json!("g"), "tools/call", params_of("tools/call"));
    let body = serde_json::to_vec(&call).expect("serializable");
    let mut lines = head_lines(&call, body.len(), extra, &[]);
    lines.retain(|l| !l.starts_with("Host:"));
    for (i, host) in hosts.iter().enumerate() {
        lines.insert(1 + i, format!("Host:{host}"));
    }
    let resp = send_raw(addr, &[raw(&lines, &body)], Duration::ZERO, false).await;
    (
        resp.status.as_u16(),
        String::from_utf8_lossy(&resp.body).into_owned(),
    )
}

/// `Host: [::1]evil.com` is no loopback host (an IPv6 literal is followed by `:port` or
/// nothing), and neither is `Origin: http://[::1].evil.com`.
#[tokio::test]
async fn an_ipv6_loopback_literal_with_text_after_it_is_refused() {
    let http = spawn_http_with(fixture::server(), HttpOptions::default()).await;
    for host in [" [::1]evil.com", " [::1].evil.com", " [::1]:80evil.com"] {
        let (status, body) = status_with(http.addr, &[host], &[]).await;
        assert_eq!(status, 403, "Host:{host}: {body}");
        assert!(body.contains("DNS rebinding"), "{body}");
    }
    for origin in [
        "Origin: http://[::1].evil.com",
        "Origin: http://[::1]evil.com",
        "Origin: http://[::1]:80.evil.com",
    ] {
        let (status, body) = status_with(http.addr, &[" 127.0.0.1"], &[origin]).await;
        assert_eq!(status, 403, "{origin}: {body}");
    }
    // The literal itself, with or without a port, is loopback.
    for host in [" [::1]", " [::1]:8000"] {
        assert_eq!(
            status_with(http.addr, &[host], &[]).await.0,
            200,
            "Host:{host}"
        );
    }
    let ok = status_with(http.addr, &[" 127.0.0.1"], &["Origin: http://[::1]:3000"]).await;
    assert_eq!(ok.0, 200);
}

/// RFC 9112 §3.2: a request with two `Host` headers (even equal ones, and whichever comes
/// first) or an empty one is answered 400.
#[tokio::test]
async fn two_host_headers_or_an_empty_one_are_a_bad_request() {
    let http = spawn_http_with(fixture::server(), HttpOptions::default()).await;
    for (what, hosts, expect) in [
        (
            "loopback, then another",
            &[" 127.0.0.1", " evil.example.com"][..],
            "more than one Host",
        ),
        (
            "another, then loopback",
            &[" evil.example.com", " localhost"][..],
            "more than one Host",
        ),
        (
            "loopback twice",
            &[" localhost", " localhost"][..],
            "more than one Host",
        ),
        ("empty", &[""][..], "empty"),
        ("blank", &["   "][..], "empty"),
    ] {
        let (status, body) = status_with(http.addr, hosts, &[]).await;
        assert_eq!(status, 400, "{what}: {body}");
        assert!(body.contains(expect), "{what}: {body}");
    }
    assert_eq!(status_with(http.addr, &[" localhost"], &[]).await.0, 200);
}
