//! The server the hostile-input suite (`tests/hostile.rs`) and the fuzzers
//! (`tests/suite/fuzz_pipeline.rs`, `fuzz/`) attack, the seed requests they start from, and the
//! oracle that judges one message's answer.
//!
//! The server exercises every stage a message can reach: tools (plain, with a mirrored
//! `x-mcp-header` argument, multi-round), fixed and templated resources, a prompt with a
//! required argument and completions, `subscriptions/listen`, logging, skills (the Skills
//! extension, embedded from `examples/everything/skills`), and pages of two items (so cursors
//! matter). Its handlers never fail on their own: any `-32603` is a runtime bug.
//!
//! Included with `#[path]` by the fuzz crate, so it names only what that crate depends on
//! (`mcp-runtime`, `serde`, `serde_json`, `schemars`, `tokio`).
#![allow(dead_code)]

use mcp_runtime::dispatch::Outgoing;
use mcp_runtime::{
    Ask, Completer, Elicitation, KeyRing, McpError, NoArguments, Prompt, Resource,
    ResourceTemplate, Rounds, Server, Step, TaskSupport, Tool,
};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::time::Duration;

/// The protocol revision the seeds speak.
pub const VERSION: &str = "2026-07-28";

/// The JSON-RPC error codes this server may answer with when driven in-process (no transport,
/// so no `-32020`), and never `-32603`: the fixture's handlers do not fail.
pub const IN_PROCESS_CODES: [i64; 6] = [-32700, -32600, -32601, -32602, -32021, -32022];

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// The text to echo.
    pub text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct RegionArgs {
    /// Mirrored into `Mcp-Param-Region`.
    #[schemars(extend("x-mcp-header" = "Region"))]
    pub region: String,
    /// Mirrored into `Mcp-Param-Count` when present.
    #[schemars(extend("x-mcp-header" = "Count"))]
    pub count: Option<i64>,
}

/// Two rounds: asks for a word, then answers with it.
async fn two_rounds(rounds: Rounds) -> Result<Step<String>, McpError> {
    match rounds.state::<u8>()? {
        None => rounds.ask(Ask::new().elicit::<String>("word", "A word?"), &1u8),
        Some(_) => Ok(Step::Done(
            match rounds.answer::<Elicitation<String>>("word")? {
                Some(Elicitation::Accepted(w)) => format!("the word is {w}"),
                _ => "no word".to_owned(),
            },
        )),
    }
}

/// The fixture server (deterministic: a fixed key seals `requestState`).
pub fn server() -> Server {
    Server::builder()
        .name("hostile-fixture")
        .version("0.0.1")
        .page_size(2)
        .logging(true)
        .list_changed(true)
        .resource_subscriptions(true)
        .state_keys(KeyRing::new(&[[7u8; 32]]).expect("a valid key"))
        .tool(
            Tool::new("echo")
                .description("Echoes its text.")
                .handler(|a: EchoArgs, _cx| async move { a.text }),
        )
        .tool(
            Tool::new("region")
                .description("Names the region it was routed to.")
                .handler(|a: RegionArgs, _cx| async move {
                    format!("region={} count={:?}", a.region, a.count)
                }),
        )
        .tool(
            Tool::new("two_rounds")
                .description("Asks for a word, then echoes it.")
                .raw_handler(|call| async move {
                    let rounds = <Rounds as mcp_runtime::FromContext>::from_context(&call.context)?;
                    mcp_runtime::handler::IntoToolResult::into_tool_result(
                        two_rounds(rounds).await?,
                    )
                }),
        )
        .tool(
            Tool::new("later")
                .description("Answers as a task.")
                .task(TaskSupport::Optional)
                .handler(|_: NoArguments, _cx| async { "later" }),
        )
        .resource(
            Resource::new("test://static", "static")
                .mime_type("text/plain")
                .handler(|_read| async { "static text".to_owned() }),
        )
        .resource(
            Resource::new("test://other", "other")
                .mime_type("text/plain")
                .handler(|_read| async { "other text".to_owned() }),
        )
        .resource(
            Resource::new("test://third", "third")
                .mime_type("text/plain")
                .handler(|_read| async { "third text".to_owned() }),
        )
        .resource_template(
            ResourceTemplate::new("test://items/{id}", "item")
                .mime_type("text/plain")
                .complete("id", Completer::from_values(["1", "2", "10"]))
                .handler(|read| async move { format!("item {}", read.variables["id"]) }),
        )
        .prompt(
            Prompt::new("greet")
                .description("A greeting.")
                .argument("name", Some("Who to greet"), true)
                .complete("name", Completer::from_values(["Ada", "Alan", "Grace"]))
                .handler(|get| async move { format!("Say hello to {}.", get.arguments["name"]) }),
        )
        .prompt(
            Prompt::new("plain")
                .description("No arguments.")
                .handler(|_get| async move { "Plain.".to_owned() }),
        )
        .skills(mcp_runtime::skills!("../../examples/everything/skills"))
        .build()
        .expect("the fixture server is valid")
}

