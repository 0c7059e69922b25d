//! Multi round-trip requests through the dispatcher: the body runs once with typed answers,
//! `requestState` is sealed and bound, capability gating, multi-round flows, and MRTR on
//! `prompts/get` and `resources/read`.

use crate::common;
use mcp_runtime::mrtr::InputSet;
use mcp_runtime::{
    Ask, Elicitation, KeyRing, McpError, Prompt, Resource, Roots, Rounds, Sampled, Server, Step,
    Tool,
    handler::{PromptOutcome, ResourceOutcome, ToolOutcome},
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[derive(serde::Deserialize, mcp_runtime::ElicitForm)]
struct Goal {
    goal: String,
}

fn all_caps() -> Value {
    json!({"roots": {}, "sampling": {}, "elicitation": {}})
}

fn request(id: i64, method: &str, params: Value, caps: &Value) -> Vec<u8> {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    });
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap()
}

/// Sends one request in-process and validates the answer against the 2026-07-28 schema.
async fn send(server: &Server, body: Vec<u8>) -> Value {
    let call = server
        .handle_message(&body, Default::default())
        .expect("a request gets a response");
    let response = call.response().await;
    let answer: Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(
        response.is_error(),
        answer.get("error").is_some(),
        "{answer}"
    );
    let sent: Value = serde_json::from_slice(&body).unwrap();
    common::assert_response_valid(sent["method"].as_str().unwrap(), &answer);
    if answer["result"]["resultType"] == "input_required" {
        common::assert_input_required(&answer["result"]);
    }
    answer
}

