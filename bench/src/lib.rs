//! Shared pieces of the benchmark: the request bodies and headers every case sends, the raw
//! axum baseline's answer, and the extra tools (filler tools for `tools/list`, a 20-field tool
//! for argument validation) that the framework servers register.
//!
//! The binaries are `mcp-bench` (the driver), `mcp-bench-baseline` (raw axum + serde_json),
//! `mcp-bench-ours` (the study server on this framework) and `mcp-bench-profile` (an in-process
//! loop for `valgrind --tool=callgrind`). `bench/run.sh` builds and runs everything.

mod auth;
pub mod client;
pub mod cpu;

pub use auth::*;

use mcp_runtime::{Change, ChangeBus};
use mcp_runtime::{KeyRing, PrimitiveKind, Tool, handler::ToolOutcome, protocol::CallToolResult};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Builds the framework server a case runs against: the study server as is, or (with `fill`
/// or `validate`) the study tools plus the 20-field `register` tool and filler tools up to
/// `fill` registered tools, with [`PAGE_SIZE`]. The caller includes the study server's module
/// (its `#[tool]`s are collected from the program's inventory) and passes its `build`.
pub fn build_server(
    study_build: fn(Option<KeyRing>) -> Result<mcp_runtime::Server, mcp_runtime::BuildError>,
    fill: usize,
    validate: bool,
) -> Result<mcp_runtime::Server, mcp_runtime::BuildError> {
    if fill == 0 && !validate {
        return study_build(Some(key_ring()));
    }
    let mut builder = mcp_runtime::Server::from_inventory()
        .name("study-server")
        .version("2.0.0")
        .state_keys(key_ring())
        .page_size(PAGE_SIZE);
    if validate {
        builder = builder.tool(twenty_tool());
    }
    let registered = 2 + usize::from(validate);
    for i in 0..fill.saturating_sub(registered) {
        builder = builder.tool(filler_tool(i));
    }
    builder.build()
}

/// The study server's tools with observation on: `layer` registers one pass-through layer,
/// `idle-layer` a layer that does not want `add` (a time limit for another tool), `metrics`
/// turns the metrics on (with no recorder installed), `tasks` adds `add_task`, the study
/// server's `add` as a task tool of the tasks extension.
pub fn observed_server(what: &str) -> Result<mcp_runtime::Server, mcp_runtime::BuildError> {
    let builder = mcp_runtime::Server::from_inventory()
        .name("study-server")
        .version("2.0.0")
        .state_keys(key_ring());
    match what {
        "layer" => builder
            .layer(mcp_runtime::layers::layer_fn(
                |request, next: mcp_runtime::layers::Next| next.run(request),
            ))
            .build(),
        "idle-layer" => builder
            .layer(
                mcp_runtime::layers::ToolTimeout::new()
                    .tool("prepare_review", std::time::Duration::from_secs(30)),
            )
            .build(),
        "metrics" => builder.metrics(true).build(),
        "tasks" => builder.tool(add_task_tool()).build(),
        "skills" => builder
            .page_size(PAGE_SIZE)
            .skills(mcp_runtime::skills!("../../examples/everything/skills"))
            .skills(mcp_runtime::Skills::dir(generated_skills(SKILLS - 2)?))
            .build(),
        "auth" | "introspect" => builder
            .require_scopes(PrimitiveKind::Tool, "add", ["calc"])
            .list_changed(true)
            .build(),
        other => Err(mcp_runtime::BuildError::Invalid {
            kind: "setting",
            name: "--observe".into(),
            reason: format!(
                "`{other}` is not one of fmt, layer, idle-layer, metrics, auth, tasks, skills"
            ),
            location: None,
        }),
    }
}

impl Request {
    /// The request with `Authorization: Bearer <token>`.
    pub fn with_token(mut self, token: &str) -> Request {
        self.headers
            .push(("Authorization".to_owned(), format!("Bearer {token}")));
        self
    }
}

/// The protocol version every request carries.
pub const VERSION: &str = "2026-07-28";

/// The fixed `requestState` key of the benchmark servers (so a state sealed by one process
/// opens in another, and no warning is printed).
pub const STATE_KEY: [u8; 32] = [7; 32];

/// The key ring built from [`STATE_KEY`].
pub fn key_ring() -> KeyRing {
    KeyRing::new(&[STATE_KEY]).expect("one key is a valid ring")
}

/// The `_meta` of every request; `extra` adds fields (such as `progressToken`) to it.
fn meta(caps: Value, extra: Option<(&str, Value)>) -> Value {
    let mut m = json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-bench", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": caps,
    });
    if let Some((k, v)) = extra {
        m[k] = v;
    }
    m
}

