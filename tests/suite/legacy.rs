//! 2025-11-25 clients on the same endpoint and handlers as 2026-07-28 ones: the era of each
//! request, the session's life, the legacy shape of every message (checked against the
//! 2025-11-25 schema), the GET stream, the bridge that turns `input_required` into requests to
//! the client (and its failures), resumption with `Last-Event-ID`, and stdio in both eras.
//! Resource subscriptions: their bounds and their authorization (at subscribe and for each
//! update). Progress of a call answered at once. A session's change stream that fell behind
//! the change bus resyncs with the same notifications over HTTP and over stdio.

use crate::common;
use common::sse::EventStream;
use common::{HttpResponse, assert_valid_2025, post, send, spawn_http_with, within};
use http::{Method, StatusCode};
use mcp_runtime::LegacyOptions;
use mcp_runtime::{
    ElicitForm, Elicitation, HttpOptions, NoArguments, PrimitiveKind, Progress, RequestContext,
    Roots, Sampled, Server, Tool, tool,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;

/// What the user picks.
#[derive(Debug, Deserialize, ElicitForm)]
pub struct Goal {
    /// The goal.
    goal: String,
}

/// Times `review`'s body ran.
static REVIEWS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Asks for roots, a sampled message and a form, then reports them (the body runs once).
#[tool]
pub fn review(
    #[roots] scope: Roots,
    #[sample(prompt = "Name one risk.", max_tokens = 40)] risk: Sampled,
    #[elicit(message = "Pick a goal.")] goal: Elicitation<Goal>,
) -> String {
    REVIEWS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let goal = goal.accepted().map_or("none".to_owned(), |g| g.goal);
    format!("roots={} risk={} goal={goal}", scope.len(), risk.text())
}

/// Asks for a form only.
#[tool]
pub fn confirm(#[elicit(message = "Sure?")] goal: Elicitation<Goal>) -> String {
    format!("{:?}", goal.accepted().map(|g| g.goal))
}

/// Two progress notifications, then the sum.
#[tool]
pub async fn add(a: i64, b: i64, progress: Progress) -> String {
    progress.report(0.0, Some(1.0), Some("start"));
    tokio::time::sleep(Duration::from_millis(20)).await;
    progress.report(1.0, Some(1.0), Some("done"));
    (a + b).to_string()
}

/// Cuts its stream's connection, then answers.
#[tool]
pub async fn cut(#[ctx] cx: RequestContext) -> &'static str {
    tokio::time::sleep(Duration::from_millis(50)).await;
    cx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "after the cut"
}

/// Two progress notifications without waiting, then an answer: finished at dispatch.
#[tool]
pub async fn quick(progress: Progress) -> &'static str {
    progress.report(0.5, Some(1.0), Some("half"));
    progress.report(1.0, Some(1.0), Some("all"));
    "quick"
}

/// Runs until cancelled.
#[tool]
pub async fn forever(#[ctx] cx: RequestContext) -> &'static str {
    cx.cancellation().cancelled().await;
    "cancelled"
}

fn builder() -> mcp_runtime::ServerBuilder {
    Server::builder()
        .state_keys(mcp_runtime::KeyRing::random().unwrap())
        .name("legacy-test")
        .version("1.0.0")
        .instructions("Be brief.")
        .list_changed(true)
        .resource_subscriptions(true)
        .logging(true)
        .tool(review {})
        .tool(confirm {})
        .tool(add {})
        .tool(cut {})
        .tool(forever {})
        .tool(quick {})
        .tool(Tool::new("echo").handler(|_: NoArguments, _cx| async { "echoed" }))
        .tool(Tool::new("nap").handler(|_: NoArguments, _cx| async {
            tokio::time::sleep(Duration::from_millis(30)).await;
            "napped"
        }))
        .resource(
            mcp_runtime::Resource::new("test://doc", "doc").handler(|_cx| async { "the document" }),
        )
}

async fn spawn(server: Server) -> (common::HttpServer, SocketAddr) {
    let http = spawn_http_with(server, HttpOptions::default()).await;
    let addr = http.addr;
    (http, addr)
}

fn base_headers() -> Vec<(String, String)> {
    vec![
        ("Content-Type".into(), "application/json".into()),
        (
            "Accept".into(),
            "application/json, text/event-stream".into(),
        ),
    ]
}

/// A 2025-11-25 session opened over HTTP.
#[derive(Clone)]
struct Session {
    addr: SocketAddr,
    id: String,
    version: String,
    /// The bearer token its requests carry, if any.
    token: Option<String>,
}

impl Session {
    async fn open(addr: SocketAddr, capabilities: Value) -> Session {
        Session::open_as(addr, "2025-11-25", capabilities).await
    }

    async fn open_as(addr: SocketAddr, version: &str, capabilities: Value) -> Session {
        Session::open_with(addr, version, capabilities, None).await
    }

