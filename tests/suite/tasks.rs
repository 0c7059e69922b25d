//! The tasks extension (`io.modelcontextprotocol/tasks`): task tools declared optional or
//! required, the `tasks/*` methods, questions asked from inside a running task, cancellation,
//! expiry, owners, `notifications/tasks` on listen streams, and the `Mcp-Name` header of
//! `tasks/*` on HTTP.

use crate::common;
use common::{call_with, headers_for, request, response_of, spawn_http, with_header, within};
use mcp_runtime::TaskOptions;
use mcp_runtime::protocol::{ClientCapabilities, TASKS_EXTENSION};
use mcp_runtime::tasks::MemoryTaskStore;
use mcp_runtime::testing::{ClientError, Elicited, TestClient};
use mcp_runtime::{
    Ask, Caller, CancellationToken, ElicitForm, Elicitation, McpError, NoArguments, Progress,
    Rounds, Server, State, Step, TaskSupport, Tool, tool,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What the cancellable tool saw, and when `stepper` may go on (shared with the test).
#[derive(Default, Clone)]
struct Seen {
    cancelled: Arc<AtomicBool>,
    proceed: Arc<tokio::sync::Notify>,
}

impl Seen {
    async fn cancellation(&self, what: &str) {
        within(what, async {
            while !self.cancelled.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
    }
}

#[derive(Debug, Deserialize, ElicitForm)]
struct Choice {
    /// A word.
    word: String,
}

/// Echoes its text; a task for clients that declare the extension.
#[tool(task = "optional")]
async fn echo(text: String) -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    format!("echo: {text}")
}

/// Fails as a tool (`isError`), as a task only.
#[tool(task = "required")]
async fn broken() -> Result<String, String> {
    Err("broken on purpose".into())
}

/// Fails with a JSON-RPC error, as a task only.
#[tool(task = "required")]
async fn erring() -> Result<String, McpError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    Err(McpError::invalid_params("the data is gone"))
}

/// Waits until cancelled, and says so in the shared state.
#[tool(task = "required")]
async fn wait_forever(cancel: CancellationToken, State(seen): State<Seen>) -> String {
    cancel.cancelled().await;
    seen.cancelled.store(true, Ordering::SeqCst);
    "cancelled".into()
}

/// Reports progress, waits for the test's go-ahead, reports again and finishes.
#[tool(task = "required")]
async fn stepper(progress: Progress, State(seen): State<Seen>) -> String {
    progress.report(1.0, Some(2.0), Some("first half done"));
    seen.proceed.notified().await;
    progress.report(2.0, Some(2.0), Some("all done"));
    "stepped".into()
}

/// Asks two words from inside its task, then the same key again in a second round.
#[tool(task = "required")]
async fn two_rounds(#[ctx] rounds: Rounds) -> Result<Step<String>, McpError> {
    let word = |key: &str| -> Result<Option<String>, McpError> {
        Ok(rounds
            .answer::<Elicitation<Choice>>(key)?
            .and_then(Elicitation::accepted)
            .map(|c| c.word))
    };
    match rounds.state::<String>()? {
        None => {
            tokio::time::sleep(Duration::from_millis(10)).await;
            rounds.ask(
                Ask::new()
                    .elicit::<Choice>("a", "First word?")
                    .elicit::<Choice>("b", "Second word?"),
                &"round one".to_owned(),
            )
        }
        Some(stage) if stage == "round one" => {
            let both = format!(
                "{}+{}",
                word("a")?.unwrap_or_default(),
                word("b")?.unwrap_or_default()
            );
            rounds.ask(Ask::new().elicit::<Choice>("a", "Third word?"), &both)
        }
        Some(both) => Ok(Step::Done(format!(
            "{both}+{}",
            word("a")?.unwrap_or_default()
        ))),
    }
}

/// Asks a name before its task starts, then uses it from the task.
#[tool(task = "required")]
async fn named(#[elicit(message = "Your name?")] who: Elicitation<Choice>) -> String {
    tokio::time::sleep(Duration::from_millis(10)).await;
    format!(
        "task for {}",
        who.accepted().map_or_else(String::new, |c| c.word)
    )
}

fn server_with(store: MemoryTaskStore, ttl: Option<Duration>) -> (Server, Seen) {
    let seen = Seen::default();
    let server = Server::builder()
        .list_changed(true)
        .state(seen.clone())
        .tasks(
            TaskOptions::new()
                .store(store)
                .ttl(ttl)
                .poll_interval(Duration::from_millis(250)),
        )
        .tool(echo {})
        .tool(broken {})
        .tool(erring {})
        .tool(wait_forever {})
        .tool(stepper {})
        .tool(two_rounds {})
        .tool(named {})
        .build()
        .expect("the server builds");
    (server, seen)
}

fn server() -> Server {
    server_with(MemoryTaskStore::default(), Some(Duration::from_secs(60))).0
}

fn caps(tasks: bool) -> ClientCapabilities {
    let mut caps = json!({"elicitation": {}});
    if tasks {
        caps["extensions"] = json!({ TASKS_EXTENSION: {} });
    }
    serde_json::from_value(caps).expect("capabilities")
}

/// A client that declares the extension (and elicitation).
fn tasks_client(server: &Server) -> TestClient {
    TestClient::new(server.clone()).capabilities(caps(true))
}

async fn call(client: &TestClient, name: &str, arguments: Value) -> Value {
    let params = json!({"name": name, "arguments": arguments});
    within(name, client.request("tools/call", params))
        .await
        .expect("the call is answered with a result")
}

async fn get(client: &TestClient, id: &str) -> Result<Value, ClientError> {
    within(
        "tasks/get",
        client.request("tasks/get", json!({"taskId": id})),
    )
    .await
}

/// Polls until the task is terminal (or in `status`), within the test timeout.
async fn until(client: &TestClient, id: &str, status: &str) -> Value {
    within("the task's status", async {
        loop {
            let task = get(client, id).await.expect("the task is known");
            let s = task["status"].as_str().unwrap_or_default().to_owned();
            if s == status || ["completed", "failed", "cancelled"].contains(&s.as_str()) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

fn task_id(created: &Value) -> String {
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().expect("a task id").to_owned()
}

fn code(result: Result<Value, ClientError>) -> i32 {
    match result {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e.code().expect("a JSON-RPC error"),
    }
}

#[tokio::test]
async fn optional_tools_are_tasks_only_for_clients_that_declare_the_extension() {
    let server = server();
    let plain = TestClient::new(server.clone()).capabilities(caps(false));
    let sync = call(&plain, "echo", json!({"text": "hi"})).await;
    assert_eq!(sync["resultType"], "complete");
    assert_eq!(sync["content"][0]["text"], "echo: hi");

    // A legacy `task` param is ignored: still a plain call.
    let legacy = json!({"name": "echo", "arguments": {"text": "hi"}, "task": {"ttl": 1000}});
    let sync_again = plain.request("tools/call", legacy).await.unwrap();
    assert_eq!(sync_again["resultType"], "complete");

    let tasks = tasks_client(&server);
    let created = call(&tasks, "echo", json!({"text": "hi"})).await;
    let id = task_id(&created);
    assert_eq!(id.len(), 32, "128 bits as hex: {id}");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    for absent in ["requestState", "result", "error", "inputRequests"] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    assert_eq!(created["ttlMs"], 60_000);
    assert_eq!(created["pollIntervalMs"], 250);
    // Durable: readable at once.
    assert!(get(&tasks, &id).await.is_ok());
    let done = until(&tasks, &id, "completed").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["resultType"], "complete");
    // Exactly the result the plain call returned.
    assert_eq!(done["result"], sync, "{done}");
    assert!(
        done["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );
}

#[tokio::test]
async fn required_tools_refuse_clients_without_the_extension() {
    let server = server();
    let plain = TestClient::new(server.clone()).capabilities(caps(false));
    let refused = plain
        .request("tools/call", json!({"name": "broken", "arguments": {}}))
        .await
        .unwrap_err();
    let ClientError::Rpc(e) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!(e.code, -32021);
    assert_eq!(
        e.data.unwrap()["requiredCapabilities"]["extensions"][TASKS_EXTENSION],
        json!({})
    );
    // tasks/* without the extension: -32021 too.
    for method in ["tasks/get", "tasks/cancel"] {
        assert_eq!(
            code(plain.request(method, json!({"taskId": "x"})).await),
            -32021
        );
    }
    let update = json!({"taskId": "x", "inputResponses": {}});
    assert_eq!(code(plain.request("tasks/update", update).await), -32021);
    // Removed methods stay removed, and an unknown task is -32602.
    let tasks = tasks_client(&server);
    for method in ["tasks/result", "tasks/list"] {
        assert_eq!(
            code(tasks.request(method, json!({"taskId": "x"})).await),
            -32601
        );
    }
    assert_eq!(code(get(&tasks, "nonexistent-12345").await), -32602);
    let update = json!({"taskId": "nonexistent", "inputResponses": {}});
    assert_eq!(code(tasks.request("tasks/update", update).await), -32602);
}

#[tokio::test]
async fn discover_lists_the_extension_only_when_a_tool_runs_as_a_task() {
    let with = TestClient::new(server()).discover().await.unwrap();
    let extensions = with.capabilities.extensions.expect("extensions");
    assert_eq!(extensions[TASKS_EXTENSION], json!({}));

    let plain = Server::builder()
        .tool(Tool::new("t").handler(|_: NoArguments, _| async { "ok" }))
        .build()
        .unwrap();
    let client = TestClient::new(plain).capabilities(caps(true));
    let caps = client.discover().await.unwrap().capabilities;
    assert!(
        caps.extensions
            .is_none_or(|e| !e.contains_key(TASKS_EXTENSION))
    );
    // Without task tools, tasks/* do not exist.
    assert_eq!(code(get(&client, "x").await), -32601);
}

#[tokio::test]
async fn a_task_ends_completed_with_is_error_or_failed_with_the_error() {
    let server = server();
    let client = tasks_client(&server);
    let id = task_id(&call(&client, "broken", json!({})).await);
    let done = until(&client, &id, "completed").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["isError"], true);
    assert_eq!(done["result"]["content"][0]["text"], "broken on purpose");

    let id = task_id(&call(&client, "erring", json!({})).await);
    let failed = until(&client, &id, "failed").await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32602);
    assert_eq!(failed["error"]["message"], "the data is gone");
    assert!(failed.get("result").is_none());
}

#[tokio::test]
async fn cancelling_a_running_task_fires_its_handlers_cancellation() {
    let (server, seen) = server_with(MemoryTaskStore::default(), Some(Duration::from_secs(60)));
    let client = tasks_client(&server);
    let id = task_id(&call(&client, "wait_forever", json!({})).await);
    assert_eq!(get(&client, &id).await.unwrap()["status"], "working");
    let started = Instant::now();
    let ack = client
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(ack["resultType"], "complete");
    for absent in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack.get(absent).is_none(), "{absent} in {ack}");
    }
    assert_eq!(
        until(&client, &id, "cancelled").await["status"],
        "cancelled"
    );
    seen.cancellation("the handler's cancellation").await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    // Idempotent on a terminal task; its status does not move.
    let again = client.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again.unwrap()["resultType"], "complete");
    let id2 = task_id(&call(&client, "echo", json!({"text": "x"})).await);
    until(&client, &id2, "completed").await;
    client
        .request("tasks/cancel", json!({"taskId": id2}))
        .await
        .unwrap();
    assert_eq!(get(&client, &id2).await.unwrap()["status"], "completed");
}

#[tokio::test]
async fn questions_from_inside_a_task_are_answered_with_updates_even_in_parts() {
    let server = server();
    let client = tasks_client(&server);
    let id = task_id(&call(&client, "two_rounds", json!({})).await);
    let asking = until(&client, &id, "input_required").await;
    assert_eq!(asking["status"], "input_required");
    let keys: Vec<&str> = asking["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["a", "b"]);
    assert_eq!(asking["inputRequests"]["a"]["method"], "elicitation/create");

    let accept = |word: &str| json!({"action": "accept", "content": {"word": word}});
    // An answer that is no elicitation result, under an outstanding key: refused, nothing kept.
    let bad = json!({"taskId": id, "inputResponses": {"a": {"nonsense": 1}}});
    assert_eq!(code(client.request("tasks/update", bad).await), -32602);
    // A partial answer (and an unknown key, ignored unread): the next get already shows it.
    let part =
        json!({"taskId": id, "inputResponses": {"a": accept("one"), "zzz": {"ignored": true}}});
    let ack = client.request("tasks/update", part).await.unwrap();
    assert_eq!(ack["resultType"], "complete");
    let now = get(&client, &id).await.unwrap();
    assert_eq!(now["status"], "input_required");
    assert!(now["inputRequests"].get("a").is_none(), "{now}");
    assert!(now["inputRequests"].get("b").is_some(), "{now}");
    let rest = json!({"taskId": id, "inputResponses": {"b": accept("two")}});
    client.request("tasks/update", rest).await.unwrap();

    // The second round asks `a` again: the client sees a key it was never shown before.
    let second = until(&client, &id, "input_required").await;
    let keys: Vec<&str> = second["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["a.2"], "{second}");
    let last = json!({"taskId": id, "inputResponses": {"a.2": accept("three")}});
    client.request("tasks/update", last).await.unwrap();
    let done = until(&client, &id, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], "one+two+three",
        "{done}"
    );
}

#[tokio::test]
async fn declared_inputs_are_asked_before_the_task_starts() {
    let server = server();
    let client = tasks_client(&server);
    let round = call(&client, "named", json!({})).await;
    assert_eq!(round["resultType"], "input_required");
    assert!(round.get("taskId").is_none());
    let state = round["requestState"].clone();
    let retry = json!({
        "name": "named",
        "arguments": {},
        "inputResponses": {"who": {"action": "accept", "content": {"word": "Alice"}}},
        "requestState": state,
    });
    let created = client.request("tools/call", retry).await.unwrap();
    let id = task_id(&created);
    assert!(created.get("requestState").is_none());
    let done = until(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "task for Alice");
}

#[tokio::test]
async fn progress_becomes_the_status_message() {
    let (server, seen) = server_with(MemoryTaskStore::default(), Some(Duration::from_secs(60)));
    let client = tasks_client(&server);
    let id = task_id(&call(&client, "stepper", json!({})).await);
    let first = within("the first message", async {
        loop {
            let task = get(&client, &id).await.unwrap();
            if task.get("statusMessage").is_some() {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert_eq!(first["statusMessage"], "first half done");
    assert_eq!(first["status"], "working");
    seen.proceed.notify_one();
    let done = until(&client, &id, "completed").await;
    assert_eq!(done["statusMessage"], "all done");
}

#[tokio::test]
async fn an_expired_task_is_unknown_and_its_handler_is_stopped() {
    let (server, seen) = server_with(MemoryTaskStore::default(), Some(Duration::from_millis(300)));
    let client = tasks_client(&server);
    let id = task_id(&call(&client, "wait_forever", json!({})).await);
    assert_eq!(get(&client, &id).await.unwrap()["ttlMs"], 300);
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert_eq!(code(get(&client, &id).await), -32602);
    seen.cancellation("the expired handler's cancellation")
        .await;
}

#[tokio::test]
async fn a_full_store_refuses_new_tasks_and_no_limit_is_null() {
    let (server, _) = server_with(MemoryTaskStore::new(1), None);
    let client = tasks_client(&server);
    let id = task_id(&call(&client, "wait_forever", json!({})).await);
    assert_eq!(get(&client, &id).await.unwrap()["ttlMs"], Value::Null);
    let refused = client
        .request(
            "tools/call",
            json!({"name": "wait_forever", "arguments": {}}),
        )
        .await;
    assert_eq!(code(refused), -32603);
}

#[tokio::test]
async fn only_the_caller_that_created_a_task_may_see_or_change_it() {
    let server = server();
    let alice = tasks_client(&server).caller(Caller::new("alice"));
    let mallory = tasks_client(&server).caller(Caller::new("mallory"));
    let anonymous = tasks_client(&server);
    let id = task_id(&call(&alice, "wait_forever", json!({})).await);
    for other in [&mallory, &anonymous] {
        assert_eq!(code(get(other, &id).await), -32602);
        let cancel = other.request("tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(code(cancel), -32602);
        let update = json!({"taskId": id, "inputResponses": {}});
        assert_eq!(code(other.request("tasks/update", update).await), -32602);
    }
    assert_eq!(get(&alice, &id).await.unwrap()["status"], "working");
    alice
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
}

#[tokio::test]
async fn listen_streams_with_task_ids_get_each_status_change() {
    let server = server();
    let client = tasks_client(&server).caller(Caller::new("alice"));
    let other = tasks_client(&server).caller(Caller::new("bob"));
    let id = task_id(&call(&client, "wait_forever", json!({})).await);
    let bobs = task_id(&call(&other, "wait_forever", json!({})).await);

    let mut stream = client
        .listen(json!({"taskIds": [id, bobs, "unknown"]}))
        .await
        .unwrap();
    let ack = within("the acknowledgement", stream.next()).await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    // Only the caller's own, existing task is accepted.
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]));

    client
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    let note = within("notifications/tasks", stream.next()).await.unwrap();
    assert_eq!(note["method"], "notifications/tasks");
    assert_eq!(note["params"]["taskId"], json!(id));
    assert_eq!(note["params"]["status"], "cancelled");
    assert!(note["params"]["createdAt"].is_string());
    assert!(note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].is_number());
    // Bob's task changes: nothing on Alice's stream.
    other
        .request("tasks/cancel", json!({"taskId": bobs}))
        .await
        .unwrap();
    let quiet = tokio::time::timeout(Duration::from_millis(200), stream.next()).await;
    assert!(quiet.is_err(), "{quiet:?}");

    // taskIds without the extension: -32021.
    let plain = TestClient::new(server.clone()).capabilities(caps(false));
    let refused = plain
        .request(
            "subscriptions/listen",
            json!({"notifications": {"taskIds": [id]}}),
        )
        .await;
    assert_eq!(code(refused), -32021);
}

#[tokio::test]
async fn mcp_name_carries_the_task_id_on_http() {
    let http = spawn_http(server()).await;
    let url = http.url();
    let mut meta = common::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {TASKS_EXTENSION: {}}});
    let call = request(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "h"}, "_meta": meta}),
    );
    let created = response_of(&call_with(&url, &call, headers_for(&call)).await);
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();

    let get = request(2, "tasks/get", json!({"taskId": id, "_meta": meta}));
    let ok = call_with(&url, &get, headers_for(&get)).await;
    assert_eq!(response_of(&ok)["result"]["taskId"], json!(id));

    let wrong = with_header(headers_for(&get), "Mcp-Name", "another-task");
    let refused = call_with(&url, &get, wrong).await;
    assert_eq!(refused.status, 400);
    assert_eq!(response_of(&refused)["error"]["code"], -32020);
    let missing = common::without_header(headers_for(&get), "Mcp-Name");
    assert_eq!(
        response_of(&call_with(&url, &get, missing).await)["error"]["code"],
        -32020
    );
    // A mismatched Mcp-Method is refused before anything else.
    let mislabeled = with_header(headers_for(&call), "Mcp-Method", "tasks/get");
    assert_eq!(
        response_of(&call_with(&url, &call, mislabeled).await)["error"]["code"],
        -32020
    );
}