fn envelope(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

/// One HTTP request of a case: the JSON body and the MCP headers that go with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The JSON-RPC body.
    pub body: String,
    /// `(name, value)` pairs beyond `Content-Type`, `Accept` and `Host`.
    pub headers: Vec<(String, String)>,
}

impl Request {
    fn new(method: &str, name: Option<&str>, params: Value) -> Request {
        let mut headers = vec![
            ("MCP-Protocol-Version".to_owned(), VERSION.to_owned()),
            ("Mcp-Method".to_owned(), method.to_owned()),
        ];
        if let Some(name) = name {
            headers.push(("Mcp-Name".to_owned(), name.to_owned()));
        }
        Request {
            body: envelope(method, params),
            headers,
        }
    }
}

/// A 2025-11-25 client's `initialize` (no MCP headers, no `_meta`): opens a session.
pub fn legacy_initialize() -> Request {
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "mcp-bench", "version": "1.0.0"}});
    Request {
        body: json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
            .to_string(),
        headers: Vec::new(),
    }
}

/// `tools/call` of `add` with `{"a": 40, "b": 2}` on the 2025-11-25 session `session`.
pub fn legacy_call(session: &str) -> Request {
    let params = json!({"name": "add", "arguments": {"a": 40, "b": 2}});
    Request {
        body: envelope("tools/call", params),
        headers: vec![
            ("Mcp-Session-Id".to_owned(), session.to_owned()),
            ("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()),
        ],
    }
}

/// `tools/call` of the study server's `add` with `{"a": 40, "b": 2}`; with `progress`, the
/// request carries a `progressToken` and the answer is an SSE stream with two progress
/// notifications.
pub fn add_call(progress: bool) -> Request {
    let extra = progress.then(|| ("progressToken", json!("bench-1")));
    Request::new(
        "tools/call",
        Some("add"),
        json!({"name": "add", "arguments": {"a": 40, "b": 2}, "_meta": meta(json!({}), extra)}),
    )
}

/// The arguments of `add_task`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// First addend.
    pub a: i64,
    /// Second addend.
    pub b: i64,
}

/// `add` as a task tool (`TaskSupport::Required`): its task completes in the call's first poll.
pub fn add_task_tool() -> Tool {
    Tool::new("add_task")
        .description("Add two integers, as a task.")
        .task(mcp_runtime::TaskSupport::Required)
        .handler(|args: AddArgs, _cx| async move { (args.a + args.b).to_string() })
}

fn tasks_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// A request of `method` (naming `name` in `Mcp-Name`) with `params` and the standard `_meta`;
/// with `tasks`, the client declares the tasks extension.
pub fn request(method: &str, name: Option<&str>, mut params: Value, tasks: bool) -> Request {
    let caps = if tasks { tasks_caps() } else { json!({}) };
    params["_meta"] = meta(caps, None);
    Request::new(method, name, params)
}

/// Raises this process's open-file limit to its hard limit (servers it starts inherit it); the
/// limit now.
#[allow(unsafe_code)]
pub fn raise_file_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid `rlimit` for the duration of both calls.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        lim.rlim_cur = lim.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
    }
    lim.rlim_cur
}

