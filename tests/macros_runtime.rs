//! Annotated functions served end to end through `Server::handle_message`: tool calls (schema
//! violations, errors, panics, structured output, context extractors), resources (fixed,
//! templates, bad and unknown URIs), prompts (typed arguments), completions, and explicit
//! registration through the generated handles.

mod common;

use mcp_runtime::protocol::{GetPromptResult, PromptMessage};
use mcp_runtime::{
    Json, McpError, RequestContext, Server, State, handler::CompletionRequest, prompt, resource,
    tool,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

// ------------------------------------------------------------------------------------------
// Tools
// ------------------------------------------------------------------------------------------

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a.saturating_add(b)
}

/// Search with a minimum query length.
#[tool(annotations(read_only, open_world = false), icon(src = "https://example.com/s.png", mime_type = "image/png", sizes = "48x48 96x96"), meta = serde_json::json!({"com.example/tier": "gold"}))]
async fn search(
    /// What to look for.
    #[schemars(length(min = 3))]
    query: String,
    #[schemars(range(min = 1, max = 10))] limit: Option<u8>,
) -> String {
    format!("{query}:{}", limit.unwrap_or(5))
}

/// Fails on purpose.
#[tool]
fn divide(a: i64, b: i64) -> Result<i64, String> {
    if b == 0 {
        Err("cannot divide by zero: pass a non-zero `b`".to_owned())
    } else {
        Ok(a / b)
    }
}

/// Refuses with a protocol error.
#[tool]
fn refuse() -> Result<String, McpError> {
    Err(McpError::invalid_params("Invalid params: refused"))
}

/// Panics on purpose.
#[tool]
#[allow(clippy::panic)]
fn explode() -> String {
    panic!("boom")
}

/// Panics on purpose, asynchronously.
#[tool]
#[allow(clippy::panic)]
async fn explode_later() -> String {
    tokio::task::yield_now().await;
    panic!("boom later")
}

#[derive(Serialize, JsonSchema)]
struct Weather {
    celsius: f64,
}

/// Structured weather.
#[tool]
fn weather(city: String) -> Json<Weather> {
    Json(Weather {
        celsius: if city == "Oslo" { 3.5 } else { 22.0 },
    })
}

struct Greeting(&'static str);

/// Uses context extractors.
#[tool]
async fn greet(cx: RequestContext, name: String, State(greeting): State<Greeting>) -> String {
    format!("{} {name} ({})", greeting.0, cx.method())
}

/// Reports progress through two reporters of the same request.
#[tool]
fn two_reporters(cx: RequestContext) -> String {
    let first = cx.progress().report(0.5, None, None);
    let second = cx.progress().report(0.4, None, None);
    let third = cx.progress().report(0.9, None, None);
    format!("{first} {second} {third}")
}

// ------------------------------------------------------------------------------------------
// Resources
// ------------------------------------------------------------------------------------------

/// The service configuration.
#[resource(
    "config://service",
    name = "service-config",
    title = "Service configuration",
    mime_type = "application/json",
    size = 37,
    cache(ttl_ms = 30000, scope = "private")
)]
fn service_config() -> String {
    json!({"region": "local", "mode": "training"}).to_string()
}

/// Raw bytes.
#[resource("bin://blob", mime_type = "application/octet-stream")]
fn blob() -> Vec<u8> {
    vec![0, 1, 2, 255]
}

async fn complete_ids(req: CompletionRequest) -> Vec<String> {
    ["1", "2", "10"]
        .iter()
        .filter(|v| v.starts_with(&req.value))
        .map(|v| (*v).to_owned())
        .collect()
}

/// One item by number.
#[resource("items://{id}/detail{+rest}", name = "item", mime_type = "text/plain", complete(id = complete_ids))]
async fn item(id: u32, rest: String, cx: RequestContext) -> Result<String, std::io::Error> {
    let _ = cx;
    if id == 404 {
        return Err(std::io::Error::other("item 404 is gone"));
    }
    Ok(format!("item {id}{rest}"))
}