/// The standard request `_meta`.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    })
}

/// `{jsonrpc, id, method, params}` with the standard `_meta` added to `params` (an object).
pub fn request(id: Value, method: &str, params: Value) -> Value {
    let mut params = match params {
        Value::Object(m) => m,
        other => panic!("params must be an object, not {other}"),
    };
    params.entry("_meta").or_insert_with(meta);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// One well-formed request of every method (and of every primitive kind), as values.
pub fn seed_requests() -> Vec<Value> {
    let args = |name: &str, a: Value| json!({"name": name, "arguments": a});
    vec![
        request(json!(1), "server/discover", json!({})),
        request(json!(2), "tools/list", json!({})),
        request(json!("r-3"), "resources/list", json!({})),
        request(json!(4), "resources/templates/list", json!({})),
        request(json!(5), "prompts/list", json!({})),
        request(json!(6), "tools/call", args("echo", json!({"text": "hi"}))),
        request(
            json!(7),
            "tools/call",
            args("region", json!({"region": "eu", "count": 3})),
        ),
        request(json!(8), "tools/call", args("two_rounds", json!({}))),
        request(json!(9), "resources/read", json!({"uri": "test://static"})),
        request(
            json!(10),
            "resources/read",
            json!({"uri": "test://items/42"}),
        ),
        request(
            json!(11),
            "prompts/get",
            args("greet", json!({"name": "Ada"})),
        ),
        request(json!(12), "prompts/get", json!({"name": "plain"})),
        request(
            json!(13),
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}),
        ),
        request(
            json!(14),
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "test://items/{id}"}, "argument": {"name": "id", "value": "1"}, "context": {"arguments": {}}}),
        ),
        request(
            json!(15),
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["test://static"]}}),
        ),
        {
            let mut m = meta();
            m["progressToken"] = json!("p-1");
            m["io.modelcontextprotocol/logLevel"] = json!("debug");
            m["traceparent"] = json!("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
            request(
                json!(16),
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "x"}, "_meta": m}),
            )
        },
        request(json!(17), "tools/list", json!({"cursor": "not-a-cursor"})),
        request(json!(19), "skills/list", json!({})),
        request(
            json!(20),
            "skills/get",
            json!({"uri": "skill://pdf-processing/SKILL.md"}),
        ),
        request(
            json!(21),
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing/templates"}),
        ),
        request(
            json!(22),
            "resources/read",
            json!({"uri": "skill://pdf-processing/assets/logo.png"}),
        ),
        request(json!(18), "no/such/method", json!({})),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    ]
}

/// The seeds as bytes.
pub fn seeds() -> Vec<Vec<u8>> {
    seed_requests()
        .iter()
        .map(|v| serde_json::to_vec(v).expect("serializable"))
        .collect()
}