/// `tools/call` of `add_task` with `{"a": 40, "b": 2}` by a client that declares the tasks
/// extension: answered with a task handle.
pub fn add_task_call() -> Request {
    Request::new(
        "tools/call",
        Some("add_task"),
        json!({"name": "add_task", "arguments": {"a": 40, "b": 2}, "_meta": meta(tasks_caps(), None)}),
    )
}

/// `tasks/get` of task `id` (answered with the completed task and its `CallToolResult`).
pub fn tasks_get(id: &str) -> Request {
    Request::new(
        "tasks/get",
        Some(id),
        json!({"taskId": id, "_meta": meta(tasks_caps(), None)}),
    )
}

fn review_caps() -> Value {
    json!({"roots": {}, "sampling": {}, "elicitation": {}})
}

/// The first round of `prepare_review`: answered with `input_required` and a sealed state.
pub fn mrtr_first() -> Request {
    Request::new(
        "tools/call",
        Some("prepare_review"),
        json!({
            "name": "prepare_review",
            "arguments": {"topic": "release safety"},
            "_meta": meta(review_caps(), None),
        }),
    )
}

/// The retry of `prepare_review` with every answer and the `requestState` of the first round.
pub fn mrtr_retry(state: &str) -> Request {
    Request::new(
        "tools/call",
        Some("prepare_review"),
        json!({
            "name": "prepare_review",
            "arguments": {"topic": "release safety"},
            "inputResponses": {
                "workspace_scope": {"roots": [{"uri": "file:///workspace/release", "name": "release"}]},
                "review_sample": {
                    "role": "assistant",
                    "content": {"type": "text", "text": "Check correctness and rollback risk."},
                    "model": "study-model",
                    "stopReason": "endTurn"
                },
                "review_goal": {"action": "accept", "content": {"goal": "find correctness risks"}}
            },
            "requestState": state,
            "_meta": meta(review_caps(), None),
        }),
    )
}

/// `resources/read` of the study server's `config://service`.
pub fn resource_read() -> Request {
    Request::new(
        "resources/read",
        Some("config://service"),
        json!({"uri": "config://service", "_meta": meta(json!({}), None)}),
    )
}

/// `tools/list`, from the start or from `cursor`.
pub fn tools_list(cursor: Option<&str>) -> Request {
    let mut params = json!({"_meta": meta(json!({}), None)});
    if let Some(c) = cursor {
        params["cursor"] = json!(c);
    }
    Request::new("tools/list", None, params)
}

/// `tools/call` of [`twenty_tool`] with 20 valid fields.
pub fn validate_call() -> Request {
    Request::new(
        "tools/call",
        Some("register"),
        json!({"name": "register", "arguments": twenty_arguments(), "_meta": meta(json!({}), None)}),
    )
}

/// Skills of the `skills` server: the two `examples/everything` embeds and generated ones.
pub const SKILLS: usize = 100;

/// A folder of `n` generated skills (`SKILL.md` and one reference each), made afresh in the
/// temporary directory.
fn generated_skills(n: usize) -> Result<std::path::PathBuf, mcp_runtime::BuildError> {
    let root = std::env::temp_dir().join(format!("mcp-bench-skills-{}", std::process::id()));
    let failed = |e: std::io::Error| mcp_runtime::BuildError::Invalid {
        kind: "setting",
        name: "--observe skills".into(),
        reason: format!("cannot write {}: {e}", root.display()),
        location: None,
    };
    let _ = std::fs::remove_dir_all(&root);
    for i in 0..n {
        let dir = root.join(format!("team-{}/skill-{i:03}", i % 4));
        std::fs::create_dir_all(&dir).map_err(failed)?;
        let md = format!(
            "---\nname: skill-{i:03}\ndescription: Generated skill number {i} of the benchmark, \
             with a description of a realistic length.\nlicense: MIT\n---\n\n# Skill {i}\n\n\
             Follow `reference.md`.\n"
        );
        std::fs::write(dir.join("SKILL.md"), md).map_err(failed)?;
        std::fs::write(dir.join("reference.md"), format!("Reference {i}.\n")).map_err(failed)?;
    }
    Ok(root)
}