// ------------------------------------------------------------------------------------------
// Prompts
// ------------------------------------------------------------------------------------------

/// Create a source-grounded briefing for a named audience.
#[prompt(title = "Draft a policy briefing", complete(audience = ["support managers", "support leads", "legal"]))]
fn draft_policy_brief(
    /// Who will read the briefing
    audience: String,
    /// At most this many words
    words: Option<u32>,
) -> String {
    match words {
        Some(w) => format!("Draft a briefing for {audience} in {w} words."),
        None => format!("Draft a briefing for {audience}."),
    }
}

/// Repeat a line.
#[prompt(name = "repeat")]
async fn repeat_prompt(times: u8, line: String) -> Vec<PromptMessage> {
    (0..times)
        .map(|_| PromptMessage::user(line.clone()))
        .collect()
}

#[prompt]
fn full() -> GetPromptResult {
    let mut r = GetPromptResult::new(vec![PromptMessage::user("hi")]);
    r.description = Some("A described result.".into());
    r
}

// ------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------

/// [`common::request`] as bytes.
fn request(id: i64, method: &str, params: Value) -> Vec<u8> {
    serde_json::to_vec(&common::request(id, method, params)).expect("serializable")
}

/// Sends one request in-process and validates the answer against the 2026-07-28 schema.
async fn send(server: &Server, body: Vec<u8>) -> Value {
    let call = server
        .handle_message(&body, Default::default())
        .expect("a request gets a response");
    let answer: Value = serde_json::from_slice(&call.response().await.body).expect("JSON response");
    let sent: Value = serde_json::from_slice(&body).expect("JSON request");
    common::assert_response_valid(sent["method"].as_str().unwrap_or_default(), &answer);
    answer
}

fn server() -> Server {
    Server::from_inventory()
        .state(Greeting("Hello"))
        .build()
        .expect("valid server")
}

async fn call_tool(server: &Server, name: &str, arguments: Value) -> Value {
    send(
        server,
        request(
            7,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        ),
    )
    .await
}

fn text(result: &Value) -> String {
    result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
        .to_owned()
}

// ------------------------------------------------------------------------------------------
// Tests
// ------------------------------------------------------------------------------------------

#[tokio::test]
async fn calls_a_sync_tool() {
    let s = server();
    let r = call_tool(&s, "add", json!({"a": 40, "b": 2})).await;
    assert_eq!(text(&r), "42");
    assert_eq!(r["result"]["isError"], false);
}

#[tokio::test]
async fn calls_an_async_tool_with_optional_argument() {
    let s = server();
    assert_eq!(
        text(&call_tool(&s, "search", json!({"query": "retention"})).await),
        "retention:5"
    );
    assert_eq!(
        text(&call_tool(&s, "search", json!({"query": "retention", "limit": 2})).await),
        "retention:2"
    );
}