#[tokio::test]
async fn a_task_tool_needs_an_async_handler() {
    let tool = Tool::new("sync")
        .task(TaskSupport::Optional)
        .sync_handler(|_| Err(McpError::internal("never")));
    let err = match Server::builder().tool(tool).build() {
        Err(e) => e,
        Ok(_) => panic!("a sync task tool built"),
    };
    let text = err.to_string();
    assert!(text.contains("needs an async handler"), "{text}");
}

#[tokio::test]
async fn the_builder_declares_task_tools_too() {
    let tool = Tool::new("later")
        .task(TaskSupport::Required)
        .handler(|_: NoArguments, _| async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            "later"
        });
    let server = Server::builder().tool(tool).build().unwrap();
    let client = tasks_client(&server);
    let id = task_id(&call(&client, "later", json!({})).await);
    let done = until(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "later");
}

#[tokio::test]
async fn shutting_down_fails_the_tasks_still_running() {
    let (server, _) = server_with(MemoryTaskStore::default(), Some(Duration::from_secs(60)));
    let client = tasks_client(&server);
    let running = task_id(&call(&client, "wait_forever", json!({})).await);
    let finished = task_id(&call(&client, "echo", json!({"text": "x"})).await);
    until(&client, &finished, "completed").await;
    server.shutdown();
    let failed = until(&client, &running, "failed").await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("shut down"),
        "{failed}"
    );
    // What had finished stays as it was.
    assert_eq!(
        get(&client, &finished).await.unwrap()["status"],
        "completed"
    );
}