/// `skills/list`, from the start or from `cursor`.
pub fn skills_list(cursor: Option<&str>) -> Request {
    let mut params = json!({"_meta": meta(json!({}), None)});
    if let Some(c) = cursor {
        params["cursor"] = json!(c);
    }
    Request::new("skills/list", None, params)
}

/// `resources/read` of a file of an embedded skill (`skills!`).
pub fn skill_file_read() -> Request {
    let uri = "skill://pdf-processing/references/FORMS.md";
    Request::new(
        "resources/read",
        Some(uri),
        json!({"uri": uri, "_meta": meta(json!({}), None)}),
    )
}

/// Page size of the `tools/list` cases.
pub const PAGE_SIZE: usize = 50;

/// A 20-field argument object with strings, formats, ranges, enums and arrays.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[allow(missing_docs)]
pub struct Registration {
    #[schemars(length(min = 1, max = 64))]
    pub first_name: String,
    #[schemars(length(min = 1, max = 64))]
    pub last_name: String,
    #[schemars(email)]
    pub email: String,
    #[schemars(range(min = 0, max = 150))]
    pub age: u8,
    #[schemars(regex(pattern = r"^\+?[0-9 ]{6,20}$"))]
    pub phone: String,
    pub country: Country,
    #[schemars(length(min = 1, max = 128))]
    pub city: String,
    #[schemars(length(min = 1, max = 128))]
    pub street: String,
    #[schemars(regex(pattern = r"^[0-9A-Z -]{3,10}$"))]
    pub postal_code: String,
    #[schemars(length(max = 8))]
    pub tags: Vec<String>,
    pub newsletter: bool,
    #[schemars(range(min = 0.0, max = 5.0))]
    pub rating: f64,
    #[schemars(url)]
    pub homepage: String,
    #[schemars(length(max = 512))]
    pub bio: String,
    #[schemars(range(min = 1, max = 10))]
    pub seats: u32,
    pub plan: Plan,
    #[schemars(length(min = 2, max = 8))]
    pub language: String,
    #[schemars(regex(pattern = r"^[A-Za-z]+/[A-Za-z_]+$"))]
    pub timezone: String,
    pub referrer: Option<String>,
    #[schemars(range(min = 0, max = 100))]
    pub score: i32,
}

/// A country, as an enum.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[allow(missing_docs)]
pub enum Country {
    DE,
    FR,
    NL,
    SE,
    US,
}

/// A plan, as an enum.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Plan {
    Free,
    Team,
    Enterprise,
}

/// The valid arguments of [`validate_call`].
pub fn twenty_arguments() -> Value {
    json!({
        "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "age": 36,
        "phone": "+44 20 7946 0000", "country": "SE", "city": "Stockholm",
        "street": "Drottninggatan 1", "postal_code": "111 51", "tags": ["math", "engines"],
        "newsletter": true, "rating": 4.5, "homepage": "https://example.com/ada",
        "bio": "First programmer.", "seats": 3, "plan": "team", "language": "en",
        "timezone": "Europe/Stockholm", "referrer": null, "score": 97
    })
}

/// The tool with the 20-field argument object: it answers with the number of seats.
pub fn twenty_tool() -> Tool {
    Tool::new("register")
        .description("Register a person (20 validated fields).")
        .handler(|args: Registration, _cx| async move { args.seats.to_string() })
}