    async fn open_with(
        addr: SocketAddr,
        version: &str,
        capabilities: Value,
        token: Option<&str>,
    ) -> Session {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities,
            "clientInfo": {"name": "legacy-test-client", "version": "1.0.0"}}});
        let mut headers = base_headers();
        if let Some(token) = token {
            headers.push(("Authorization".into(), format!("Bearer {token}")));
        }
        let resp = post(&url(addr), &headers, init.to_string()).await;
        assert_eq!(resp.status, StatusCode::OK, "{}", body_text(&resp));
        let id = resp
            .header("mcp-session-id")
            .expect("a session id")
            .to_owned();
        assert!(id.len() >= 32 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        let answer: Value = serde_json::from_slice(&resp.body).unwrap();
        assert_valid_2025("JSONRPCResultResponse", &answer);
        assert_valid_2025("InitializeResult", &answer["result"]);
        let session = Session {
            addr,
            id,
            version: answer["result"]["protocolVersion"]
                .as_str()
                .unwrap()
                .to_owned(),
            token: token.map(str::to_owned),
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(
            session.post(&initialized).await.status,
            StatusCode::ACCEPTED
        );
        session
    }

    fn headers(&self) -> Vec<(String, String)> {
        let mut h = base_headers();
        h.push(("Mcp-Session-Id".into(), self.id.clone()));
        h.push(("MCP-Protocol-Version".into(), self.version.clone()));
        if let Some(token) = &self.token {
            h.push(("Authorization".into(), format!("Bearer {token}")));
        }
        h
    }

    /// The same session, its requests carrying `token` (the same caller's other token).
    fn with_token(&self, token: &str) -> Session {
        Session {
            addr: self.addr,
            id: self.id.clone(),
            version: self.version.clone(),
            token: Some(token.to_owned()),
        }
    }

    async fn post(&self, body: &Value) -> HttpResponse {
        post(&url(self.addr), &self.headers(), body.to_string()).await
    }

    /// A request's answer (the last message of an SSE answer), checked against the 2025 schema.
    async fn call(&self, id: i64, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let resp = self.post(&body).await;
        assert_eq!(resp.status, StatusCode::OK, "{}", body_text(&resp));
        let answer = resp.messages().pop().expect("an answer");
        assert_eq!(answer["id"], json!(id));
        if answer.get("error").is_some() {
            assert_valid_2025("JSONRPCErrorResponse", &answer);
        } else {
            assert_valid_2025("JSONRPCResultResponse", &answer);
            assert_valid_2025("ServerResult", &answer["result"]);
        }
        answer
    }

    async fn stream(
        &self,
        method: Method,
        body: Option<&Value>,
        extra: &[(&str, &str)],
    ) -> EventStream {
        let mut headers = self.headers();
        for (k, v) in extra {
            headers.push(((*k).to_owned(), (*v).to_owned()));
        }
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        EventStream::open(self.addr, method, &headers, body).await
    }
}

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

fn body_text(resp: &HttpResponse) -> String {
    String::from_utf8_lossy(&resp.body).into_owned()
}

// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_era_of_each_request() {
    let (_http, addr) = spawn(builder().build().unwrap()).await;
    let s = Session::open(addr, json!({})).await;
    // 2026 `_meta` keys on a legacy session: still the session's request.
    let modern_meta = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}});
    let answer = s.call(1, "tools/list", modern_meta.clone()).await;
    assert!(answer["result"].get("resultType").is_none(), "{answer}");
    // The session id alone (no version header) is enough.
    let mut headers = base_headers();
    headers.push(("Mcp-Session-Id".into(), s.id.clone()));
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let resp = post(&url(addr), &headers, ping.to_string()).await;
    assert_eq!(
        serde_json::from_slice::<Value>(&resp.body).unwrap()["result"],
        json!({})
    );
    // A 2026 request, header and body, is served statelessly beside the session.
    let modern = common::request(3, "tools/list", json!({}));
    let resp = post(
        &url(addr),
        &common::headers_for(&modern),
        modern.to_string(),
    )
    .await;
    assert_eq!(response(&resp)["result"]["resultType"], "complete");
    // `initialize` with 2026 `_meta` and headers is the modern path's: not a method there.
    let init = common::request(4, "initialize", json!({}));
    let resp = post(&url(addr), &common::headers_for(&init), init.to_string()).await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    assert_eq!(response(&resp)["error"]["code"], -32601);
    // An unknown version header goes the modern way (-32022 needs `_meta` to match it).
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "v999",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let mut headers = base_headers();
    headers.push(("MCP-Protocol-Version".into(), "v999".into()));
    headers.push(("Mcp-Method".into(), "tools/list".into()));
    let resp = post(&url(addr), &headers, body.to_string()).await;
    assert_eq!(response(&resp)["error"]["code"], -32022);
    // A legacy request without a session.
    let bare = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"});
    let resp = post(&url(addr), &base_headers(), bare.to_string()).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    assert_eq!(response(&resp)["error"]["code"], -32600);
}