/// What one message came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A notification: no answer.
    Notification,
    /// A `subscriptions/listen` stream that was acknowledged (then ended by dropping it).
    Listening,
    /// A result (`complete` or `input_required`).
    Result(Value),
    /// A JSON-RPC error with this code.
    Error(i64),
}

/// Bound of one in-process call: the fixture's handlers answer at once.
const CALL_LIMIT: Duration = Duration::from_secs(2);

/// Runs `body` through `Server::handle_message` and judges the answer: no panic, exactly one
/// response after any notifications and nothing after it, a valid JSON-RPC response whose `id`
/// is the request's (or absent when the request's could not be read), an error code in
/// [`IN_PROCESS_CODES`], and the parse/request errors exactly when the body deserves them.
pub async fn check(server: &Server, body: &[u8]) -> Result<Outcome, String> {
    let read = Reading::of(body);
    let call = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        server.handle_message(body, None)
    })) {
        Ok(c) => c,
        Err(_) => return Err("handle_message panicked".into()),
    };
    let Some(mut call) = call else {
        return match &read {
            Reading::Object(o) if o.is_notification() => Ok(Outcome::Notification),
            _ => Err("answered as a notification, but the body is not one".into()),
        };
    };
    let mut response = None;
    let mut listening = false;
    loop {
        let next = tokio::time::timeout(CALL_LIMIT, call.next_message())
            .await
            .map_err(|_| format!("no message within {CALL_LIMIT:?}"))?;
        match next {
            None => break,
            Some(Outgoing::Notification(bytes)) => {
                if response.is_some() {
                    return Err("a notification after the response".into());
                }
                let n: Value = serde_json::from_slice(&bytes)
                    .map_err(|e| format!("a notification is not JSON: {e}"))?;
                if n.get("id").is_some() || !n["method"].is_string() || n["jsonrpc"] != "2.0" {
                    return Err(format!("not a notification: {n}"));
                }
                if n["method"] == "notifications/subscriptions/acknowledged" {
                    // A listen stream answers when it ends: end it by dropping the call.
                    listening = true;
                    break;
                }
            }
            Some(Outgoing::Response(r)) => {
                if response.is_some() {
                    return Err("two responses".into());
                }
                response = Some(r);
            }
        }
    }
    if listening {
        return Ok(Outcome::Listening);
    }
    let response = response.ok_or("no response")?;
    let answer: Value = serde_json::from_slice(&response.body).map_err(|e| {
        format!(
            "the response is not JSON ({e}): {}",
            String::from_utf8_lossy(&response.body)
        )
    })?;
    judge(&read, &answer, response.error_code())
}

/// Checks one response against the request as read.
fn judge(read: &Reading, answer: &Value, kind_code: Option<i32>) -> Result<Outcome, String> {
    let fail = |why: &str| Err(format!("{why}: {answer}"));
    let Some(obj) = answer.as_object() else {
        return fail("the response is not an object");
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return fail("`jsonrpc` is not \"2.0\"");
    }
    if obj.contains_key("method") {
        return fail("a response with `method`");
    }
    let code = match (obj.get("result"), obj.get("error")) {
        (Some(_), Some(_)) | (None, None) => return fail("not exactly one of result and error"),
        (Some(result), None) => {
            if !matches!(
                result["resultType"].as_str(),
                Some("complete" | "input_required")
            ) {
                return fail("a result without a known resultType");
            }
            None
        }
        (None, Some(error)) => {
            let Some(code) = error["code"].as_i64() else {
                return fail("an error without an integer code");
            };
            if error["message"].as_str().is_none_or(str::is_empty) {
                return fail("an error without a message");
            }
            if !IN_PROCESS_CODES.contains(&code) {
                return fail("an error code outside the documented set");
            }
            Some(code)
        }
    };
    if kind_code.map(i64::from) != code {
        return fail("the response's kind disagrees with its body");
    }
    // The id: echoed when the request's could be read, absent only for -32700/-32600.
    match (obj.get("id"), read.id()) {
        (Some(got), Some(sent)) if *got == sent => {}
        (Some(got), _) => return fail(&format!("id {got} is not the request's")),
        (None, Some(sent)) => {
            return fail(&format!("no id, but the request's ({sent}) is readable"));
        }
        (None, None) if matches!(code, Some(-32700 | -32600)) => {}
        (None, None) => return fail("no id on an error other than -32700/-32600"),
    }
    // Parse errors exactly for bodies that are not JSON text.
    let not_json = matches!(read, Reading::NotJson);
    if not_json != (code == Some(-32700)) {
        return fail(if not_json {
            "the body is not JSON, but the error is not -32700"
        } else {
            "-32700 for a body that is JSON"
        });
    }
    // A well-formed envelope is never an invalid request.
    if let Reading::Object(o) = read
        && o.envelope_ok()
        && code == Some(-32600)
    {
        return fail("-32600 for a well-formed request envelope");
    }
    Ok(match code {
        Some(c) => Outcome::Error(c),
        None => Outcome::Result(obj["result"].clone()),
    })
}