/// Filler tool number `i` of the `tools/list` cases, with a realistic two-argument schema.
pub fn filler_tool(i: usize) -> Tool {
    let mut schema = serde_json::Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert(
        "properties".into(),
        json!({
            "query": {"type": "string", "description": "What to look for."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100}
        }),
    );
    schema.insert("required".into(), json!(["query"]));
    Tool::new(format!("filler_{i:05}"))
        .description(format!(
            "Filler tool {i}: searches collection {i} for the query and returns at most `limit` hits."
        ))
        .input_schema(schema)
        .raw_handler(|_call| async {
            Ok(ToolOutcome::Complete(CallToolResult::new(Vec::new())))
        })
}

/// The baseline's view of a `tools/call` of `add`: only what it needs, borrowed from the body.
#[derive(Deserialize)]
struct BaselineRequest<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    id: Value,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    params: BaselineParams<'a>,
}

#[derive(Deserialize)]
struct BaselineParams<'a> {
    #[serde(borrow)]
    name: &'a str,
    arguments: AddArguments,
}

#[derive(Deserialize)]
struct AddArguments {
    a: i64,
    b: i64,
}

#[derive(Serialize)]
struct BaselineResponse<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: BaselineResult,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BaselineResult {
    result_type: &'static str,
    content: [BaselineText; 1],
    is_error: bool,
    #[serde(rename = "_meta")]
    meta: BaselineMeta,
}

#[derive(Serialize)]
struct BaselineText {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

#[derive(Serialize)]
struct BaselineMeta {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: BaselineInfo,
}

#[derive(Serialize)]
struct BaselineInfo {
    name: &'static str,
    version: &'static str,
}

/// The baseline's whole application logic: parse the JSON-RPC body with serde_json, check it is
/// a `tools/call` of `add`, and serialize the same result envelope the framework sends. `None`
/// for anything else.
pub fn baseline_answer(body: &[u8]) -> Option<Vec<u8>> {
    let req: BaselineRequest<'_> = serde_json::from_slice(body).ok()?;
    if req.jsonrpc != "2.0" || req.method != "tools/call" || req.params.name != "add" {
        return None;
    }
    let sum = req
        .params
        .arguments
        .a
        .saturating_add(req.params.arguments.b);
    serde_json::to_vec(&BaselineResponse {
        jsonrpc: "2.0",
        id: &req.id,
        result: BaselineResult {
            result_type: "complete",
            content: [BaselineText {
                kind: "text",
                text: sum.to_string(),
            }],
            is_error: false,
            meta: BaselineMeta {
                server_info: BaselineInfo {
                    name: "study-server",
                    version: "2.0.0",
                },
            },
        },
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_answers_add() {
        let out = baseline_answer(add_call(false).body.as_bytes()).expect("an answer");
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["result"]["content"][0]["text"], "42");
        assert!(baseline_answer(resource_read().body.as_bytes()).is_none());
    }
}

/// The payload of the large-read case: 10 MiB of text.
pub const BIG_BYTES: usize = 10 * 1024 * 1024;
/// The size of the large-argument case's argument: 1 MiB of text.
pub const ARGUMENT_BYTES: usize = 1024 * 1024;

/// The arguments of `storm`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct StormArgs {
    /// How many changes to publish.
    pub count: u32,
}

/// The arguments of `echo_len`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// Any text.
    pub data: String,
}

/// The study server for the many-clients cases (`mcp-bench-ours --observe clients`): limits
/// raised for 10,000+ listen streams, resource subscriptions on, and four more primitives:
/// `touch` (announces `config://service` updated), `storm` (announces it `count` times),
/// `echo_len` (the length of its `data` argument), `heap` (the bytes the allocator has handed
/// out and not had back) and `big://text` (10 MiB of text).
pub fn clients_server() -> Result<mcp_runtime::Server, mcp_runtime::BuildError> {
    clients_server_with(mcp_runtime::LocalBus::new(4096))
}

