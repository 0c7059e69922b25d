//! The limits of `Limits` and `HttpOptions` over real HTTP, each at its documented default or a
//! small configured value: nesting depth, string lengths, requests and listen streams at once,
//! the per-request timeout, rounds of client input, the per-caller rate limit, the time a request
//! head may take. And a server that
//! stays up: a panicking or hanging handler does not block other requests, and graceful shutdown
//! lets requests in flight finish within a bound and ends listen streams with their final result.

use crate::common;
use common::*;
use http::StatusCode;
use mcp_runtime::dispatch::Outgoing;
use mcp_runtime::protocol::{Method, TASKS_EXTENSION};
use mcp_runtime::{
    Ask, Completer, Elicitation, FromContext, HttpOptions, Limits, McpError, NoArguments, Prompt,
    ResourceTemplate, Rounds, Server, Skills, Step, TaskSupport, Tool, handler::IntoToolResult,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// A server whose `wait` tool holds until `gate` gives a permit, and whose `hang` tool never
/// ends.
fn server(limits: Limits, gate: Arc<Semaphore>) -> Server {
    Server::builder()
        .limits(limits)
        .list_changed(true)
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .tool(Tool::new("wait").handler(move |_: NoArguments, _cx| {
            let gate = gate.clone();
            async move {
                let _permit = gate.acquire().await;
                "waited"
            }
        }))
        .tool(Tool::new("hang").handler(|_: NoArguments, _cx| async {
            std::future::pending::<()>().await;
            "never"
        }))
        .tool(Tool::new("boom").handler(|_: NoArguments, _cx| async {
            if true {
                panic!("the handler blew up");
            }
            "unreachable"
        }))
        .tool(Tool::new("ask_twice").raw_handler(|call| async move {
            let rounds = Rounds::from_context(&call.context)?;
            let step: u32 = rounds.state()?.unwrap_or(0);
            let out: Result<Step<String>, McpError> = match step {
                0 => rounds.ask(Ask::new().elicit::<String>("a", "First?"), &1u32),
                1 => rounds.ask(Ask::new().elicit::<String>("b", "Second?"), &2u32),
                _ => Ok(Step::Done(format!(
                    "{:?}",
                    rounds.answer::<Elicitation<String>>("b")?
                ))),
            };
            out?.into_tool_result()
        }))
        .state_keys(mcp_runtime::KeyRing::new(&[[5; 32]]).unwrap())
        .build()
        .unwrap()
}

fn tool_call(name: &str) -> Value {
    request(1, "tools/call", json!({"name": name, "arguments": {}}))
}

async fn post_json(url: &str, body: &Value) -> HttpResponse {
    post(url, &headers_for(body), serde_json::to_vec(body).unwrap()).await
}

#[tokio::test]
async fn deep_nesting_and_long_strings_are_refused_before_anything_runs() {
    let limits = Limits::default().depth(64);
    let http = spawn_http(server(limits, Arc::new(Semaphore::new(0)))).await;
    let deep = format!("{}1{}", "[".repeat(65), "]".repeat(65));
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ping","arguments":{{"x":{deep}}},"_meta":{}}}}}"#,
        meta()
    );
    let headers = headers_for(&tool_call("ping"));
    let resp = post(&http.url(), &headers, text.clone()).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    // The envelope is readable: its params are what is invalid, and the id is answered.
    assert_eq!(response_of(&resp)["error"]["code"], -32602);
    assert_eq!(response_of(&resp)["id"], 1);

    let long = "x".repeat(9000);
    let call = request(1, "tools/call", json!({"name": long, "arguments": {}}));
    let headers = with_header(headers_for(&call), "Mcp-Name", "x");
    let resp = post(&http.url(), &headers, serde_json::to_vec(&call).unwrap()).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    let error = &response_of(&resp)["error"];
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("8192"),
        "{error}"
    );
    let id = request("i".repeat(9000), "tools/list", json!({}));
    let resp = post_json(&http.url(), &id).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);

    // Right after: a normal request.
    let resp = post_json(&http.url(), &tool_call("ping")).await;
    assert_eq!(response_of(&resp)["result"]["content"][0]["text"], "pong");

    // At the default (128), a deeper argument is refused too, whatever carries it.
    let http = spawn_http(server(Limits::default(), Arc::new(Semaphore::new(0)))).await;
    let deeper = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ping","arguments":{{"x":{deeper}}},"_meta":{}}}}}"#,
        meta()
    );
    let resp = post(&http.url(), &headers_for(&tool_call("ping")), text).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    assert_eq!(response_of(&resp)["error"]["code"], -32602);
    // A body that is nothing but nesting has no readable envelope: `-32600`, no id.
    let resp = post(&http.url(), &headers_for(&tool_call("ping")), deeper).await;
    assert_eq!(response_of(&resp)["error"]["code"], -32600);
    assert!(response_of(&resp).get("id").is_none());
    let resp = post_json(&http.url(), &tool_call("ping")).await;
    assert_eq!(resp.status, StatusCode::OK);
}