fn review_tool(runs: Arc<AtomicUsize>) -> Tool {
    Tool::new("review").raw_handler(move |call| {
        let runs = runs.clone();
        async move {
            let mut inputs = InputSet::new(&call.context)?;
            let roots = inputs.roots("scope", true);
            let sample = inputs.sample(
                "sample",
                true,
                mcp_runtime::mrtr::sample_params("Draft a focus.", 80, None),
            );
            let goal = inputs.elicit::<Goal>("goal", true, "Choose the goal.");
            if let Some(ask) = inputs.finish()? {
                return Ok(ToolOutcome::InputRequired(ask));
            }
            let roots: Roots = inputs.take(roots)?;
            let sample: Sampled = inputs.take(sample)?;
            let goal = match inputs.take(goal)? {
                Elicitation::Accepted(g) => g.goal,
                Elicitation::Declined => "declined".into(),
                Elicitation::Cancelled => "cancelled".into(),
            };
            runs.fetch_add(1, Ordering::SeqCst);
            let topic = call.arguments["topic"].as_str().unwrap_or_default().to_owned();
            Ok(ToolOutcome::Complete(mcp_runtime::protocol::CallToolResult::new(vec![
                mcp_runtime::protocol::Content::text(
                    json!({"roots": roots.len(), "sample": sample.text(), "goal": goal, "topic": topic})
                        .to_string(),
                ),
            ])))
        }
    })
    .input_schema(
        json!({"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]})
            .as_object()
            .cloned()
            .unwrap(),
    )
}

fn optional_tool() -> Tool {
    Tool::new("optional").raw_handler(|call| async move {
        let mut inputs = InputSet::new(&call.context)?;
        let roots = inputs.roots("roots", false);
        let sample = inputs.sample(
            "sample",
            false,
            mcp_runtime::mrtr::sample_params("Say hi.", 10, None),
        );
        let name = inputs.elicit::<String>("name", false, "Your name?");
        if let Some(ask) = inputs.finish()? {
            return Ok(ToolOutcome::InputRequired(ask));
        }
        let got = json!({
            "roots": inputs.take_optional(roots)?.is_some(),
            "sample": inputs.take_optional(sample)?.is_some(),
            "name": inputs.take_optional(name)?.is_some(),
        });
        Ok(ToolOutcome::Complete(
            mcp_runtime::protocol::CallToolResult::new(vec![mcp_runtime::protocol::Content::text(
                got.to_string(),
            )]),
        ))
    })
}

async fn wizard(rounds: Rounds) -> Result<Step<String>, McpError> {
    let step: u32 = rounds.state()?.unwrap_or(0);
    match step {
        0 => rounds.ask(Ask::new().elicit::<String>("step1", "First?"), &1u32),
        1 => match rounds.answer::<Elicitation<String>>("step1")? {
            Some(Elicitation::Accepted(first)) => rounds.ask(
                Ask::new().elicit::<String>("step2", &format!("After {first}, second?")),
                &2u32,
            ),
            _ => Ok(Step::Done("stopped at step 1".into())),
        },
        _ => Ok(Step::Done(format!(
            "done after {} rounds: {:?}",
            rounds.round(),
            rounds
                .answer::<Elicitation<String>>("step2")?
                .and_then(Elicitation::accepted)
        ))),
    }
}

fn wizard_tool() -> Tool {
    Tool::new("wizard").raw_handler(|call| async move {
        let rounds = <Rounds as mcp_runtime::FromContext>::from_context(&call.context)?;
        mcp_runtime::handler::IntoToolResult::into_tool_result(wizard(rounds).await?)
    })
}

fn greet_prompt() -> Prompt {
    Prompt::new("greet").handler(|get| async move {
        let mut inputs = InputSet::new(&get.context)?;
        let name = inputs.elicit::<String>("name", true, "Who?");
        if let Some(ask) = inputs.finish()? {
            return Ok(PromptOutcome::InputRequired(ask));
        }
        let name = inputs.take(name)?.accepted().unwrap_or_default();
        Ok::<_, McpError>(PromptOutcome::Complete(
            mcp_runtime::protocol::GetPromptResult::new(vec![
                mcp_runtime::protocol::PromptMessage::user(format!("Greet {name}.")),
            ]),
        ))
    })
}

fn secret_resource() -> Resource {
    Resource::new("secret://note", "note").handler(|read| async move {
        let mut inputs = InputSet::new(&read.context)?;
        let ok = inputs.elicit::<String>("confirm", true, "Reveal the note?");
        if let Some(ask) = inputs.finish()? {
            return Ok(ResourceOutcome::InputRequired(ask));
        }
        let _ = inputs.take(ok)?;
        Ok::<_, McpError>(ResourceOutcome::Complete(vec![
            mcp_runtime::protocol::ResourceContents::text("secret://note", "the note"),
        ]))
    })
}

fn server_with(key: u8, ttl: Option<Duration>, runs: Arc<AtomicUsize>) -> Server {
    let mut b = Server::builder()
        .name("mrtr-test")
        .version("1")
        .state_keys(KeyRing::new(&[[key; 32]]).unwrap())
        .tool(review_tool(runs))
        .tool(optional_tool())
        .tool(wizard_tool())
        .prompt(greet_prompt())
        .resource(secret_resource());
    if let Some(ttl) = ttl {
        b = b.state_ttl(ttl);
    }
    b.build().unwrap()
}

fn answers() -> Value {
    json!({
        "scope": {"roots": [{"uri": "file:///repo", "name": "repo"}]},
        "sample": {"role": "assistant", "content": {"type": "text", "text": "Check rollback."}, "model": "m"},
        "goal": {"action": "accept", "content": {"goal": "correctness"}},
    })
}

#[tokio::test]
async fn body_runs_once_with_typed_answers_on_another_instance() {
    let runs = Arc::new(AtomicUsize::new(0));
    let a = server_with(1, None, runs.clone());
    let b = server_with(1, None, runs.clone());
    let args = json!({"name": "review", "arguments": {"topic": "safety"}});
    let first = send(&a, request(1, "tools/call", args.clone(), &all_caps())).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required");
    let keys: Vec<&str> = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 3);
    assert_eq!(result["inputRequests"]["scope"]["method"], "roots/list");
    assert_eq!(
        result["inputRequests"]["sample"]["method"],
        "sampling/createMessage"
    );
    assert_eq!(
        result["inputRequests"]["goal"]["params"]["requestedSchema"],
        json!({"type": "object", "properties": {"goal": {"type": "string"}}, "required": ["goal"]})
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        0,
        "the body must not run without answers"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();

    let mut retry = args.clone();
    retry["inputResponses"] = answers();
    retry["requestState"] = json!(state);
    let done = send(&b, request(2, "tools/call", retry, &all_caps())).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    let text: Value =
        serde_json::from_str(done["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        text,
        json!({"roots": 1, "sample": "Check rollback.", "goal": "correctness", "topic": "safety"})
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

async fn first_state(server: &Server, args: &Value) -> String {
    let first = send(server, request(1, "tools/call", args.clone(), &all_caps())).await;
    first["result"]["requestState"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn bad_states_are_invalid_params() {
    let runs = Arc::new(AtomicUsize::new(0));
    let a = server_with(1, None, runs.clone());
    let other_key = server_with(2, None, runs.clone());
    let args = json!({"name": "review", "arguments": {"topic": "safety"}});
    let state = first_state(&a, &args).await;

    let retry = |state: String, args: &Value| {
        let mut r = args.clone();
        r["inputResponses"] = answers();
        r["requestState"] = json!(state);
        r
    };
    let cases = [
        ("tampered", &a, retry(format!("{state}-TAMPERED"), &args)),
        (
            "truncated",
            &a,
            retry(state[..state.len() - 4].to_owned(), &args),
        ),
        ("garbage", &a, retry("hello".into(), &args)),
        ("other key", &other_key, retry(state.clone(), &args)),
        (
            "other arguments",
            &a,
            retry(
                state.clone(),
                &json!({"name": "review", "arguments": {"topic": "other"}}),
            ),
        ),
        (
            "other tool",
            &a,
            retry(state.clone(), &json!({"name": "optional", "arguments": {}})),
        ),
    ];
    for (what, server, params) in cases {
        let resp = send(server, request(9, "tools/call", params, &all_caps())).await;
        assert_eq!(resp["error"]["code"], -32602, "{what}: {resp}");
        assert_eq!(resp["id"], 9, "{what}");
    }
    // Replayed against a prompt.
    let resp = send(
        &a,
        request(
            9,
            "prompts/get",
            json!({"name": "greet", "requestState": state}),
            &all_caps(),
        ),
    )
    .await;
    assert_eq!(resp["error"]["code"], -32602, "{resp}");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn expired_state_is_rejected() {
    let runs = Arc::new(AtomicUsize::new(0));
    let a = server_with(1, Some(Duration::from_millis(1)), runs);
    let args = json!({"name": "review", "arguments": {"topic": "safety"}});
    let state = first_state(&a, &args).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let mut r = args.clone();
    r["inputResponses"] = answers();
    r["requestState"] = json!(state);
    let resp = send(&a, request(2, "tools/call", r, &all_caps())).await;
    assert_eq!(resp["error"]["code"], -32602);
    assert!(
        resp["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
}

#[tokio::test]
async fn missing_answers_are_asked_again_and_extra_keys_ignored() {
    let runs = Arc::new(AtomicUsize::new(0));
    let a = server_with(1, None, runs.clone());
    let args = json!({"name": "review", "arguments": {"topic": "safety"}});
    let state = first_state(&a, &args).await;
    let mut partial = args.clone();
    partial["inputResponses"] = json!({
        "scope": answers()["scope"],
        "unrelated": {"whatever": true},
    });
    partial["requestState"] = json!(state);
    let resp = send(&a, request(2, "tools/call", partial, &all_caps())).await;
    let result = &resp["result"];
    assert_eq!(result["resultType"], "input_required", "{resp}");
    let keys: Vec<&String> = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        keys.len(),
        2,
        "only the two missing inputs are asked again: {keys:?}"
    );
    assert!(result["inputRequests"].get("scope").is_none());
    // The third round answers the rest; the roots answer is carried in the sealed state.
    let mut last = args.clone();
    last["inputResponses"] = json!({"sample": answers()["sample"], "goal": answers()["goal"]});
    last["requestState"] = result["requestState"].clone();
    let resp = send(&a, request(3, "tools/call", last, &all_caps())).await;
    assert_eq!(resp["result"]["resultType"], "complete", "{resp}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn malformed_input_responses_are_invalid_params() {
    let a = server_with(1, None, Arc::default());
    let args = json!({"name": "review", "arguments": {"topic": "safety"}});
    let state = first_state(&a, &args).await;
    for bad in [
        json!(12345),
        json!({"goal": {"action": "maybe"}}),
        json!({"scope": 7}),
    ] {
        let mut r = args.clone();
        r["inputResponses"] = bad.clone();
        r["requestState"] = json!(state);
        let resp = send(&a, request(2, "tools/call", r, &all_caps())).await;
        assert_eq!(resp["error"]["code"], -32602, "{bad}: {resp}");
    }
}

#[tokio::test]
async fn capability_gating() {
    let a = server_with(1, None, Arc::default());
    // Required inputs without the capabilities: -32021 naming all of them.
    let resp = send(
        &a,
        request(
            1,
            "tools/call",
            json!({"name": "review", "arguments": {"topic": "x"}}),
            &json!({"sampling": {}}),
        ),
    )
    .await;
    assert_eq!(resp["error"]["code"], -32021, "{resp}");
    assert_eq!(
        resp["error"]["data"]["requiredCapabilities"],
        json!({"roots": {}, "elicitation": {}})
    );
    // Optional inputs: only what the client declared is asked.
    let resp = send(
        &a,
        request(
            2,
            "tools/call",
            json!({"name": "optional"}),
            &json!({"sampling": {}}),
        ),
    )
    .await;
    let keys: Vec<&String> = resp["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["sample"], "{resp}");
    // Nothing declared: the optional tool runs without input.
    let resp = send(
        &a,
        request(3, "tools/call", json!({"name": "optional"}), &json!({})),
    )
    .await;
    assert_eq!(resp["result"]["resultType"], "complete");
    assert_eq!(
        serde_json::from_str::<Value>(resp["result"]["content"][0]["text"].as_str().unwrap())
            .unwrap(),
        json!({"roots": false, "sample": false, "name": false})
    );
}

#[tokio::test]
async fn multi_round_flow_gets_a_new_state_each_round() {
    let a = server_with(1, None, Arc::default());
    let r1 = send(
        &a,
        request(1, "tools/call", json!({"name": "wizard"}), &all_caps()),
    )
    .await;
    assert_eq!(r1["result"]["resultType"], "input_required");
    assert!(r1["result"]["inputRequests"]["step1"].is_object());
    let s1 = r1["result"]["requestState"].clone();
    let r2 = send(
        &a,
        request(
            2,
            "tools/call",
            json!({"name": "wizard", "requestState": s1,
                   "inputResponses": {"step1": {"action": "accept", "content": {"value": "a"}}}}),
            &all_caps(),
        ),
    )
    .await;
    assert!(r2["result"]["inputRequests"]["step2"].is_object(), "{r2}");
    let s2 = r2["result"]["requestState"].clone();
    assert_ne!(s1, s2);
    let r3 = send(
        &a,
        request(
            3,
            "tools/call",
            json!({"name": "wizard", "requestState": s2,
                   "inputResponses": {"step2": {"action": "accept", "content": {"value": "b"}}}}),
            &all_caps(),
        ),
    )
    .await;
    assert_eq!(r3["result"]["resultType"], "complete", "{r3}");
    assert_eq!(
        r3["result"]["content"][0]["text"],
        "done after 2 rounds: Some(\"b\")"
    );
    // Without the elicitation capability the flow cannot ask: -32021.
    let r = send(
        &a,
        request(4, "tools/call", json!({"name": "wizard"}), &json!({})),
    )
    .await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
}

#[tokio::test]
async fn prompts_and_resources_use_mrtr_too() {
    let a = server_with(1, None, Arc::default());
    let p1 = send(
        &a,
        request(1, "prompts/get", json!({"name": "greet"}), &all_caps()),
    )
    .await;
    assert_eq!(p1["result"]["resultType"], "input_required");
    let p2 = send(
        &a,
        request(
            2,
            "prompts/get",
            json!({"name": "greet", "requestState": p1["result"]["requestState"],
                   "inputResponses": {"name": {"action": "accept", "content": {"value": "Ada"}}}}),
            &all_caps(),
        ),
    )
    .await;
    assert_eq!(
        p2["result"]["messages"][0]["content"]["text"], "Greet Ada.",
        "{p2}"
    );

    let r1 = send(
        &a,
        request(
            3,
            "resources/read",
            json!({"uri": "secret://note"}),
            &all_caps(),
        ),
    )
    .await;
    assert_eq!(r1["result"]["resultType"], "input_required");
    assert!(
        r1["result"].get("ttlMs").is_none(),
        "input_required carries no caching hints"
    );
    let r2 = send(
        &a,
        request(
            4,
            "resources/read",
            json!({"uri": "secret://note", "requestState": r1["result"]["requestState"],
                   "inputResponses": {"confirm": {"action": "accept", "content": {"value": "yes"}}}}),
            &all_caps(),
        ),
    )
    .await;
    assert_eq!(r2["result"]["contents"][0]["text"], "the note", "{r2}");
    assert!(
        r2["result"]["ttlMs"].is_u64(),
        "a final read still carries caching hints"
    );
}

// ---------------------------------------------------------------------------------------------
// The warning about a key of this process's own
// ---------------------------------------------------------------------------------------------

/// What `the_local_key_warning_is_for_http_servers_that_ask_for_input` looks for on stderr.
const KEY_WARNING: &str = "no requestState key configured";

/// A server whose one tool asks the client for input (or does not).
fn asking_server(asks: bool) -> mcp_runtime::Server {
    let tool = mcp_runtime::Tool::new("confirm");
    let tool = match asks {
        true => tool.asks_client_input(),
        false => tool,
    };
    mcp_runtime::Server::builder()
        .tool(tool.handler(|_: mcp_runtime::NoArguments, _cx| async { "done" }))
        .build()
        .unwrap()
}

/// The child process of the test below: what `MCP_KEY_WARNING_CASE` names, then exits.
#[tokio::test]
#[ignore = "run as a child process by the_local_key_warning_is_for_http_servers_that_ask_for_input"]
async fn local_key_warning_child() {
    let case = std::env::var("MCP_KEY_WARNING_CASE").unwrap_or_default();
    let options = mcp_runtime::HttpOptions::default;
    match case.as_str() {
        // Built and called in process (as tests and stdio do): one instance, nothing to say.
        "in-process" => {
            let client = mcp_runtime::testing::TestClient::new(asking_server(true));
            client.list_tools().await.unwrap();
        }
        // Two HTTP endpoints of servers that ask for input: said once.
        "http" => {
            let _ = asking_server(true).into_router(options());
            let _ = asking_server(true).into_router(options());
        }
        // Nothing asks for input: nothing is sealed, nothing to say.
        "http-no-input" => {
            let _ = asking_server(false).into_router(options());
        }
        other => panic!("no case {other:?}"),
    }
}

#[test]
fn the_local_key_warning_is_for_http_servers_that_ask_for_input() {
    let run = |case: &str, key: Option<&str>| {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child
            .args([
                "mrtr::local_key_warning_child",
                "--exact",
                "--ignored",
                "--nocapture",
            ])
            .env("MCP_KEY_WARNING_CASE", case)
            .env_remove("MCP_STATE_KEY")
            .env_remove("RUST_LOG");
        if let Some(key) = key {
            child.env("MCP_STATE_KEY", key);
        }
        let out = child.output().expect("the test binary starts again");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{case}: {stderr}");
        stderr.matches(KEY_WARNING).count()
    };
    assert_eq!(run("in-process", None), 0, "in process: no warning");
    assert_eq!(
        run("http-no-input", None),
        0,
        "nothing asks for input: no warning"
    );
    assert_eq!(
        run("http", None),
        1,
        "HTTP and a round of input: one warning"
    );
    let key = common::base64(&[7u8; 32]);
    assert_eq!(run("http", Some(&key)), 0, "a configured key: no warning");
}