/// [`clients_server`] over `bus` (a Redis bus: one of several instances, for the cross-instance
/// fan-out of `bench/scaleout.sh`).
pub fn clients_server_with<B: ChangeBus + Clone>(
    bus: B,
) -> Result<mcp_runtime::Server, mcp_runtime::BuildError> {
    let touch_bus = bus.clone();
    let storm_bus = bus.clone();
    mcp_runtime::Server::from_inventory()
        .name("study-server")
        .version("2.0.0")
        .state_keys(key_ring())
        .list_changed(true)
        .resource_subscriptions(true)
        .change_bus(bus)
        .limits(
            // Every bench client comes from 127.0.0.1: one caller, given the whole pools.
            mcp_runtime::Limits::default()
                .listen_streams(40_000)
                .listens_per_caller(40_000)
                .concurrent_requests(60_000)
                .requests_per_caller(60_000),
        )
        .tool(
            Tool::new("touch")
                .description("Announce that config://service changed.")
                .handler(move |_: mcp_runtime::NoArguments, _cx| {
                    touch_bus.publish(Change::ResourceUpdated("config://service".into()));
                    async { "touched" }
                }),
        )
        .tool(
            Tool::new("storm")
                .description("Announce that config://service changed, `count` times.")
                .handler(move |args: StormArgs, _cx| {
                    for _ in 0..args.count {
                        storm_bus.publish(Change::ResourceUpdated("config://service".into()));
                    }
                    async move { format!("{} changes", args.count) }
                }),
        )
        .tool(
            Tool::new("heap")
                .description("Bytes of heap in use (glibc's mallinfo2: handed out, not freed).")
                .handler(|_: mcp_runtime::NoArguments, _cx| async { heap_in_use().to_string() }),
        )
        .tool(
            Tool::new("echo_len")
                .description("The length of the text.")
                .handler(|args: EchoArgs, _cx| async move { args.data.len().to_string() }),
        )
        .resource(
            mcp_runtime::Resource::new("big://text", "big")
                .mime_type("text/plain")
                // Made on each read, as the baseline makes it.
                .handler(|_read| async { "x".repeat(BIG_BYTES) }),
        )
        .build()
}

/// `subscriptions/listen` for updates of `config://service`.
pub fn listen_request() -> Request {
    Request::new(
        "subscriptions/listen",
        None,
        json!({"notifications": {"resourceSubscriptions": ["config://service"]}, "_meta": meta(json!({}), None)}),
    )
}

/// Bytes of heap in use: what the allocator handed out and has not had back (glibc's
/// `mallinfo2`: `uordblks` + `hblkhd`), against which resident memory also counts what it
/// keeps after frees. 0 where glibc is not the allocator.
#[allow(unsafe_code)]
pub fn heap_in_use() -> u64 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallinfo2` takes no arguments and only reads the allocator's counters.
        let info = unsafe { libc::mallinfo2() };
        (info.uordblks + info.hblkhd) as u64
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        0
    }
}

/// `tools/call` of `heap`.
pub fn heap_call() -> Request {
    Request::new(
        "tools/call",
        Some("heap"),
        json!({"name": "heap", "arguments": {}, "_meta": meta(json!({}), None)}),
    )
}

/// `tools/call` of `touch`.
pub fn touch_call() -> Request {
    Request::new(
        "tools/call",
        Some("touch"),
        json!({"name": "touch", "arguments": {}, "_meta": meta(json!({}), None)}),
    )
}

/// `tools/call` of `storm` with `count`.
pub fn storm_call(count: u32) -> Request {
    Request::new(
        "tools/call",
        Some("storm"),
        json!({"name": "storm", "arguments": {"count": count}, "_meta": meta(json!({}), None)}),
    )
}

/// `resources/read` of `big://text` (10 MiB).
pub fn big_read() -> Request {
    Request::new(
        "resources/read",
        Some("big://text"),
        json!({"uri": "big://text", "_meta": meta(json!({}), None)}),
    )
}

/// `tools/call` of `echo_len` with a 1 MiB argument.
pub fn big_argument_call() -> Request {
    Request::new(
        "tools/call",
        Some("echo_len"),
        json!({"name": "echo_len", "arguments": {"data": "y".repeat(ARGUMENT_BYTES)}, "_meta": meta(json!({}), None)}),
    )
}

