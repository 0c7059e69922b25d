//! In-process micro-benchmarks (divan): one request dispatched without sockets, an MRTR round
//! (sealing a `requestState`, then opening it on the retry), argument validation, and a
//! `tools/list` page for 100, 1,000 and 10,000 registered tools.
//!
//! Run: `cargo bench -p mcp-bench --bench micro`.

#[path = "../../examples/study-server/server.rs"]
#[allow(dead_code, unreachable_pub)]
mod study;

use divan::Bencher;
use mcp_bench::{Request, add_call, mrtr_first, mrtr_retry, tools_list};
use mcp_runtime::Server;
use std::sync::OnceLock;

fn main() {
    divan::main();
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
    })
}

fn server(fill: usize, validate: bool) -> Server {
    mcp_bench::build_server(study::build, fill, validate).expect("the bench server builds")
}

fn dispatch(server: &Server, req: &Request) -> usize {
    runtime().block_on(async {
        match server.handle_message(req.body.as_bytes(), Default::default()) {
            Some(call) => call.response().await.body.len(),
            None => 0,
        }
    })
}

fn json_of(server: &Server, req: &Request) -> serde_json::Value {
    runtime().block_on(async {
        let call = server
            .handle_message(req.body.as_bytes(), Default::default())
            .expect("a request");
        serde_json::from_slice(&call.response().await.body).expect("JSON")
    })
}

/// The baseline's work in-process: parse the body with serde_json, serialize the envelope.
#[divan::bench]
fn baseline_parse_and_answer(b: Bencher) {
    let body = add_call(false).body;
    b.bench(|| mcp_bench::baseline_answer(divan::black_box(body.as_bytes())));
}

/// `tools/call` of `add` through `Server::handle_message` (JSON answer).
#[divan::bench]
fn dispatch_tools_call(b: Bencher) {
    let s = server(0, false);
    let req = add_call(false);
    b.bench(|| dispatch(&s, divan::black_box(&req)));
}

/// `tools/call` of `add` with a progress token (two notifications, then the answer).
#[divan::bench]
fn dispatch_tools_call_progress(b: Bencher) {
    let s = server(0, false);
    let req = add_call(true);
    b.bench(|| dispatch(&s, divan::black_box(&req)));
}

/// `resources/read` of `config://service`.
#[divan::bench]
fn dispatch_resource_read(b: Bencher) {
    let s = server(0, false);
    let req = mcp_bench::resource_read();
    b.bench(|| dispatch(&s, divan::black_box(&req)));
}

/// MRTR first round: `input_required` with a freshly sealed `requestState`.
#[divan::bench]
fn mrtr_seal_first_round(b: Bencher) {
    let s = server(0, false);
    let req = mrtr_first();
    b.bench(|| dispatch(&s, divan::black_box(&req)));
}

/// MRTR retry: open and verify the `requestState`, decode the answers, run the tool.
#[divan::bench]
fn mrtr_open_retry(b: Bencher) {
    let s = server(0, false);
    let v = json_of(&s, &mrtr_first());
    let state = v["result"]["requestState"].as_str().expect("a state");
    let req = mrtr_retry(state);
    b.bench(|| dispatch(&s, divan::black_box(&req)));
}

/// `tools/call` with a 20-field argument object (validated against its compiled schema).
/// Sealing and opening a typical `requestState` payload alone (about 400 bytes of JSON: binding,
/// expiry, round, three collected answers), with AES-256-GCM-SIV.
#[divan::bench]
fn seal_and_open_state(b: Bencher) {
    let ring = mcp_runtime::KeyRing::new(&[[9; 32]]).expect("a key");
    let payload = serde_json::to_vec(&serde_json::json!({
        "b": {"m": "tools/call", "n": "prepare_review", "d": "x2O1g1c3lYt0vN3Q6i0n1o0wq2vj2h3m5a9z8y7x6w5"},
        "e": 1_800_000_000_000u64,
        "r": 1,
        "a": {
            "workspace_scope": {"roots": [{"uri": "file:///workspace/release", "name": "release"}]},
            "review_sample": {"role": "assistant", "content": {"type": "text", "text": "Check correctness and rollback risk."}, "model": "m"},
            "review_goal": {"action": "accept", "content": {"goal": "find correctness risks"}}
        }
    }))
    .expect("JSON");
    b.bench(|| {
        let token = ring.seal(divan::black_box(&payload)).expect("sealed");
        ring.open(&token).expect("opened").len()
    });
}

#[divan::bench]
fn dispatch_validate_20_fields(b: Bencher) {
    let s = server(0, true);
    let req = mcp_bench::validate_call();
    b.bench(|| dispatch(&s, divan::black_box(&req)));
}

/// The validation alone: the same 20-field schema compiled once with `jsonschema`.
#[divan::bench]
fn jsonschema_validate_20_fields(b: Bencher) {
    let schema =
        serde_json::Value::Object(mcp_runtime::schema::schema_for::<mcp_bench::Registration>());
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .expect("a valid schema");
    let args = mcp_bench::twenty_arguments();
    b.bench(|| validator.is_valid(divan::black_box(&args)));
}

/// Page 2 of `tools/list` (50 per page) with 100, 1,000 and 10,000 registered tools: the cost
/// should not depend on the total.
#[divan::bench(args = [100, 1000, 10000], sample_count = 30)]
fn tools_list_page(b: Bencher, tools: usize) {
    let s = server(tools, false);
    let first = json_of(&s, &tools_list(None));
    let cursor = first["result"]["nextCursor"].as_str().expect("a cursor");
    let req = tools_list(Some(cursor));
    b.bench(|| dispatch(&s, divan::black_box(&req)));
}
