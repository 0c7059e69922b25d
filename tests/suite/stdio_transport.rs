//! stdio: `Server::serve_io` driven through in-memory pipes. Newline-delimited answers,
//! concurrency, malformed lines, notifications, end of input and `notifications/cancelled`.
//!
//! Every line the server writes is parsed and validated against the 2026-07-28 schema.

use crate::common;
use common::{notification, request, within};
use mcp_runtime::{Server, Tool};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::sync::{Semaphore, mpsc};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

/// A client end of a server running `serve_io` on duplex pipes.
struct Stdio {
    input: Option<DuplexStream>,
    output: Lines<BufReader<DuplexStream>>,
    task: tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
    /// Method of each request sent, by id, to validate the answers.
    methods: HashMap<String, String>,
}

impl Stdio {
    fn start(server: Server) -> Stdio {
        let (client_in, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, client_out) = tokio::io::duplex(64 * 1024);
        let task = tokio::spawn(server.serve_io(server_in, server_out));
        Stdio {
            input: Some(client_in),
            output: BufReader::new(client_out).lines(),
            task,
            methods: HashMap::new(),
        }
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().expect("input still open");
        within("write to the server", async {
            input.write_all(bytes).await.expect("write");
            input.flush().await.expect("flush");
        })
        .await;
    }

    /// Writes one message as one line.
    async fn send(&mut self, message: &Value) {
        if let (Some(id), Some(method)) = (message.get("id"), message.get("method")) {
            self.methods
                .insert(id.to_string(), method.as_str().unwrap_or("").to_owned());
        }
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.send_raw(&line).await;
    }

    fn check(&self, line: &str) -> Value {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("the server wrote a line that is not JSON ({e}): {line}"));
        assert!(message.is_object(), "one JSON object per line: {line}");
        let method = message
            .get("id")
            .and_then(|id| self.methods.get(&id.to_string()))
            .map_or("", String::as_str);
        common::assert_message_valid(method, &message);
        message
    }

    /// The next line the server writes.
    async fn recv(&mut self) -> Value {
        let line = within("the next line from the server", self.output.next_line())
            .await
            .expect("read a line")
            .expect("the server wrote a line before closing its output");
        self.check(&line)
    }

    /// Closes the input and returns what the server still writes before it returns (cleanly).
    async fn close(mut self) -> Vec<Value> {
        drop(self.input.take());
        let mut rest = Vec::new();
        while let Some(line) = within("output after end of input", self.output.next_line())
            .await
            .expect("read a line")
        {
            rest.push(self.check(&line));
        }
        within("serve_io returns after end of input", &mut self.task)
            .await
            .expect("serve_io does not panic")
            .expect("serve_io returns Ok");
        rest
    }
}

fn echo_tool() -> Tool {
    Tool::new("echo")
        .description("Echoes its text.")
        .handler(|a: EchoArgs, _cx| async move { a.text })
}

fn basic_server() -> Server {
    Server::builder()
        .name("stdio-tests")
        .version("1.0.0")
        .tool(echo_tool())
        .tool(
            Tool::new("nap")
                .description("Sleeps 50 ms, then answers.")
                .handler(|_: NoArgs, _cx| async {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    "rested"
                }),
        )
        .build()
        .expect("valid server")
}

#[tokio::test]
async fn answers_are_newline_delimited_json() {
    let mut io = Stdio::start(basic_server());
    io.send(&request(json!(1), "server/discover", json!({})))
        .await;
    io.send(&request(json!("two"), "tools/list", json!({})))
        .await;
    let text = "line one\nline two \u{2028} «ünïcødé» \"quoted\"";
    io.send(&request(
        json!(3),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": text}}),
    ))
    .await;
    let mut answers = HashMap::new();
    for _ in 0..3 {
        let m = io.recv().await;
        answers.insert(m["id"].to_string(), m);
    }
    assert_eq!(
        answers["1"]["result"]["supportedVersions"],
        json!([common::VERSION])
    );
    assert_eq!(answers["\"two\""]["result"]["tools"][0]["name"], "echo");
    assert_eq!(
        answers["3"]["result"]["content"][0]["text"], text,
        "newlines inside values are escaped, the message stays on one line"
    );
    assert!(io.close().await.is_empty());
}