/// What the baseline answers besides `add`.
#[derive(Debug)]
pub enum BaselineAnswer {
    /// A JSON response body.
    Json(Vec<u8>),
    /// An SSE stream: this first event, then nothing (or, with `--fanout`, each announced
    /// change), held open; the request id is the stream's subscription id.
    HeldStream(Vec<u8>, Value),
    /// `touch`: announce `config://service` updated to every held stream; then this body.
    Touch(Vec<u8>),
}

/// The SSE event a raw server writes for one `resources/updated` of `uri` on the stream whose
/// subscription id is `id` (the bytes the framework writes for the same change).
pub fn baseline_updated_event(uri: &str, id: &Value) -> Vec<u8> {
    let note = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
        "params": {"uri": uri, "_meta": {"io.modelcontextprotocol/subscriptionId": id}}});
    format!("event: message\ndata: {note}\n\n").into_bytes()
}

#[derive(Deserialize)]
struct OtherRequest {
    id: Value,
    method: String,
    #[serde(default)]
    params: OtherParams,
}

#[derive(Deserialize, Default)]
struct OtherParams {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    uri: Option<String>,
    #[serde(default)]
    arguments: Option<OtherArgs>,
}

/// The arguments the baseline reads: `echo_len`'s `data` (`touch` has none).
#[derive(Deserialize, Default)]
struct OtherArgs {
    #[serde(default)]
    data: String,
}

/// The baseline's answer to the many-clients requests: the listen acknowledgement (as one SSE
/// event), `touch`, `heap`, the 10 MiB read, the length of a large argument. The same bytes the framework sends,
/// with no framework.
pub fn baseline_other(body: &[u8]) -> Option<BaselineAnswer> {
    let req: OtherRequest = serde_json::from_slice(body).ok()?;
    match req.method.as_str() {
        "subscriptions/listen" => {
            let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                "params": {"notifications": {"resourceSubscriptions": ["config://service"]},
                "_meta": {"io.modelcontextprotocol/subscriptionId": req.id}}});
            Some(BaselineAnswer::HeldStream(
                format!("event: message\ndata: {ack}\n\n").into_bytes(),
                req.id,
            ))
        }
        "resources/read" if req.params.uri.as_deref() == Some("big://text") => {
            let text = "x".repeat(BIG_BYTES);
            let out = json!({"jsonrpc": "2.0", "id": req.id, "result": {"resultType": "complete",
                "contents": [{"uri": "big://text", "mimeType": "text/plain", "text": text}]}});
            serde_json::to_vec(&out).ok().map(BaselineAnswer::Json)
        }
        "tools/call" => {
            let text = match req.params.name.as_deref() {
                Some("heap") => heap_in_use().to_string(),
                Some("touch") => "touched".to_owned(),
                _ => req.params.arguments?.data.len().to_string(),
            };
            let out = json!({"jsonrpc": "2.0", "id": req.id, "result": {"resultType": "complete",
                "content": [{"type": "text", "text": text}], "isError": false}});
            let out = serde_json::to_vec(&out).ok()?;
            Some(match req.params.name.as_deref() {
                Some("touch") => BaselineAnswer::Touch(out),
                _ => BaselineAnswer::Json(out),
            })
        }
        _ => None,
    }
}

/// A listener on `addr` as `Server::run` binds it (a backlog of 4,096: the benchmarks open a
/// thousand connections at once).
pub async fn listen(addr: &str) -> std::io::Result<tokio::net::TcpListener> {
    let addr = addr
        .parse()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    mcp_runtime::transport::http::bind(addr).await
}

/// The instruction count of a callgrind output file (its `summary:` or `totals:` line).
pub fn callgrind_total(file: &std::path::Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("no totals in {}", file.display()))
}