#[tokio::test]
async fn a_task_whose_instance_stopped_is_failed_once_its_lease_passes() {
    use mcp_runtime::tasks::{TaskRecord, TaskStore};
    // Two instances over one store, with a short lease.
    let store = Arc::new(MemoryTaskStore::default());
    let instance = || {
        Server::builder()
            .tasks(
                TaskOptions::new()
                    .store(store.clone())
                    .lease(Duration::from_millis(300)),
            )
            .tool(wait_forever {})
            .state(Seen::default())
            .build()
            .expect("the server builds")
    };
    let (a, b) = (instance(), instance());
    let (on_a, on_b) = (tasks_client(&a), tasks_client(&b));

    // A running task's lease is renewed by its instance: long past one lease, still working.
    let running = task_id(&call(&on_a, "wait_forever", json!({})).await);
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(get(&on_b, &running).await.unwrap()["status"], "working");

    // A task whose instance vanished (it holds a lease nobody renews).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let mut orphan = TaskRecord::new("orphan", None, now, Some(60_000), Some(100));
    orphan.lease_until_ms = Some(now + 200);
    store.create(orphan).await.unwrap();
    assert_eq!(get(&on_b, "orphan").await.unwrap()["status"], "working");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let failed = get(&on_b, "orphan").await.unwrap();
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("instance running this task stopped"),
        "{message}"
    );
    // Every instance now reads the same outcome; cancelling it changes nothing.
    assert_eq!(get(&on_a, "orphan").await.unwrap()["status"], "failed");
    on_a.request("tasks/cancel", json!({"taskId": "orphan"}))
        .await
        .unwrap();
    assert_eq!(get(&on_a, "orphan").await.unwrap()["status"], "failed");
    // The live one is untouched.
    assert_eq!(get(&on_b, &running).await.unwrap()["status"], "working");
}