#[tokio::test]
async fn requests_are_served_concurrently() {
    let gate = Arc::new(Semaphore::new(0));
    let held = gate.clone();
    let server = Server::builder()
        .tool(echo_tool())
        .tool(
            Tool::new("gate")
                .description("Answers once the test opens the gate.")
                .handler(move |_: NoArgs, _cx| {
                    let gate = held.clone();
                    async move {
                        let _permit = gate.acquire().await.expect("gate open");
                        "through"
                    }
                }),
        )
        .build()
        .expect("valid server");
    let mut io = Stdio::start(server);
    io.send(&request(
        json!("slow"),
        "tools/call",
        json!({"name": "gate", "arguments": {}}),
    ))
    .await;
    io.send(&request(
        json!("fast"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    ))
    .await;
    let first = io.recv().await;
    assert_eq!(
        first["id"], "fast",
        "a blocked request does not hold up the next one"
    );
    gate.add_permits(1);
    let second = io.recv().await;
    assert_eq!(second["id"], "slow");
    assert_eq!(second["result"]["content"][0]["text"], "through");
    assert!(io.close().await.is_empty());
}

#[tokio::test]
async fn malformed_lines_are_answered_and_the_loop_goes_on() {
    let mut io = Stdio::start(basic_server());
    io.send_raw(b"{this is not json\n").await;
    let parse = io.recv().await;
    assert_eq!(parse["error"]["code"], -32700);
    assert!(
        parse.get("id").is_none(),
        "no id when it cannot be read: {parse}"
    );

    io.send_raw(b"\n\r\n").await; // blank lines are skipped silently
    io.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}]\n")
        .await;
    let batch = io.recv().await;
    assert_eq!(batch["error"]["code"], -32600);
    assert!(batch.get("id").is_none());

    io.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}))
        .await;
    let no_meta = io.recv().await;
    assert_eq!(no_meta["error"]["code"], -32602, "missing _meta: {no_meta}");
    assert_eq!(no_meta["id"], 5);

    io.send(&request(json!(6), "initialize", json!({}))).await;
    let removed = io.recv().await;
    assert_eq!(removed["error"]["code"], -32601);
    assert_eq!(removed["id"], 6);

    io.send(&request(json!(7), "tools/list", json!({}))).await;
    let ok = io.recv().await;
    assert_eq!(ok["id"], 7);
    assert!(ok.get("result").is_some(), "the loop survived: {ok}");

    // A final line without a newline is still a message.
    io.send_raw(br#"{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#)
        .await;
    io.methods.insert("8".into(), "tools/list".into());
    let rest = io.close().await;
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["id"], 8);
}

#[tokio::test]
async fn notifications_get_no_answer() {
    let mut io = Stdio::start(basic_server());
    io.send(&notification(
        "notifications/cancelled",
        json!({"requestId": "never-sent"}),
    ))
    .await;
    io.send(&notification("notifications/initialized", json!({})))
        .await;
    io.send(&notification(
        "notifications/cancelled",
        json!({"bogus": true}),
    ))
    .await;
    io.send(&request(json!(1), "tools/list", json!({}))).await;
    let first = io.recv().await;
    assert_eq!(
        first["id"], 1,
        "the first line answers the request, not a notification"
    );
    assert!(io.close().await.is_empty());
}

#[tokio::test]
async fn end_of_input_lets_in_flight_requests_finish_then_returns() {
    let mut io = Stdio::start(basic_server());
    io.send(&request(
        json!("nap"),
        "tools/call",
        json!({"name": "nap", "arguments": {}}),
    ))
    .await;
    let rest = io.close().await;
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["id"], "nap");
    assert_eq!(rest[0]["result"]["content"][0]["text"], "rested");

    // Nothing at all: returns at once.
    let io = Stdio::start(basic_server());
    assert!(io.close().await.is_empty());
}

#[tokio::test]
async fn cancelled_notification_stops_a_long_running_call() {
    let (started_tx, mut started) = mpsc::unbounded_channel::<Value>();
    let (observed_tx, mut observed) = mpsc::unbounded_channel::<Value>();
    let release = Arc::new(Semaphore::new(0));
    let held = release.clone();
    let server = Server::builder()
        .tool(echo_tool())
        .tool(
            Tool::new("long")
                .description("Runs until the test releases it (or it is cancelled).")
                .handler(move |_: NoArgs, cx| {
                    let started = started_tx.clone();
                    let observed = observed_tx.clone();
                    let release = held.clone();
                    async move {
                        let id = serde_json::to_value(cx.request_id()).unwrap();
                        let token = cx.cancellation();
                        let watched = id.clone();
                        // Observes the handler's own cancellation token, independently of
                        // whether the handler future is still polled.
                        tokio::spawn(async move {
                            token.cancelled().await;
                            let _ = observed.send(watched);
                        });
                        let _ = started.send(id);
                        let _permit = release.acquire().await.expect("released");
                        "finished anyway"
                    }
                }),
        )
        .build()
        .expect("valid server");
    let mut io = Stdio::start(server);

    for id in [json!("long-1"), json!(77)] {
        io.send(&request(
            id.clone(),
            "tools/call",
            json!({"name": "long", "arguments": {}}),
        ))
        .await;
        let running = within("the handler starts", started.recv()).await.unwrap();
        assert_eq!(running, id);
        io.send(&notification(
            "notifications/cancelled",
            json!({"requestId": id, "reason": "User requested cancellation"}),
        ))
        .await;
        let cancelled = within("the handler's token fires", observed.recv())
            .await
            .unwrap();
        assert_eq!(cancelled, id, "the cancellation reached the right request");
    }

    // Let any surviving handler finish: nothing may be sent for the cancelled requests.
    release.add_permits(10);
    io.send(&request(
        json!("after"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    ))
    .await;
    let next = io.recv().await;
    assert_eq!(
        next["id"], "after",
        "no answer for a cancelled request: {next}"
    );
    // Cancelling a finished request is ignored.
    io.send(&notification(
        "notifications/cancelled",
        json!({"requestId": "after"}),
    ))
    .await;
    let rest = io.close().await;
    assert!(rest.is_empty(), "nothing after cancellation: {rest:?}");
    assert!(
        observed.try_recv().is_err(),
        "only the cancelled requests saw their token fire"
    );
}