#[tokio::test]
async fn schema_violations_are_tool_errors_naming_field_and_constraint() {
    let s = server();
    let r = call_tool(&s, "search", json!({"query": "ab"})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let t = text(&r);
    assert!(t.contains("query") && t.contains('3'), "{t}");

    let r = call_tool(&s, "search", json!({"query": "abcd", "limit": 11})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let t = text(&r);
    assert!(t.contains("limit") && t.contains("10"), "{t}");

    let r = call_tool(&s, "add", json!({"a": 1})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(text(&r).contains('b'), "{r}");

    let r = call_tool(&s, "add", json!({"a": 1, "b": 2, "c": 3})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(text(&r).contains('c'), "{r}");

    let r = call_tool(&s, "add", json!({"a": "one", "b": 2})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(
        text(&r).contains('a') && text(&r).contains("integer"),
        "{r}"
    );
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_invalid_params() {
    let s = server();
    let r = call_tool(&s, "add", json!([1, 2])).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[tokio::test]
async fn err_results_are_tool_errors() {
    let s = server();
    let r = call_tool(&s, "divide", json!({"a": 1, "b": 0})).await;
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(text(&r), "cannot divide by zero: pass a non-zero `b`");
    assert_eq!(
        text(&call_tool(&s, "divide", json!({"a": 9, "b": 3})).await),
        "3"
    );
}

#[tokio::test]
async fn mcp_errors_are_protocol_errors() {
    let s = server();
    let r = call_tool(&s, "refuse", json!({})).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[tokio::test]
async fn panics_are_tool_errors() {
    let s = server();
    for name in ["explode", "explode_later"] {
        let r = call_tool(&s, name, json!({})).await;
        assert_eq!(r["result"]["isError"], true, "{r}");
    }
    // The server still answers afterwards.
    assert_eq!(
        text(&call_tool(&s, "add", json!({"a": 1, "b": 1})).await),
        "2"
    );
}

#[tokio::test]
async fn json_results_are_structured_with_an_output_schema() {
    let s = server();
    let r = call_tool(&s, "weather", json!({"city": "Oslo"})).await;
    assert_eq!(r["result"]["structuredContent"], json!({"celsius": 3.5}));
    assert_eq!(
        serde_json::from_str::<Value>(&text(&r)).expect("JSON text"),
        json!({"celsius": 3.5})
    );
    let list = send(&s, request(1, "tools/list", json!({}))).await;
    let weather = list["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "weather"))
        .expect("weather listed")
        .clone();
    assert_eq!(
        weather["outputSchema"],
        json!({"type": "object", "required": ["celsius"], "properties": {"celsius": {"type": "number"}}})
    );
}

#[tokio::test]
async fn context_extractors_are_filled_in() {
    let s = server();
    let r = call_tool(&s, "greet", json!({"name": "Ada"})).await;
    assert_eq!(text(&r), "Hello Ada (tools/call)");
    // The context parameters are not part of the schema.
    let list = send(&s, request(1, "tools/list", json!({}))).await;
    let greet = list["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "greet"))
        .expect("greet listed")
        .clone();
    assert_eq!(greet["inputSchema"]["required"], json!(["name"]));
    assert_eq!(
        greet["inputSchema"]["properties"]
            .as_object()
            .map(|p| p.len()),
        Some(1)
    );
}

#[tokio::test]
async fn listing_carries_annotations_icons_and_meta() {
    let s = server();
    let list = send(&s, request(1, "tools/list", json!({}))).await;
    let search = list["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "search"))
        .expect("search listed")
        .clone();
    assert_eq!(
        search["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    assert_eq!(
        search["icons"],
        json!([{"src": "https://example.com/s.png", "mimeType": "image/png", "sizes": ["48x48", "96x96"]}])
    );
    assert_eq!(search["_meta"], json!({"com.example/tier": "gold"}));
    assert_eq!(
        search["inputSchema"]["properties"]["query"]["description"],
        "What to look for."
    );
}

#[tokio::test]
async fn fixed_resources_are_listed_and_read() {
    let s = server();
    let list = send(&s, request(1, "resources/list", json!({}))).await;
    let resources = list["result"]["resources"]
        .as_array()
        .expect("resources")
        .clone();
    let config = resources
        .iter()
        .find(|r| r["uri"] == "config://service")
        .expect("listed");
    assert_eq!(
        config,
        &json!({
            "uri": "config://service",
            "name": "service-config",
            "title": "Service configuration",
            "description": "The service configuration.",
            "mimeType": "application/json",
            "size": 37
        })
    );
    let r = send(
        &s,
        request(2, "resources/read", json!({"uri": "config://service"})),
    )
    .await;
    assert_eq!(
        r["result"]["contents"],
        json!([{"uri": "config://service", "mimeType": "application/json", "text": "{\"mode\":\"training\",\"region\":\"local\"}"}])
    );
    assert_eq!(r["result"]["ttlMs"], 30000);
    assert_eq!(r["result"]["cacheScope"], "private");

    let r = send(
        &s,
        request(3, "resources/read", json!({"uri": "bin://blob"})),
    )
    .await;
    assert_eq!(r["result"]["contents"][0]["blob"], "AAEC/w==");
}

#[tokio::test]
async fn template_resources_parse_their_variables() {
    let s = server();
    let list = send(&s, request(1, "resources/templates/list", json!({}))).await;
    assert_eq!(
        list["result"]["resourceTemplates"],
        json!([{"uriTemplate": "items://{id}/detail{+rest}", "name": "item", "description": "One item by number.", "mimeType": "text/plain"}])
    );
    let r = send(
        &s,
        request(2, "resources/read", json!({"uri": "items://7/detail/a/b"})),
    )
    .await;
    assert_eq!(r["result"]["contents"][0]["text"], "item 7/a/b", "{r}");

    let r = send(
        &s,
        request(
            3,
            "resources/read",
            json!({"uri": "items://seven/detail/x"}),
        ),
    )
    .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["data"]["uri"], "items://seven/detail/x");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`id`") && message.contains("seven"),
        "{message}"
    );

    let r = send(
        &s,
        request(4, "resources/read", json!({"uri": "items://404/detail/x"})),
    )
    .await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
}

#[tokio::test]
async fn unknown_uris_are_invalid_params_with_the_uri() {
    let s = server();
    let r = send(
        &s,
        request(1, "resources/read", json!({"uri": "nothing://here"})),
    )
    .await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["data"]["uri"], "nothing://here");
}

#[tokio::test]
async fn prompts_are_listed_with_typed_arguments() {
    let s = server();
    let list = send(&s, request(1, "prompts/list", json!({}))).await;
    let prompts = list["result"]["prompts"]
        .as_array()
        .expect("prompts")
        .clone();
    let brief = prompts
        .iter()
        .find(|p| p["name"] == "draft_policy_brief")
        .expect("listed");
    assert_eq!(
        brief,
        &json!({
            "name": "draft_policy_brief",
            "title": "Draft a policy briefing",
            "description": "Create a source-grounded briefing for a named audience.",
            "arguments": [
                {"name": "audience", "description": "Who will read the briefing", "required": true},
                {"name": "words", "description": "At most this many words", "required": false}
            ]
        })
    );
    let get = |args: Value| {
        request(
            2,
            "prompts/get",
            json!({"name": "draft_policy_brief", "arguments": args}),
        )
    };
    let r = send(&s, get(json!({"audience": "support managers"}))).await;
    assert_eq!(
        r["result"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Draft a briefing for support managers."}}])
    );
    let r = send(&s, get(json!({"audience": "legal", "words": "120"}))).await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        "Draft a briefing for legal in 120 words."
    );
    let r = send(&s, get(json!({"audience": "legal", "words": "many"}))).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`words`"), "{message}");
    let r = send(&s, get(json!({}))).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("audience")
    );
}

#[tokio::test]
async fn prompts_return_messages_and_results() {
    let s = server();
    let r = send(
        &s,
        request(
            1,
            "prompts/get",
            json!({"name": "repeat", "arguments": {"times": "2", "line": "hey"}}),
        ),
    )
    .await;
    assert_eq!(
        r["result"]["messages"].as_array().map(Vec::len),
        Some(2),
        "{r}"
    );
    let r = send(&s, request(2, "prompts/get", json!({"name": "full"}))).await;
    assert_eq!(r["result"]["description"], "A described result.");
}

#[tokio::test]
async fn completions_come_from_the_declarations() {
    let s = server();
    let r = send(
        &s,
        request(
            1,
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "draft_policy_brief"},
                "argument": {"name": "audience", "value": "support"}
            }),
        ),
    )
    .await;
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["support managers", "support leads"]),
        "{r}"
    );
    let r = send(
        &s,
        request(
            2,
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "items://{id}/detail{+rest}"},
                "argument": {"name": "id", "value": "1"}
            }),
        ),
    )
    .await;
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["1", "10"]),
        "{r}"
    );
    assert!(s.capabilities().completions.is_some());
}