/// A shared store that says it was away until `back_ms` (as a Redis that restarted would).
struct Restarted {
    inner: Arc<MemoryTaskStore>,
    back_ms: Arc<std::sync::atomic::AtomicU64>,
}

impl mcp_runtime::tasks::TaskStore for Restarted {
    fn create(
        &self,
        task: mcp_runtime::tasks::TaskRecord,
    ) -> mcp_runtime::handler::BoxFuture<'_, Result<(), mcp_runtime::McpError>> {
        self.inner.create(task)
    }
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> mcp_runtime::handler::BoxFuture<
        'a,
        Result<Option<mcp_runtime::tasks::TaskRecord>, mcp_runtime::McpError>,
    > {
        self.inner.get(id)
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: mcp_runtime::tasks::TaskChange<'a>,
    ) -> mcp_runtime::handler::BoxFuture<
        'a,
        Result<Option<mcp_runtime::tasks::TaskRecord>, mcp_runtime::McpError>,
    > {
        self.inner.update(id, change)
    }
    fn reachable_since_ms(
        &self,
    ) -> mcp_runtime::handler::BoxFuture<'_, Result<u64, mcp_runtime::McpError>> {
        let back = self.back_ms.load(Ordering::Relaxed);
        Box::pin(async move { Ok(back) })
    }
}