fn response(resp: &HttpResponse) -> Value {
    serde_json::from_slice(&resp.body).unwrap_or_else(|_| panic!("JSON: {}", body_text(resp)))
}

#[tokio::test]
async fn a_session_from_initialize_to_delete() {
    let (_http, addr) = spawn(builder().build().unwrap()).await;
    // Versions: the client's when known, else the newest legacy one.
    let old = Session::open_as(addr, "2025-06-18", json!({})).await;
    assert_eq!(old.version, "2025-06-18");
    let future = Session::open_as(addr, "2030-01-01", json!({})).await;
    assert_eq!(future.version, "2025-11-25");

    let s = Session::open(addr, json!({"elicitation": {}})).await;
    // Empty results are exactly `{}`.
    assert_eq!(s.call(1, "ping", json!({})).await["result"], json!({}));
    let level = s
        .call(2, "logging/setLevel", json!({"level": "debug"}))
        .await;
    assert_eq!(level["result"], json!({}));
    let bad = s
        .call(3, "logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    let sub = s
        .call(4, "resources/subscribe", json!({"uri": "test://doc"}))
        .await;
    assert_eq!(sub["result"], json!({}));
    // Results in the 2025-11-25 shape.
    for (id, method, params) in [
        (5, "tools/list", json!({})),
        (6, "resources/list", json!({})),
        (7, "resources/read", json!({"uri": "test://doc"})),
        (8, "tools/call", json!({"name": "echo", "arguments": {}})),
    ] {
        let answer = s.call(id, method, params).await;
        let result = &answer["result"];
        for gone in ["resultType", "ttlMs", "cacheScope", "_meta"] {
            assert!(result.get(gone).is_none(), "{method}: {gone} in {answer}");
        }
    }
    // 2026-only methods are not this session's.
    let discover = s.call(9, "server/discover", json!({})).await;
    assert_eq!(discover["error"]["code"], -32601);
    // DELETE ends it; then it is unknown everywhere.
    let resp = send(Method::DELETE, &url(addr), &s.headers(), "").await;
    assert_eq!(resp.status, StatusCode::OK);
    let resp = s
        .post(&json!({"jsonrpc": "2.0", "id": 10, "method": "ping"}))
        .await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    let resp = send(Method::GET, &url(addr), &s.headers(), "").await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    let resp = send(Method::DELETE, &url(addr), &s.headers(), "").await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    let mut unknown = base_headers();
    unknown.push(("Mcp-Session-Id".into(), "0123456789abcdef".into()));
    let resp = post(
        &url(addr),
        &unknown,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    )
    .await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn idle_sessions_expire_and_the_number_of_sessions_is_bounded() {
    let server = builder()
        .legacy(
            LegacyOptions::new()
                .idle(Duration::from_millis(150))
                .max_sessions(2),
        )
        .build()
        .unwrap();
    let (_http, addr) = spawn(server).await;
    let a = Session::open(addr, json!({})).await;
    let _b = Session::open(addr, json!({})).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let full = post(&url(addr), &base_headers(), init.to_string()).await;
    assert_eq!(
        response(&full)["error"]["code"],
        -32603,
        "{}",
        body_text(&full)
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let resp = a
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    // Idle ones made room.
    let _c = Session::open(addr, json!({})).await;
}

#[tokio::test]
async fn the_get_stream_carries_list_changes_and_subscribed_updates() {
    let server = builder().build().unwrap();
    let (_http, addr) = spawn(server.clone()).await;
    let s = Session::open(addr, json!({})).await;
    s.call(1, "resources/subscribe", json!({"uri": "test://doc"}))
        .await;
    let mut stream = s.stream(Method::GET, None, &[]).await;
    assert_eq!(stream.status, StatusCode::OK);
    // Give the stream a moment to subscribe to the change bus.
    tokio::time::sleep(Duration::from_millis(50)).await;
    server.notify_resource_updated("test://other");
    server.notify_resource_updated("test://doc");
    server
        .set_enabled(PrimitiveKind::Tool, "echo", false)
        .unwrap();
    let first = stream.expect("the update").await;
    assert_eq!(
        first,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://doc"}})
    );
    assert_valid_2025("ServerNotification", &first);
    let second = stream.expect("the list change").await;
    assert_eq!(second["method"], "notifications/tools/list_changed");
    assert_valid_2025("JSONRPCNotification", &second);
}

/// Answers every request the server sends on `stream` until the response comes; what it
/// answered, by method.
async fn answer_all(
    s: &Session,
    stream: &mut EventStream,
    reply: impl Fn(&Value) -> Value,
) -> (Vec<String>, Value) {
    let mut asked = Vec::new();
    loop {
        let message = stream.expect("a request or the response").await;
        if message.get("method").is_some() && message.get("id").is_some() {
            assert_valid_2025("JSONRPCRequest", &message);
            assert_valid_2025("ServerRequest", &message);
            asked.push(message["method"].as_str().unwrap().to_owned());
            let answer = reply(&message);
            let resp = s.post(&answer).await;
            assert_eq!(resp.status, StatusCode::ACCEPTED);
        } else if message.get("method").is_none() {
            return (asked, message);
        }
    }
}

fn result_for(request: &Value) -> Value {
    let result = match request["method"].as_str().unwrap() {
        "roots/list" => json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
        "sampling/createMessage" => json!({"role": "assistant",
            "content": {"type": "text", "text": "late deploys"}, "model": "test-model"}),
        "elicitation/create" => json!({"action": "accept", "content": {"goal": "speed"}}),
        other => panic!("unexpected request {other}"),
    };
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
}

const ALL_INPUTS: &str = r#"{"roots": {}, "sampling": {}, "elicitation": {}}"#;

#[tokio::test]
async fn the_bridge_asks_the_client_and_the_body_runs_once() {
    let (_http, addr) = spawn(builder().build().unwrap()).await;
    let s = Session::open(addr, serde_json::from_str(ALL_INPUTS).unwrap()).await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "review", "arguments": {}}});
    let mut stream = s.stream(Method::POST, Some(&call), &[]).await;
    assert_eq!(stream.status, StatusCode::OK);
    let (mut asked, response) = answer_all(&s, &mut stream, result_for).await;
    asked.sort();
    assert_eq!(
        asked,
        ["elicitation/create", "roots/list", "sampling/createMessage"]
    );
    assert!(stream.retry, "a priming event with retry");
    assert_valid_2025("JSONRPCResultResponse", &response);
    assert_valid_2025("CallToolResult", &response["result"]);
    assert_eq!(
        response["result"]["content"][0]["text"],
        "roots=1 risk=late deploys goal=speed"
    );
    assert_eq!(
        REVIEWS.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the body ran once"
    );
    // Progress reaches a legacy client as it did before: `_meta.progressToken`.
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": "p"}}});
    let mut stream = s.stream(Method::POST, Some(&call), &[]).await;
    for expected in [0.0, 1.0] {
        let n = stream.expect("progress").await;
        assert_valid_2025("ProgressNotification", &n);
        assert_eq!(n["params"]["progressToken"], "p");
        assert_eq!(n["params"]["progress"].as_f64(), Some(expected));
    }
    assert_eq!(
        stream.expect("the sum").await["result"]["content"][0]["text"],
        "3"
    );
}