#[tokio::test]
async fn explicit_handles_register_a_chosen_subset() {
    let s = Server::builder()
        .tool(add {})
        .tool(weather {})
        .resource(service_config {})
        .resource_template(item {})
        .prompt(repeat_prompt {})
        .build()
        .expect("valid server");
    let list = send(&s, request(1, "tools/list", json!({}))).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["add", "weather"]);
    assert_eq!(
        text(&call_tool(&s, "add", json!({"a": 2, "b": 3})).await),
        "5"
    );
    let r = send(
        &s,
        request(2, "resources/read", json!({"uri": "items://3/detail/x"})),
    )
    .await;
    assert_eq!(r["result"]["contents"][0]["text"], "item 3/x");
    let prompts = send(&s, request(3, "prompts/list", json!({}))).await;
    assert_eq!(prompts["result"]["prompts"][0]["name"], "repeat");
}

#[tokio::test]
async fn registering_a_handle_twice_is_a_startup_error() {
    let err = Server::builder()
        .tool(add {})
        .tool(add {})
        .build()
        .expect_err("duplicate tool");
    assert!(err.to_string().contains("add"), "{err}");
}

#[test]
fn annotated_functions_stay_callable() {
    assert_eq!(add(1, 2), 3);
    assert_eq!(divide(6, 3), Ok(2));
    assert!(service_config().contains("local"));
    assert_eq!(
        draft_policy_brief("x".into(), None),
        "Draft a briefing for x."
    );
}