#[tokio::test]
async fn a_lease_runs_from_the_stores_return_not_from_before_it_went_away() {
    use mcp_runtime::tasks::{TaskRecord, TaskStore};
    let inner = Arc::new(MemoryTaskStore::default());
    let back_ms = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let store = Restarted {
        inner: inner.clone(),
        back_ms: back_ms.clone(),
    };
    let server = Server::builder()
        .tasks(
            TaskOptions::new()
                .store(store)
                .lease(Duration::from_millis(300)),
        )
        .tool(wait_forever {})
        .state(Seen::default())
        .build()
        .expect("the server builds");
    let client = tasks_client(&server);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    // Its lease passed while the store was away, and the store is back only now: its runner
    // has had no chance to renew it yet.
    let mut task = TaskRecord::new("held", None, now, Some(60_000), Some(100));
    task.lease_until_ms = Some(now - 1_000);
    inner.create(task).await.unwrap();
    back_ms.store(now, Ordering::Relaxed);
    assert_eq!(get(&client, "held").await.unwrap()["status"], "working");
    // Nobody renewed it within a lease of the store's return: its runner is gone.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let failed = get(&client, "held").await.unwrap();
    assert_eq!(failed["status"], "failed", "{failed}");
}

/// `TestClient::run_tool_as_task`: a task run to its end, its questions (before it starts and
/// while it runs) answered from the client's answers; a failing tool's result, and a task's
/// JSON-RPC error.
#[tokio::test]
async fn a_client_runs_a_task_to_its_end() {
    // Each form is answered with the question's first word ("First word?" → "first").
    let client = TestClient::new(server()).on_elicit(|message, _| {
        let word = message.split([' ', '?']).next().unwrap_or_default();
        Elicited::Accept(json!({"word": word.to_lowercase()}))
    });
    let run = |name: &'static str| within(name, client.run_tool_as_task(name, json!({})));
    assert_eq!(
        run("two_rounds").await.unwrap().text(),
        "first+second+third"
    );
    assert_eq!(run("named").await.unwrap().text(), "task for your");
    let broken = run("broken").await.unwrap();
    assert!(broken.failed(), "an isError result is the task's result");
    assert_eq!(run("erring").await.unwrap_err().code(), Some(-32602));
    let echoed = within(
        "echo",
        client.run_tool_as_task("echo", json!({"text": "hi"})),
    );
    assert_eq!(echoed.await.unwrap().text(), "echo: hi");
}