#[tokio::test]
async fn the_bridge_fails_cleanly() {
    let server = builder()
        .legacy(LegacyOptions::new().input_timeout(Duration::from_millis(200)))
        .build()
        .unwrap();
    let (_http, addr) = spawn(server).await;
    let s = Session::open(addr, serde_json::from_str(ALL_INPUTS).unwrap()).await;
    let confirm = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "confirm", "arguments": {}}})
    };
    // The client never answers: an error once the input timeout is over.
    let mut stream = s.stream(Method::POST, Some(&confirm(1)), &[]).await;
    let asked = stream.expect("the elicitation").await;
    assert_eq!(asked["method"], "elicitation/create");
    let answer = stream.expect("the timeout").await;
    assert_eq!(answer["error"]["code"], -32603);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not answer")
    );
    // The client answers with an error.
    let mut stream = s.stream(Method::POST, Some(&confirm(2)), &[]).await;
    let asked = stream.expect("the elicitation").await;
    let refusal = json!({"jsonrpc": "2.0", "id": asked["id"],
        "error": {"code": -32600, "message": "the user closed the dialog"}});
    assert_eq!(s.post(&refusal).await.status, StatusCode::ACCEPTED);
    let answer = stream.expect("the failure").await;
    assert_eq!(answer["error"]["code"], -32603);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the user closed the dialog")
    );
    // The client cancels: the stream ends without a response.
    let mut stream = s.stream(Method::POST, Some(&confirm(3)), &[]).await;
    stream.expect("the elicitation").await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 3, "reason": "user"}});
    assert_eq!(s.post(&cancel).await.status, StatusCode::ACCEPTED);
    assert_eq!(within("the stream end", stream.next()).await, None);
    // Cancelling a running handler works the same way. (Its answer waits for a first message:
    // a response alone would be JSON, so the stream's head comes once it is cancelled.)
    let forever = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "forever", "arguments": {}}});
    let opening = {
        let s = s.clone();
        tokio::spawn(async move { s.stream(Method::POST, Some(&forever), &[]).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}});
    assert_eq!(s.post(&cancel).await.status, StatusCode::ACCEPTED);
    let mut stream = opening.await.unwrap();
    assert_eq!(within("the stream end", stream.next()).await, None);
    // A client that declared no elicitation is not asked: the modern path's -32021.
    let bare = Session::open(addr, json!({})).await;
    let answer = bare
        .call(5, "tools/call", json!({"name": "confirm", "arguments": {}}))
        .await;
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    // A client that takes JSON only cannot be asked.
    let mut headers = s.headers();
    headers.retain(|(k, _)| k != "Accept");
    headers.push(("Accept".into(), "application/json".into()));
    let resp = post(&url(addr), &headers, confirm(6).to_string()).await;
    let answer = response(&resp);
    assert_eq!(answer["error"]["code"], -32603);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("text/event-stream")
    );
}