/// The one-pass reading of a `tools/call` and the general reading agree: key order, escapes and
/// whitespace do not change the answer.
#[tokio::test]
async fn tool_calls_read_the_same_in_any_key_order_or_spelling() {
    let s = server();
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let bodies = [
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"a":40,"b":2}},"_meta":{meta}}}}}"#
        ),
        format!(
            r#"{{"params":{{"_meta":{meta},"arguments":{{"b":2,"a":40}},"name":"add"}},"method":"tools/call","id":7,"jsonrpc":"2.0"}}"#
        ),
        format!(
            r#" {{ "jsonrpc" : "2.0" , "id" : 7 , "method" : "tools\/call" , "params" : {{ "name" : "a\u0064d" , "arguments" : {{ "a" : 40 , "b" : 2 }} , "_meta" : {meta} }} }} "#
        ),
        format!(
            r#"{{"jsonrpc":"2\u002e0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"a":40,"b":2}},"_meta":{meta}}}}}"#
        ),
    ];
    for body in bodies {
        let r = send(&s, body.clone().into_bytes()).await;
        assert_eq!(r["id"], 7, "{body} -> {r}");
        assert_eq!(text(&r), "42", "{body} -> {r}");
    }
}

#[tokio::test]
async fn a_body_that_is_not_utf8_is_a_parse_error() {
    let s = server();
    let mut body = request(
        7,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    );
    let at = body.iter().position(|&b| b == b'a').expect("an `a`");
    body[at] = 0xff;
    let call = s
        .handle_message(&body, Default::default())
        .expect("an answer");
    let answer: Value = serde_json::from_slice(&call.response().await.body).expect("JSON");
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
}

#[tokio::test]
async fn null_arguments_are_no_arguments() {
    let s = server();
    let r = call_tool(&s, "two_reporters", Value::Null).await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    let r = call_tool(&s, "add", Value::Null).await;
    assert_eq!(
        r["result"]["isError"], true,
        "missing `a` is a tool error: {r}"
    );
}

#[tokio::test]
async fn reporters_of_one_request_share_the_increasing_guard() {
    let s = server();
    let mut body = request(
        7,
        "tools/call",
        json!({"name": "two_reporters", "arguments": {}}),
    );
    let mut v: Value = serde_json::from_slice(&body).unwrap();
    v["params"]["_meta"]["progressToken"] = json!("p-7");
    body = serde_json::to_vec(&v).unwrap();
    let r = send(&s, body).await;
    assert_eq!(text(&r), "true false true", "{r}");
    // Without a token nothing is sent.
    assert_eq!(
        text(&call_tool(&s, "two_reporters", json!({})).await),
        "false false false"
    );
}