/// The body as the oracle reads it, independently of the runtime's readers.
#[derive(Debug)]
enum Reading {
    /// Not UTF-8, or not JSON text.
    NotJson,
    /// JSON, but not an object.
    Other,
    /// A JSON object's top-level members, in order (duplicates kept).
    Object(Members),
}

#[derive(Debug)]
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
                    out.push((k, v));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl Reading {
    fn of(body: &[u8]) -> Reading {
        // JSON text is UTF-8 throughout (serde_json skips ignored strings unchecked).
        let Ok(text) = std::str::from_utf8(body) else {
            return Reading::NotJson;
        };
        if serde_json::from_str::<IgnoredAny>(text).is_err() {
            return Reading::NotJson;
        }
        match serde_json::from_str::<Members>(text) {
            Ok(m) => Reading::Object(m),
            Err(_) => Reading::Other,
        }
    }

    /// The request's id when the runtime must echo it.
    fn id(&self) -> Option<Value> {
        match self {
            Reading::Object(m) => m.id(),
            _ => None,
        }
    }
}

const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

impl Members {
    fn get(&self, key: &str) -> Option<&RawValue> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| &**v)
    }

    fn has_duplicate_envelope_member(&self) -> bool {
        ENVELOPE
            .iter()
            .any(|m| self.0.iter().filter(|(k, _)| k == m).count() > 1)
    }

    fn string(&self, key: &str) -> Option<String> {
        serde_json::from_str::<String>(self.get(key)?.get()).ok()
    }

    /// `jsonrpc` "2.0", a string `method`, no `result`/`error` (a `null` one counts as absent, as
    /// serde reads it), no duplicate member.
    fn envelope_ok(&self) -> bool {
        !self.has_duplicate_envelope_member()
            && self.string("jsonrpc").as_deref() == Some("2.0")
            && self.string("method").is_some()
            && self.get("result").is_none_or(|r| r.get() == "null")
            && self.get("error").is_none_or(|e| e.get() == "null")
            && (self.get("id").is_none() || self.id().is_some())
    }

    /// The id when the runtime must echo it: no duplicate JSON-RPC member, and `id` a string
    /// or an integer within `i64` written without fraction or exponent.
    fn id(&self) -> Option<Value> {
        if self.has_duplicate_envelope_member() {
            return None;
        }
        let raw = self.get("id")?;
        let v: Value = serde_json::from_str(raw.get()).ok()?;
        match &v {
            Value::String(_) => Some(v),
            Value::Number(n) if n.is_i64() && !raw.get().contains(['.', 'e', 'E']) => Some(v),
            _ => None,
        }
    }

    fn is_notification(&self) -> bool {
        self.envelope_ok() && self.get("id").is_none()
    }
}