#[tokio::test]
async fn a_cut_stream_is_resumed_with_last_event_id() {
    let (_http, addr) = spawn(builder().build().unwrap()).await;
    let s = Session::open(addr, json!({})).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "cut", "arguments": {}}});
    let mut stream = s.stream(Method::POST, Some(&call), &[]).await;
    assert_eq!(
        within("the stream end", stream.next()).await,
        None,
        "cut before the result"
    );
    let last = stream.last_id.clone().expect("the priming event's id");
    let mut resumed = s
        .stream(Method::GET, None, &[("Last-Event-ID", last.as_str())])
        .await;
    let answer = resumed.expect("the result").await;
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["content"][0]["text"], "after the cut");
    assert_eq!(within("the stream end", resumed.next()).await, None);
}

type Lines = tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>;

async fn next_line(reader: &mut Lines) -> Value {
    let line = within("a line", reader.next_line()).await.unwrap().unwrap();
    serde_json::from_str(&line).unwrap()
}

#[tokio::test]
async fn stdio_serves_both_eras() {
    // A 2025-11-25 process: `server/discover` first is answered, then `initialize` opens it.
    let lines = [
        common::request(0, "server/discover", json!({})).to_string(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "c", "version": "1"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "confirm", "arguments": {}}})
        .to_string(),
    ];
    let (mut client, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let server = builder().build().unwrap();
    let serving = tokio::spawn(server.serve_io(read, write));
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    for line in &lines {
        client.write_all(line.as_bytes()).await.unwrap();
        client.write_all(b"\n").await.unwrap();
    }
    let (reader, mut writer) = tokio::io::split(client);
    let mut reader = tokio::io::BufReader::new(reader).lines();
    // Requests run concurrently: answers come in any order.
    let mut by_id = std::collections::HashMap::new();
    while by_id.len() < 4 {
        let line = next_line(&mut reader).await;
        by_id.insert(line["id"].to_string(), line);
    }
    assert_eq!(by_id["0"]["result"]["resultType"], "complete");
    assert_valid_2025("InitializeResult", &by_id["1"]["result"]);
    assert_eq!(by_id["2"], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    let asked = by_id
        .values()
        .find(|m| m.get("method").is_some())
        .expect("the elicitation")
        .clone();
    assert_eq!(asked["method"], "elicitation/create");
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
        "result": {"action": "accept", "content": {"goal": "safety"}}});
    writer
        .write_all(format!("{answer}\n").as_bytes())
        .await
        .unwrap();
    let done = next_line(&mut reader).await;
    assert_eq!(done["id"], 3);
    assert_eq!(done["result"]["content"][0]["text"], "Some(\"safety\")");
    drop(writer);
    drop(reader);
    let _ = within("the server ends", serving).await;

    // A 2026-07-28 process: its first request decides; `initialize` later is not a method.
    let (mut client, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let serving = tokio::spawn(builder().build().unwrap().serve_io(read, write));
    let lines = [
        common::request(1, "tools/list", json!({})).to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}})
        .to_string(),
    ];
    for line in &lines {
        client.write_all(line.as_bytes()).await.unwrap();
        client.write_all(b"\n").await.unwrap();
    }
    let (reader, writer) = tokio::io::split(client);
    let mut reader = tokio::io::BufReader::new(reader).lines();
    let list = next_line(&mut reader).await;
    assert_eq!(list["result"]["resultType"], "complete");
    let init = next_line(&mut reader).await;
    assert_eq!(init["id"], 2);
    assert!(
        init["error"]["code"] == -32602 || init["error"]["code"] == -32601,
        "{init}"
    );
    drop(writer);
    drop(reader);
    let _ = within("the server ends", serving).await;
}