/// A server that serves every method of the table: tools (one of them a task tool), a template
/// and a prompt with completions, skills, listen streams.
fn every_method_server() -> Server {
    let skills =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/everything/skills");
    Server::builder()
        .list_changed(true)
        .resource_subscriptions(true)
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .tool(
            Tool::new("later")
                .task(TaskSupport::Optional)
                .handler(|_: NoArguments, _cx| async { "later" }),
        )
        .resource_template(
            ResourceTemplate::new("file:///{path}", "file")
                .complete("path", Completer::from_values(["a.txt"]))
                .handler(|read| async move { format!("file {}", read.variables["path"]) }),
        )
        .prompt(
            Prompt::new("greet")
                .argument("name", None, false)
                .complete("name", Completer::from_values(["Ada"]))
                .handler(|_get| async { "Say hello." }),
        )
        .skills(Skills::dir(skills))
        .build()
        .expect("the server builds")
}

/// The standard `_meta`, declaring the tasks extension too (so that `tasks/*` are served).
fn tasks_meta() -> Value {
    let mut meta = meta();
    meta["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {TASKS_EXTENSION: {}}});
    meta
}

/// For each string member `method`'s params name things with: its name in the length error,
/// and params with that member set to `s` (the others valid). A method added to the table
/// fails here until its strings are listed.
fn each_string(method: Method, s: &str) -> Vec<(&'static str, Value)> {
    let greet = json!({"type": "ref/prompt", "name": "greet"});
    let name = json!({"name": "name", "value": "A"});
    match method {
        Method::Discover => vec![],
        Method::ToolsList
        | Method::ResourcesList
        | Method::ResourceTemplatesList
        | Method::PromptsList
        | Method::SkillsList => vec![("cursor", json!({"cursor": s}))],
        Method::ToolsCall => vec![("tool name", json!({"name": s, "arguments": {}}))],
        Method::ResourcesRead => vec![("resource URI", json!({"uri": s}))],
        Method::PromptsGet => vec![("prompt name", json!({"name": s}))],
        Method::Complete => vec![
            (
                "prompt name",
                json!({"ref": {"type": "ref/prompt", "name": s}, "argument": name}),
            ),
            (
                "prompt title",
                json!({"ref": {"type": "ref/prompt", "name": "greet", "title": s}, "argument": name}),
            ),
            (
                "resource template URI",
                json!({"ref": {"type": "ref/resource", "uri": s},
                       "argument": {"name": "path", "value": "a"}}),
            ),
            (
                "argument name",
                json!({"ref": greet, "argument": {"name": s, "value": "A"}}),
            ),
            (
                "completion value",
                json!({"ref": greet, "argument": {"name": "name", "value": s}}),
            ),
        ],
        Method::Listen => vec![
            (
                "resource URI in `resourceSubscriptions`",
                json!({"notifications": {"resourceSubscriptions": ["file:///a.txt", s]}}),
            ),
            (
                "task id in `taskIds`",
                json!({"notifications": {"taskIds": [s]}}),
            ),
        ],
        Method::SkillsGet => vec![("skill URI", json!({"uri": s}))],
        Method::ResourcesDirectoryRead => vec![
            ("directory URI", json!({"uri": s})),
            ("cursor", json!({"uri": "skill://acme", "cursor": s})),
        ],
        Method::TasksGet | Method::TasksCancel => vec![("task id", json!({"taskId": s}))],
        Method::TasksUpdate => vec![("task id", json!({"taskId": s, "inputResponses": {}}))],
        other => panic!("`{other}` is new to the method table: list its params' strings here"),
    }
}

#[tokio::test]
async fn every_string_a_method_names_things_with_is_refused_past_the_limit() {
    let http = spawn_http(every_method_server()).await;
    let long = "x".repeat(8 * 1024 + 1);
    let mut refused = Vec::new();
    for &method in Method::ALL {
        for (what, mut params) in each_string(method, &long) {
            params["_meta"] = tasks_meta();
            let body = request(1, method.name(), params);
            let resp = post_json(&http.url(), &body).await;
            let error = &response_of(&resp)["error"];
            assert_eq!(
                resp.status,
                StatusCode::BAD_REQUEST,
                "{method}, {what}: {error}"
            );
            assert_eq!(error["code"], -32602, "{method}, {what}: {error}");
            assert_eq!(
                error["message"],
                format!(
                    "Invalid params: the {what} is 8193 bytes long, more than the 8192 this server takes"
                ),
                "{method}"
            );
            refused.push(method);
        }
    }
    // Each method but `server/discover` (no params) has at least one.
    for &method in Method::ALL {
        assert_eq!(
            refused.contains(&method),
            method != Method::Discover,
            "{method}"
        );
    }
}

#[tokio::test]
async fn strings_exactly_at_the_limit_reach_their_method() {
    let server = every_method_server();
    let exact = "x".repeat(8 * 1024);
    for &method in Method::ALL {
        for (what, mut params) in each_string(method, &exact) {
            params["_meta"] = tasks_meta();
            // The id at the limit too.
            let body = request(exact.clone(), method.name(), params);
            let mut call = server
                .handle_message(body.to_string().as_bytes(), None)
                .expect("a request is answered");
            // The first message: a listen stream's acknowledgement, or the method's answer.
            let first = within(what, call.next_message()).await;
            let response = match first {
                Some(Outgoing::Notification(_)) if method == Method::Listen => continue,
                Some(Outgoing::Response(response)) => response,
                other => panic!("{method}, {what}: {other:?}"),
            };
            let answer: Value = serde_json::from_slice(&response.body).unwrap();
            let Some(error) = answer.get("error") else {
                continue;
            };
            // Refused, if at all, by the method itself: it is known, advertised and reached.
            assert!(
                !error["message"].as_str().unwrap().contains("bytes long"),
                "{method}, {what}: {error}"
            );
            assert!(
                ![-32601, -32021].contains(&error["code"].as_i64().unwrap()),
                "{method}, {what}: {error}"
            );
        }
    }
}

#[tokio::test]
async fn requests_over_the_concurrency_limit_get_503_and_retry_after() {
    let gate = Arc::new(Semaphore::new(0));
    let limits = Limits::default().concurrent_requests(2);
    let http = spawn_http(server(limits, gate.clone())).await;
    let url = http.url();
    let waiting: Vec<_> = (0..2)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { post_json(&url, &tool_call("wait")).await })
        })
        .collect();
    // Until both are running, a third may still get in: wait for the limit to be reached.
    let mut busy = None;
    for _ in 0..100 {
        let resp = post_json(&url, &tool_call("ping")).await;
        if resp.status == StatusCode::SERVICE_UNAVAILABLE {
            busy = Some(resp);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let busy = busy.expect("a third request is refused while two run");
    assert_eq!(busy.header("retry-after"), Some("1"));
    let error = &response_of(&busy)["error"];
    assert_eq!(error["code"], -32603);
    assert!(error["message"].as_str().unwrap().contains("busy"));
    gate.add_permits(2);
    for w in waiting {
        let resp = w.await.unwrap();
        assert_eq!(response_of(&resp)["result"]["content"][0]["text"], "waited");
    }
    let resp = post_json(&url, &tool_call("ping")).await;
    assert_eq!(resp.status, StatusCode::OK);
}

#[tokio::test]
async fn listen_streams_over_their_limit_get_503() {
    let limits = Limits::default().listen_streams(1);
    let server = server(limits, Arc::new(Semaphore::new(0)));
    let http = spawn_http(server.clone()).await;
    let listen = request(
        1,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let url = http.url();
    let first = {
        let (url, listen) = (url.clone(), listen.clone());
        tokio::spawn(async move { post_json(&url, &listen).await })
    };
    let mut refused = None;
    for _ in 0..100 {
        let resp = post_json(&url, &listen).await;
        if resp.status == StatusCode::SERVICE_UNAVAILABLE {
            refused = Some(resp);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let refused = refused.expect("a second listen stream is refused");
    assert!(
        response_of(&refused)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("listen streams")
    );
    // Shutting the server down ends the open stream with its final result.
    server.shutdown();
    let resp = within("the listen stream ends", first).await.unwrap();
    let last = response_of(&resp);
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
}

#[tokio::test]
async fn a_hanging_handler_times_out_without_blocking_others() {
    let limits = Limits::default().request_timeout(Some(Duration::from_millis(300)));
    let http = spawn_http(server(limits, Arc::new(Semaphore::new(0)))).await;
    let url = http.url();
    let hung = {
        let url = url.clone();
        tokio::spawn(async move { post_json(&url, &tool_call("hang")).await })
    };
    // Meanwhile others are served, and a panicking handler answers like a failing one.
    for _ in 0..5 {
        let resp = post_json(&url, &tool_call("ping")).await;
        assert_eq!(response_of(&resp)["result"]["content"][0]["text"], "pong");
    }
    let resp = post_json(&url, &tool_call("boom")).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_eq!(response_of(&resp)["result"]["isError"], true);
    let resp = hung.await.unwrap();
    let error = &response_of(&resp)["error"];
    assert_eq!(error["code"], -32603);
    assert!(error["message"].as_str().unwrap().contains("timed out"));
    let resp = post_json(&url, &tool_call("ping")).await;
    assert_eq!(resp.status, StatusCode::OK);
}

#[tokio::test]
async fn rounds_of_client_input_are_limited() {
    let limits = Limits::default().rounds(1);
    let http = spawn_http(server(limits, Arc::new(Semaphore::new(0)))).await;
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let first = request(
        1,
        "tools/call",
        json!({"name": "ask_twice", "_meta": m.clone()}),
    );
    let r1 = response_of(&post_json(&http.url(), &first).await);
    assert_eq!(r1["result"]["resultType"], "input_required");
    let second = request(
        2,
        "tools/call",
        json!({"name": "ask_twice", "_meta": m, "requestState": r1["result"]["requestState"],
               "inputResponses": {"a": {"action": "accept", "content": {"value": "x"}}}}),
    );
    let r2 = response_of(&post_json(&http.url(), &second).await);
    assert_eq!(r2["error"]["code"], -32602, "{r2}");
    assert!(
        r2["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1 rounds")
    );
}

#[tokio::test]
async fn callers_over_the_rate_limit_get_429_and_retry_after() {
    let options = HttpOptions::default().rate_limit(3, Duration::from_secs(60));
    let http = spawn_http_with(
        server(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    for _ in 0..3 {
        let resp = post_json(&http.url(), &tool_call("ping")).await;
        assert_eq!(resp.status, StatusCode::OK);
    }
    let resp = post_json(&http.url(), &tool_call("ping")).await;
    assert_eq!(resp.status, StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = resp.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=20).contains(&wait), "{wait}");
}

#[tokio::test]
async fn graceful_shutdown_finishes_requests_in_flight_within_a_bound() {
    let gate = Arc::new(Semaphore::new(0));
    let server = server(Limits::default(), gate.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let grace = Duration::from_millis(800);
    let options = HttpOptions::default().shutdown_grace(grace);
    let serving = tokio::spawn(server.serve_until(listener, options, async move {
        let _ = stopped.await;
    }));
    let slow = {
        let url = url.clone();
        tokio::spawn(async move { post_json(&url, &tool_call("wait")).await })
    };
    let listen = {
        let url = url.clone();
        let body = request(9, "subscriptions/listen", json!({"notifications": {}}));
        tokio::spawn(async move { post_json(&url, &body).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let at = Instant::now();
    stop.send(()).unwrap();
    // The request in flight finishes after the signal, within the grace period.
    tokio::time::sleep(Duration::from_millis(100)).await;
    gate.add_permits(1);
    let resp = within("the slow request", slow).await.unwrap();
    assert_eq!(response_of(&resp)["result"]["content"][0]["text"], "waited");
    let resp = within("the listen stream", listen).await.unwrap();
    assert_eq!(response_of(&resp)["result"]["resultType"], "complete");
    within("serve returns", serving).await.unwrap().unwrap();
    assert!(
        at.elapsed() < grace,
        "returned once nothing was left running"
    );
}

#[tokio::test]
async fn graceful_shutdown_does_not_wait_past_its_bound_for_a_hung_handler() {
    let server = server(
        Limits::default().request_timeout(None),
        Arc::new(Semaphore::new(0)),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let grace = Duration::from_millis(300);
    let options = HttpOptions::default().shutdown_grace(grace);
    let serving = tokio::spawn(server.serve_until(listener, options, async move {
        let _ = stopped.await;
    }));
    let _hung = {
        let url = url.clone();
        tokio::spawn(async move { post_json(&url, &tool_call("hang")).await })
    };
    tokio::time::sleep(Duration::from_millis(150)).await;
    let at = Instant::now();
    stop.send(()).unwrap();
    within("serve returns", serving).await.unwrap().unwrap();
    let took = at.elapsed();
    assert!(took >= grace, "waited for the grace period ({took:?})");
    assert!(
        took < grace + Duration::from_secs(2),
        "not much longer ({took:?})"
    );
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_gets_408() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let options = HttpOptions::default().body_timeout(Duration::from_millis(300));
    let http = spawn_http_with(
        server(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    let mut s = tokio::net::TcpStream::connect(http.addr).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":";
    s.write_all(head.as_bytes()).await.unwrap();
    let at = Instant::now();
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while !String::from_utf8_lossy(&answer).contains("\r\n\r\n") {
        let n = within("the 408", s.read(&mut buf)).await.unwrap();
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(at.elapsed() >= Duration::from_millis(250));
    // The server goes on.
    let resp = post_json(&http.url(), &tool_call("ping")).await;
    assert_eq!(resp.status, StatusCode::OK);
}

/// Reads `s` until the server closes it; what it sent before, and whether it closed (rather
/// than the wait running out).
async fn read_until_closed(s: &mut tokio::net::TcpStream, wait: Duration) -> (String, bool) {
    use tokio::io::AsyncReadExt;
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    let closed = tokio::time::timeout(wait, async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .is_ok();
    (String::from_utf8_lossy(&seen).into_owned(), closed)
}

#[tokio::test]
async fn a_request_head_that_does_not_arrive_in_time_closes_the_connection() {
    use tokio::io::AsyncWriteExt;
    let options = HttpOptions::default().head_timeout(Some(Duration::from_millis(300)));
    let http = spawn_http_with(
        server(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    // A head that stops halfway.
    let mut s = tokio::net::TcpStream::connect(http.addr).await.unwrap();
    s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let at = Instant::now();
    let (answer, closed) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(closed, "the connection was left open: {answer:?}");
    assert!(
        at.elapsed() >= Duration::from_millis(250),
        "{:?}",
        at.elapsed()
    );
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    // A connection that sends nothing at all.
    let mut quiet = tokio::net::TcpStream::connect(http.addr).await.unwrap();
    let (_, closed) = read_until_closed(&mut quiet, Duration::from_secs(5)).await;
    assert!(closed, "a silent connection was left open");
    // The server goes on, and an answered keep-alive connection is closed once idle as long.
    let mut kept = tokio::net::TcpStream::connect(http.addr).await.unwrap();
    kept.write_all(&raw_post(&tool_call("ping"))).await.unwrap();
    let (answer, closed) = read_until_closed(&mut kept, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("pong"), "{answer}");
    assert!(closed, "the idle keep-alive connection was left open");
}

#[tokio::test]
async fn a_listen_stream_outlives_the_head_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let options = HttpOptions::default()
        .head_timeout(Some(Duration::from_millis(200)))
        .keepalive(Duration::from_millis(100));
    let http = spawn_http_with(
        server(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    let listen = request(1, "subscriptions/listen", json!({"notifications": {}}));
    let mut s = tokio::net::TcpStream::connect(http.addr).await.unwrap();
    s.write_all(&raw_post(&listen)).await.unwrap();
    // Five times the head timeout later, the stream still carries its keep-alive comments.
    let until = Instant::now() + Duration::from_millis(1000);
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while Instant::now() < until {
        let n = within("the stream", s.read(&mut buf)).await.unwrap();
        assert!(
            n > 0,
            "the listen stream was closed: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&seen);
    assert!(text.contains("acknowledged"), "{text}");
    let after_ack = &text[text.find("acknowledged").unwrap()..];
    assert!(
        after_ack.contains("\n:"),
        "keep-alive comments after the acknowledgement: {text}"
    );
}

#[tokio::test]
async fn a_request_state_over_its_limit_is_refused() {
    let limits = Limits::default().state_bytes(512);
    let http = spawn_http(server(limits, Arc::new(Semaphore::new(0)))).await;
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let big = request(
        1,
        "tools/call",
        json!({"name": "ask_twice", "_meta": m.clone(), "requestState": "s".repeat(1000)}),
    );
    let r = response_of(&post_json(&http.url(), &big).await);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too large"),
        "{r}"
    );
    // A state within the limit is read (and, being forged, refused for what it is).
    let small = request(
        2,
        "tools/call",
        json!({"name": "ask_twice", "_meta": m, "requestState": "s".repeat(100)}),
    );
    let r = response_of(&post_json(&http.url(), &small).await);
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        !r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too large"),
        "{r}"
    );
}

/// `resources/read` of `uri`: the answer and how long it took.
async fn timed_read(url: String, id: u32, uri: String) -> (Value, Duration) {
    let read = request(id, "resources/read", json!({"uri": uri}));
    let at = Instant::now();
    let resp = post_json(&url, &read).await;
    (response_of(&resp), at.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_uri_built_to_make_template_matching_backtrack_is_answered_at_once() {
    // Three variables in one segment, read with a URI of dots that ends in `/`: splitting it
    // every way took seconds of CPU per read when matching backtracked; it is linear now.
    let server = Server::builder()
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .resource_template(
            ResourceTemplate::new("semver://{major}.{minor}.{patch}", "semver")
                .mime_type("text/plain")
                .handler(|read| async move { format!("major {}", read.variables["major"]) }),
        )
        .build()
        .unwrap();
    let http = spawn_http(server).await;
    let url = http.url();
    let uri = format!("semver://{}/", ".".repeat(8000 - "semver://".len() - 1));
    assert!(uri.len() < 8 * 1024);

    let (answer, took) = within("the read", timed_read(url.clone(), 1, uri.clone())).await;
    println!(
        "an 8000-byte adversarial read answered in {} ms",
        took.as_millis()
    );
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer.get("result").is_some() || answer.get("error").is_some());
    assert!(took < Duration::from_secs(2), "{took:?}");

    // Two such reads in flight, and a listing sent meanwhile is not held up.
    let reads: Vec<_> = (0..2)
        .map(|i| tokio::spawn(timed_read(url.clone(), 10 + i, uri.clone())))
        .collect();
    let at = Instant::now();
    let list = request(2, "tools/list", json!({}));
    let listed = response_of(&within("tools/list", post_json(&url, &list)).await);
    let list_took = at.elapsed();
    assert_eq!(listed["result"]["tools"][0]["name"], "ping", "{listed}");
    for (i, read) in reads.into_iter().enumerate() {
        let (answer, took) = within("a concurrent read", read).await.unwrap();
        println!("concurrent read {i} answered in {} ms", took.as_millis());
        assert!(answer.get("result").is_some() || answer.get("error").is_some());
        assert!(took < Duration::from_secs(2), "{took:?}");
    }
    println!(
        "tools/list beside them answered in {} ms",
        list_took.as_millis()
    );
    assert!(list_took < Duration::from_secs(1), "{list_took:?}");
    // A URI the template does match is read.
    let (answer, _) = timed_read(url, 3, "semver://1.2.3".into()).await;
    assert_eq!(
        answer["result"]["contents"][0]["text"], "major 1",
        "{answer}"
    );
}