#[tokio::test]
async fn a_modern_only_server_answers_initialize_with_its_version() {
    let (_http, addr) = spawn(builder().legacy(LegacyOptions::off()).build().unwrap()).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let resp = post(&url(addr), &base_headers(), init.to_string()).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    let answer = response(&resp);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2026-07-28")
    );
    let get = send(
        Method::GET,
        &url(addr),
        &[("Mcp-Session-Id".into(), "x".into())],
        "",
    )
    .await;
    assert_eq!(get.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn subscriptions_are_bounded_in_uri_length_and_in_number() {
    let (_http, addr) = spawn(builder().build().unwrap()).await;
    let s = Session::open(addr, json!({})).await;
    // A URI longer than the server's string limit (8 KiB by default).
    let long = format!("test://{}", "x".repeat(8 * 1024));
    let answer = s.call(1, "resources/subscribe", json!({"uri": long})).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("8199 bytes long"), "{message}");
    assert!(message.contains("8192"), "{message}");
    // 256 distinct URIs; subscribing again to one of them counts once.
    for i in 0..256 {
        let uri = format!("test://many/{i}");
        let answer = s
            .call(10 + i, "resources/subscribe", json!({"uri": uri}))
            .await;
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
    let again = json!({"uri": "test://many/0"});
    let answer = s.call(300, "resources/subscribe", again).await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    // The 257th is refused until the client unsubscribes from one.
    let one_more = json!({"uri": "test://many/256"});
    let answer = s.call(301, "resources/subscribe", one_more.clone()).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "Invalid params: this session already has as many resource subscriptions as it may (256 URIs, 65536 bytes of them together); unsubscribe from one first"
    );
    let gone = json!({"uri": "test://many/7"});
    let answer = s.call(302, "resources/unsubscribe", gone).await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    let answer = s.call(303, "resources/subscribe", one_more).await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    // Another session has its own 256.
    let other = Session::open(addr, json!({})).await;
    let answer = other
        .call(1, "resources/subscribe", json!({"uri": "test://many/300"}))
        .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    // Few but long URIs: at most 64 KiB of them together (eight of 8,000 bytes fit, a ninth
    // does not).
    let long = Session::open(addr, json!({})).await;
    for i in 0..9 {
        let uri = format!("test://{i}/{}", "x".repeat(8_000 - 9));
        let answer = long
            .call(10 + i, "resources/subscribe", json!({"uri": uri}))
            .await;
        match i {
            8 => assert_eq!(answer["error"]["code"], -32602, "{answer}"),
            _ => assert_eq!(answer["result"], json!({}), "{answer}"),
        }
    }
}

/// `builder()` with a resource that needs the scope `secret`, behind bearer tokens: `wide`
/// (sam, with `secret`) and `narrow` (sam, without).
async fn spawn_protected() -> (common::HttpServer, Server) {
    use mcp_runtime::auth::{ResourceServer, TokenError, verifier_fn};
    let verifier = verifier_fn(|token: String| async move {
        match token.as_str() {
            "wide" => Ok(mcp_runtime::Caller::new("sam").with_scopes(["secret"])),
            "narrow" => Ok(mcp_runtime::Caller::new("sam")),
            // The same subject, vouched for by another issuer: another caller.
            "elsewhere" => Ok(mcp_runtime::Caller::new("sam")
                .with_issuer("https://other.example.com")
                .with_scopes(["secret"])),
            _ => Err(TokenError::invalid("unknown token")),
        }
    });
    let rs =
        ResourceServer::new("http://127.0.0.1/mcp", "https://auth.example.com", verifier).unwrap();
    let server = builder()
        .resource(
            mcp_runtime::Resource::new("test://secret", "secret")
                .scopes(["secret"])
                .handler(|_cx| async { "the secret" }),
        )
        .build()
        .unwrap();
    let http = spawn_http_with(server.clone(), HttpOptions::default().auth(rs)).await;
    (http, server)
}

#[tokio::test]
async fn a_session_is_its_callers_issuer_and_subject_not_the_subject_alone() {
    let (http, _server) = spawn_protected().await;
    let mine = Session::open_with(http.addr, "2025-11-25", json!({}), Some("narrow")).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(mine.post(&ping).await.status, StatusCode::OK);
    let theirs = mine.with_token("elsewhere");
    let resp = theirs.post(&ping).await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND, "{}", body_text(&resp));
}

#[tokio::test]
async fn subscribing_needs_what_reading_needs() {
    let (http, _server) = spawn_protected().await;
    let narrow = Session::open_with(http.addr, "2025-11-25", json!({}), Some("narrow")).await;
    let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
        "params": {"uri": "test://secret"}});
    let read = narrow.post(&read).await;
    assert_eq!(read.status, StatusCode::FORBIDDEN, "{}", body_text(&read));
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
        "params": {"uri": "test://secret"}});
    let refused = narrow.post(&subscribe).await;
    // Refused exactly as the read: status, challenge, code and required scopes.
    assert_eq!(refused.status, read.status, "{}", body_text(&refused));
    assert_eq!(
        refused.header("www-authenticate"),
        read.header("www-authenticate")
    );
    let (read, refused) = (response(&read), response(&refused));
    assert_eq!(refused["id"], 1);
    assert_eq!(refused["error"]["code"], -32602);
    assert_eq!(refused["error"]["code"], read["error"]["code"]);
    assert_eq!(
        refused["error"]["data"],
        json!({"requiredScopes": ["secret"]})
    );
    assert_eq!(refused["error"]["data"], read["error"]["data"]);
    assert_valid_2025("JSONRPCErrorResponse", &refused);
    // What needs no scope, and what the caller's scopes allow, are subscribed to.
    let answer = narrow
        .call(2, "resources/subscribe", json!({"uri": "test://doc"}))
        .await;
    assert_eq!(answer["result"], json!({}));
    // Unsubscribing needs nothing.
    let answer = narrow
        .call(3, "resources/unsubscribe", json!({"uri": "test://secret"}))
        .await;
    assert_eq!(answer["result"], json!({}));
    let wide = narrow.with_token("wide");
    let answer = wide
        .call(4, "resources/subscribe", json!({"uri": "test://secret"}))
        .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
}

#[tokio::test]
async fn updates_reach_only_a_caller_that_may_read_the_resource() {
    let (http, server) = spawn_protected().await;
    let wide = Session::open_with(http.addr, "2025-11-25", json!({}), Some("wide")).await;
    for (id, uri) in [(1, "test://secret"), (2, "test://doc")] {
        let answer = wide
            .call(id, "resources/subscribe", json!({"uri": uri}))
            .await;
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
    // The same caller, its token no longer granting `secret`: no update of the secret.
    let narrow = wide.with_token("narrow");
    let mut stream = narrow.stream(Method::GET, None, &[]).await;
    assert_eq!(stream.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(50)).await;
    server.notify_resource_updated("test://secret");
    server.notify_resource_updated("test://doc");
    let first = stream.expect("the update of the document").await;
    assert_eq!(first["method"], "notifications/resources/updated");
    assert_eq!(first["params"]["uri"], "test://doc", "{first}");
    drop(stream);
    // With the scope again, updates of the secret arrive.
    let mut stream = wide.stream(Method::GET, None, &[]).await;
    assert_eq!(stream.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(50)).await;
    server.notify_resource_updated("test://secret");
    let first = stream.expect("the update of the secret").await;
    assert_eq!(first["params"]["uri"], "test://secret", "{first}");
    assert_valid_2025("ServerNotification", &first);
}

fn assert_quick_progress(messages: &[Value], id: i64) {
    assert_eq!(messages.len(), 3, "{messages:?}");
    for (n, expected) in messages.iter().zip([0.5, 1.0]) {
        assert_eq!(n["method"], "notifications/progress", "{n}");
        assert_eq!(n["params"]["progressToken"], "p");
        assert_eq!(n["params"]["progress"].as_f64(), Some(expected));
    }
    assert_eq!(messages[2]["id"], id);
    assert_eq!(messages[2]["result"]["content"][0]["text"], "quick");
}

#[tokio::test]
async fn progress_of_a_call_answered_at_once_comes_before_its_result() {
    let (_http, addr) = spawn(builder().build().unwrap()).await;
    let s = Session::open(addr, json!({})).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "quick", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let resp = s.post(&call).await;
    assert_eq!(resp.status, StatusCode::OK, "{}", body_text(&resp));
    assert_eq!(resp.content_type(), "text/event-stream");
    let messages = resp.messages();
    for n in &messages[..2] {
        assert_valid_2025("ProgressNotification", n);
    }
    assert_valid_2025("CallToolResult", &messages[2]["result"]);
    assert_quick_progress(&messages, 1);
    // As a 2026 client gets them.
    let mut meta = common::meta();
    meta["progressToken"] = json!("p");
    let modern = common::request(
        2,
        "tools/call",
        json!({"name": "quick", "arguments": {}, "_meta": meta}),
    );
    let resp = post(
        &url(addr),
        &common::headers_for(&modern),
        modern.to_string(),
    )
    .await;
    assert_quick_progress(&resp.messages(), 2);
    // A client that takes JSON only gets the result alone (as on 2026).
    let mut headers = s.headers();
    headers.retain(|(k, _)| k != "Accept");
    headers.push(("Accept".into(), "application/json".into()));
    let resp = post(&url(addr), &headers, call.to_string()).await;
    assert_eq!(resp.content_type(), "application/json");
    assert_eq!(response(&resp)["result"]["content"][0]["text"], "quick");
    // On stdio: lines, in the same order.
    let (mut client, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let serving = tokio::spawn(builder().build().unwrap().serve_io(read, write));
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for line in [&init, &initialized, &call] {
        client.write_all(line.to_string().as_bytes()).await.unwrap();
        client.write_all(b"\n").await.unwrap();
    }
    let (reader, writer) = tokio::io::split(client);
    let mut reader = tokio::io::BufReader::new(reader).lines();
    assert_eq!(next_line(&mut reader).await["id"], 0);
    let mut lines = Vec::new();
    for _ in 0..3 {
        lines.push(next_line(&mut reader).await);
    }
    assert_quick_progress(&lines, 1);
    drop(writer);
    drop(reader);
    let _ = within("the server ends", serving).await;
}

/// Publishes more changes than a bus of capacity 1 holds, before any session stream can read
/// them (the test's runtime runs no other task meanwhile): every stream lags. The changes are
/// of a resource no session subscribed to, so the one read after the lag adds nothing.
fn lag(server: &Server) {
    for _ in 0..4 {
        server.notify_resource_updated("test://other");
    }
}

/// What a session subscribed to `test://doc` gets once it lagged: each list change the server
/// advertises (tools and resources: it has no prompts), then an update of the document.
fn resync() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://doc"}}),
    ]
}

fn updated_doc() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://doc"}})
}

#[tokio::test]
async fn a_session_stream_that_lagged_resyncs_over_http() {
    let server = builder()
        .change_bus(mcp_runtime::LocalBus::new(1))
        .build()
        .unwrap();
    let (_http, addr) = spawn(server.clone()).await;
    let s = Session::open(addr, json!({})).await;
    s.call(1, "resources/subscribe", json!({"uri": "test://doc"}))
        .await;
    let mut stream = s.stream(Method::GET, None, &[]).await;
    assert_eq!(stream.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(50)).await;
    lag(&server);
    let mut got = Vec::new();
    for _ in 0..resync().len() {
        let n = stream.expect("a notification of the resync").await;
        assert_valid_2025("ServerNotification", &n);
        got.push(n);
    }
    assert_eq!(got, resync());
    // Nothing else came of the lag: the next message is the next change.
    server.notify_resource_updated("test://doc");
    assert_eq!(stream.expect("the update").await, updated_doc());
}

#[tokio::test]
async fn a_session_that_lagged_resyncs_over_stdio() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let server = builder()
        .change_bus(mcp_runtime::LocalBus::new(1))
        .build()
        .unwrap();
    let (client, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let serving = tokio::spawn(server.clone().serve_io(read, write));
    let (reader, mut writer) = tokio::io::split(client);
    let mut reader = tokio::io::BufReader::new(reader).lines();
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
            "params": {"uri": "test://doc"}}),
    ];
    for line in &lines {
        writer
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }
    assert_eq!(next_line(&mut reader).await["id"], 1);
    let subscribed = next_line(&mut reader).await;
    assert_eq!(subscribed, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    lag(&server);
    let mut got = Vec::new();
    for _ in 0..resync().len() {
        got.push(next_line(&mut reader).await);
    }
    assert_eq!(got, resync());
    server.notify_resource_updated("test://doc");
    assert_eq!(next_line(&mut reader).await, updated_doc());
    drop(writer);
    drop(reader);
    let _ = within("the server ends", serving).await;
}

/// A call that sends nothing before its result is answered as one JSON body (one write, no
/// SSE framing), in every older revision, when the client takes JSON; one that streams
/// progress first is an SSE stream.
#[tokio::test]
async fn a_call_that_streams_nothing_is_answered_with_json() {
    let (_http, addr) = spawn(builder().build().unwrap()).await;
    for version in ["2025-11-25", "2025-06-18", "2024-11-05"] {
        let s = Session::open_as(addr, version, json!({})).await;
        let nap = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "nap", "arguments": {}}});
        let resp = s.post(&nap).await;
        assert_eq!(resp.status, StatusCode::OK, "{version}");
        assert_eq!(resp.content_type(), "application/json", "{version}");
        assert_eq!(
            resp.json()["result"]["content"][0]["text"],
            "napped",
            "{version}"
        );
        let add = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": "p"}}});
        let resp = s.post(&add).await;
        assert_eq!(resp.content_type(), "text/event-stream", "{version}");
        let messages = resp.messages();
        assert_eq!(messages[0]["method"], "notifications/progress", "{version}");
        assert_eq!(
            messages.last().unwrap()["result"]["content"][0]["text"],
            "3"
        );
    }
}

/// `resources/subscribe` asks the resource's custom check (and the server's), as
/// `resources/read` does: a refused caller is told why and gets no updates.
#[tokio::test]
async fn subscribing_asks_the_resources_custom_check() {
    use mcp_runtime::auth::{AccessCheck, Denied};
    let server = builder()
        .resource(
            mcp_runtime::Resource::new("notes://vault", "vault")
                .authorize(AccessCheck::new(|_| async {
                    Err(Denied::new("the vault is for its owners"))
                }))
                .handler(|_| async { "v" }),
        )
        .build()
        .unwrap();
    let (_http, addr) = spawn(server).await;
    let s = Session::open(addr, json!({})).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
        "params": {"uri": "notes://vault"}});
    let resp = s.post(&body).await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    let refused = resp.json();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the vault is for its owners"),
        "{refused}"
    );
}
