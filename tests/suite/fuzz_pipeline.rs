//! Property-based fuzzing of the request pipeline (decode → validate → route → encode), in
//! process through `Server::handle_message`, against the fixture server of
//! `tests/common/pipeline_fixture.rs`. Every generated message must be answered without a panic
//! by exactly one valid JSON-RPC response (after any notifications), whose `id` is the request's
//! (absent only when it could not be read, with `-32700`/`-32600`), with an error code in the
//! documented set; `-32700` exactly for bodies that are not JSON; never `-32600` for a
//! well-formed envelope (the oracle is `pipeline_fixture::check`).
//!
//! Three generators, mixed:
//! - **structural**: JSON-RPC envelopes whose members (`jsonrpc`, `id`, `method`, `params`,
//!   every field of every method's params, every `_meta` key) are each valid, absent, or any
//!   JSON value; ids include the absurd (huge integers, floats, long strings, objects);
//! - **random JSON**: any JSON value, and values nested around and past serde_json's recursion
//!   limit;
//! - **byte mutations** of the seed requests (and of a live second-round request with a sealed
//!   `requestState`): bit flips, inserted tokens, invalid UTF-8, NUL bytes, cut and duplicated
//!   ranges.
//!
//! Runs:
//! - the short run is part of `cargo test` (`cargo test --test suite fuzz_pipeline::`): 3,000
//!   cases;
//! - the long run, at least a million messages (`FUZZ_CASES`, default 1,000,000):
//!   `FUZZ_CASES=1000000 cargo test --release --test suite fuzz_pipeline:: -- --ignored
//!   --nocapture`.
//!   It prints the number of executions and failures; a failure stops it with the shrunk body.
//!
//! The coverage-guided fuzzer of the same pipeline and oracle is the AFL++ target in `fuzz/`
//! (see `fuzz/README.md`).

use crate::common::pipeline_fixture as fixture;

use fixture::{Outcome, check};
use mcp_runtime::protocol::Method;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};
use std::cell::Cell;

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/// Strings that matter to the pipeline, and some that do not.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("2.0".to_owned()),
        Just(fixture::VERSION.to_owned()),
        Just("tools/call".to_owned()),
        Just("echo".to_owned()),
        Just("test://static".to_owned()),
        Just("test://items/{id}".to_owned()),
        Just("greet".to_owned()),
        Just("\u{0}".to_owned()),
        Just("é\u{202e}\u{fffd}".to_owned()),
        Just("x".repeat(5000)),
        proptest::collection::vec(any::<char>(), 0..12).prop_map(|c| c.into_iter().collect()),
        "[a-z/]{0,16}".prop_map(|s| s),
    ]
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((text(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A member: usually valid, sometimes absent, sometimes any JSON.
fn member(valid: Value) -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        6 => Just(Some(valid)),
        1 => Just(None),
        2 => any_json().prop_map(Some),
    ]
}

/// Ids: valid and absurd.
fn id() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        4 => any::<i64>().prop_map(|i| Some(json!(i))),
        2 => text().prop_map(|s| Some(json!(s))),
        1 => Just(None),
        1 => Just(Some(Value::Null)),
        1 => Just(Some(json!(u64::MAX))),
        1 => any::<f64>().prop_map(|f| Some(serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number))),
        1 => any_json().prop_map(Some),
    ]
}

fn object(members: Vec<(&'static str, Option<Value>)>) -> Value {
    Value::Object(
        members
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect::<Map<_, _>>(),
    )
}

/// `_meta` with each key valid, absent or any JSON (and sometimes replaced whole).
fn meta() -> impl Strategy<Value = Option<Value>> {
    let keys = (
        member(json!(fixture::VERSION)),
        member(json!({"elicitation": {}})),
        member(json!({"name": "fuzz", "version": "1"})),
        prop_oneof![Just(None), member(json!("debug"))],
        prop_oneof![Just(None), member(json!("p-1"))],
        prop_oneof![Just(None), any_json().prop_map(Some)],
    )
        .prop_map(|(version, caps, info, level, token, other)| {
            object(vec![
                ("io.modelcontextprotocol/protocolVersion", version),
                ("io.modelcontextprotocol/clientCapabilities", caps),
                ("io.modelcontextprotocol/clientInfo", info),
                ("io.modelcontextprotocol/logLevel", level),
                ("progressToken", token),
                ("com.example/other", other),
            ])
        });
    prop_oneof![
        8 => keys.prop_map(Some),
        1 => Just(None),
        1 => any_json().prop_map(Some),
    ]
}

/// The params of one method: every field valid, absent or any JSON.
fn params_of(method: &'static str) -> BoxedStrategy<Value> {
    let with_meta = |s: BoxedStrategy<Vec<(&'static str, Option<Value>)>>| {
        (s, meta())
            .prop_map(|(mut members, meta)| {
                members.push(("_meta", meta));
                object(members)
            })
            .boxed()
    };
    match method {
        "tools/call" => with_meta(
            (
                member(json!("echo")),
                prop_oneof![
                    member(json!({"text": "hi"})),
                    member(json!({"region": "eu", "count": 2})),
                    member(json!({})),
                ],
                prop_oneof![
                    Just(None),
                    member(json!({"word": {"action": "accept", "content": {"value": "w"}}}))
                ],
                prop_oneof![Just(None), member(json!("v1.not-a-state"))],
            )
                .prop_map(|(name, arguments, responses, state)| {
                    vec![
                        ("name", name),
                        ("arguments", arguments),
                        ("inputResponses", responses),
                        ("requestState", state),
                    ]
                })
                .boxed(),
        ),
        "resources/read" => with_meta(
            (
                member(json!("test://static")),
                prop_oneof![Just(None), any_json().prop_map(Some)],
                prop_oneof![Just(None), any_json().prop_map(Some)],
            )
                .prop_map(|(uri, responses, state)| {
                    vec![
                        ("uri", uri),
                        ("inputResponses", responses),
                        ("requestState", state),
                    ]
                })
                .boxed(),
        ),
        "prompts/get" => with_meta(
            (
                member(json!("greet")),
                member(json!({"name": "Ada"})),
                prop_oneof![Just(None), any_json().prop_map(Some)],
                prop_oneof![Just(None), any_json().prop_map(Some)],
            )
                .prop_map(|(name, arguments, responses, state)| {
                    vec![
                        ("name", name),
                        ("arguments", arguments),
                        ("inputResponses", responses),
                        ("requestState", state),
                    ]
                })
                .boxed(),
        ),
        "completion/complete" => with_meta(
            (
                prop_oneof![
                    member(json!({"type": "ref/prompt", "name": "greet"})),
                    member(json!({"type": "ref/resource", "uri": "test://items/{id}"})),
                ],
                member(json!({"name": "name", "value": "A"})),
                prop_oneof![Just(None), member(json!({"arguments": {"id": "1"}}))],
            )
                .prop_map(|(reference, argument, context)| {
                    vec![
                        ("ref", reference),
                        ("argument", argument),
                        ("context", context),
                    ]
                })
                .boxed(),
        ),
        "subscriptions/listen" => with_meta(
            member(json!({"toolsListChanged": true, "resourceSubscriptions": ["test://static"]}))
                .prop_map(|n| vec![("notifications", n)])
                .boxed(),
        ),
        "skills/get" => with_meta(
            prop_oneof![
                member(json!("skill://pdf-processing/SKILL.md")),
                member(json!("skill://pdf-processing/templates/../SKILL.md")),
                member(json!("skill://nope/SKILL.md")),
                any_json().prop_map(Some),
                Just(None)
            ]
            .prop_map(|u| vec![("uri", u)])
            .boxed(),
        ),
        "resources/directory/read" => with_meta(
            (
                prop_oneof![
                    member(json!("skill://pdf-processing")),
                    member(json!("skill://acme")),
                    member(json!("skill://pdf-processing/SKILL.md")),
                    any_json().prop_map(Some),
                ],
                prop_oneof![
                    Just(None),
                    member(json!(
                        "ZGlyZWN0b3J5CnNraWxsOi8vcGRmLXByb2Nlc3NpbmcvU0tJTEwubWQ"
                    )),
                    any_json().prop_map(Some)
                ],
            )
                .prop_map(|(uri, cursor)| vec![("uri", uri), ("cursor", cursor)])
                .boxed(),
        ),
        "tools/list"
        | "resources/list"
        | "resources/templates/list"
        | "prompts/list"
        | "skills/list" => with_meta(
            prop_oneof![
                Just(None),
                member(json!("bm90IGEgY3Vyc29y")),
                any_json().prop_map(Some)
            ]
            .prop_map(|c| vec![("cursor", c)])
            .boxed(),
        ),
        "tasks/get" | "tasks/cancel" | "tasks/update" => with_meta(
            prop_oneof![
                member(json!("bm90IGEgdGFzaw")),
                any_json().prop_map(Some),
                Just(None)
            ]
            .prop_map(|t| vec![("taskId", t)])
            .boxed(),
        ),
        _ => with_meta(Just(Vec::new()).boxed()),
    }
}

/// Every method of the revision (from its table), a removed one and a notification.
fn methods() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Method::ALL.iter().map(|m| m.name()).collect();
    names.extend(["initialize", "notifications/cancelled"]);
    names
}

/// A JSON-RPC envelope with each member valid, absent or any JSON.
fn structural() -> impl Strategy<Value = Vec<u8>> {
    proptest::sample::select(methods())
        .prop_flat_map(|method| {
            (
                member(json!("2.0")),
                id(),
                member(json!(method)),
                prop_oneof![
                    8 => params_of(method).prop_map(Some),
                    1 => Just(None),
                    1 => any_json().prop_map(Some),
                ],
                prop_oneof![8 => Just(None), 1 => any_json().prop_map(Some)],
            )
        })
        .prop_map(|(jsonrpc, id, method, params, result)| {
            let v = object(vec![
                ("jsonrpc", jsonrpc),
                ("id", id),
                ("method", method),
                ("params", params),
                ("result", result),
            ]);
            serde_json::to_vec(&v).expect("serializable")
        })
}

/// Any JSON value as a body, and values nested around serde_json's recursion limit (128) and
/// far past it.
fn random_json() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        any_json().prop_map(|v| serde_json::to_vec(&v).expect("serializable")),
        (100usize..140, any::<bool>(), 0usize..3).prop_map(|(depth, arrays, place)| {
            let (open, close) = if arrays { ("[", "]") } else { ("{\"k\":", "}") };
            let nested = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            let meta = serde_json::to_string(&fixture::meta()).expect("serializable");
            match place {
                0 => nested.into_bytes(),
                1 => format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{nested}}},"_meta":{meta}}}}}"#
                )
                .into_bytes(),
                _ => format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"name":"greet","arguments":{{"name":"a","x":{nested}}},"_meta":{meta}}}}}"#
                )
                .into_bytes(),
            }
        }),
        Just(format!("{}{}", "[".repeat(20_000), "]".repeat(20_000)).into_bytes()),
    ]
}

/// One byte-level edit.
#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Remove(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

const TOKENS: [&[u8]; 22] = [
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"null",
    b"\\",
    b"\\u0000",
    b"\0",
    b"\xff",
    b"\xc0\x80",
    b"\\ud800",
    b"-1",
    b"1e999",
    b"9223372036854775808",
    b"0.5",
    b"true",
    b"\"id\":7,",
    b"\"method\":\"tools/list\",",
    b"\"_meta\":{},",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(at, mask)| Edit::Flip(at, mask)),
        (any::<usize>(), proptest::sample::select(TOKENS.to_vec()))
            .prop_map(|(at, t)| Edit::Insert(at, t.to_vec())),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..4))
            .prop_map(|(at, b)| Edit::Insert(at, b)),
        (any::<usize>(), 1usize..16).prop_map(|(at, n)| Edit::Remove(at, n)),
        (any::<usize>(), 1usize..64).prop_map(|(at, n)| Edit::Duplicate(at, n)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut body: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = body.len();
        let at = |i: usize| if len == 0 { 0 } else { i % (len + 1) };
        match e {
            Edit::Flip(i, mask) if len > 0 => body[i % len] ^= mask,
            Edit::Flip(..) => {}
            Edit::Insert(i, bytes) => {
                let i = at(*i);
                body.splice(i..i, bytes.iter().copied());
            }
            Edit::Remove(i, n) => {
                let i = at(*i);
                body.drain(i..(i + n).min(len));
            }
            Edit::Duplicate(i, n) => {
                let i = at(*i);
                let piece = body[i..(i + n).min(len)].to_vec();
                body.splice(i..i, piece);
            }
            Edit::Truncate(i) => body.truncate(at(*i)),
        }
    }
    body
}

fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::sample::select(seeds),
        proptest::collection::vec(edit(), 1..5),
    )
        .prop_map(|(seed, edits)| apply(seed, &edits))
}

/// Every generator.
fn messages(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => structural(),
        1 => random_json(),
        4 => mutated(seeds),
    ]
}

// ---------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
}

/// A second-round `two_rounds` call with a freshly sealed `requestState`: mutations of it reach
/// the sealed-state and `inputResponses` checks.
fn live_round_two(rt: &tokio::runtime::Runtime, server: &mcp_runtime::Server) -> Vec<u8> {
    let first = fixture::request(
        json!("round-1"),
        "tools/call",
        json!({"name": "two_rounds", "arguments": {}}),
    );
    let body = serde_json::to_vec(&first).expect("serializable");
    let Ok(Outcome::Result(result)) = rt.block_on(check(server, &body)) else {
        panic!("the first round is not a result");
    };
    assert_eq!(result["resultType"], "input_required", "{result}");
    let state = result["requestState"].clone();
    let second = fixture::request(
        json!("round-2"),
        "tools/call",
        json!({
            "name": "two_rounds",
            "arguments": {},
            "inputResponses": {"word": {"action": "accept", "content": {"value": "kiwi"}}},
            "requestState": state,
        }),
    );
    serde_json::to_vec(&second).expect("serializable")
}

/// Runs `cases` generated messages through the oracle; the number of executions and the first
/// failure (shrunk), if any.
fn fuzz(cases: u32) -> (u64, Option<String>) {
    let rt = runtime();
    let server = fixture::server();
    let mut seeds = fixture::seeds();
    seeds.push(live_round_two(&rt, &server));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 512,
        ..Config::default()
    });
    let executions = Cell::new(0u64);
    let result = runner.run(&messages(seeds), |body| {
        executions.set(executions.get() + 1);
        rt.block_on(check(&server, &body))
            .map(|_| ())
            .map_err(|why| {
                TestCaseError::fail(format!(
                    "{why}\nbody: {}",
                    String::from_utf8_lossy(&body[..body.len().min(2000)])
                ))
            })
    });
    (executions.get(), result.err().map(|e| e.to_string()))
}

/// Every seed answers as it should (the oracle passes and sees what the seed asks for), and
/// the oracle refuses a wrong answer: it is not vacuous.
#[test]
fn seeds_answer_as_expected() {
    let rt = runtime();
    let server = fixture::server();
    let outcomes: Vec<Outcome> = fixture::seeds()
        .iter()
        .map(|body| {
            rt.block_on(check(&server, body))
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
        })
        .collect();
    let results = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Result(r) if r["resultType"] == "complete"))
        .count();
    assert_eq!(results, 18, "{outcomes:?}");
    assert!(outcomes.contains(&Outcome::Listening));
    assert!(outcomes.contains(&Outcome::Notification));
    assert!(outcomes.contains(&Outcome::Error(-32601)));
    assert!(outcomes.contains(&Outcome::Error(-32602)), "invalid cursor");
    assert!(
        outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Result(r) if r["resultType"] == "input_required"))
    );
    // The second round of a multi-round call, with a live state, completes.
    let second = live_round_two(&rt, &server);
    match rt.block_on(check(&server, &second)) {
        Ok(Outcome::Result(r)) => assert_eq!(r["content"][0]["text"], "the word is kiwi"),
        other => panic!("{other:?}"),
    }
    // Unreadable bodies: -32700 without id; readable ids are echoed.
    for (body, want) in [
        (&b"{\"jsonrpc\":"[..], Outcome::Error(-32700)),
        (&b"\xff\xfe"[..], Outcome::Error(-32700)),
        (&b"[1]"[..], Outcome::Error(-32600)),
        (
            &br#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"tools/list"}"#[..],
            Outcome::Error(-32600),
        ),
    ] {
        assert_eq!(rt.block_on(check(&server, body)), Ok(want));
    }
}

#[test]
fn short_fuzz_run() {
    let (executions, failure) = fuzz(3_000);
    if let Some(f) = failure {
        panic!("the pipeline failed a generated message:\n{f}");
    }
    assert_eq!(executions, 3_000);
}

/// The long run: `FUZZ_CASES` messages (default one million). See the module docs.
#[test]
#[ignore = "long run: FUZZ_CASES=1000000 cargo test --release --test suite fuzz_pipeline:: -- --ignored --nocapture"]
fn long_fuzz_run() {
    let cases = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(1_000_000);
    let started = std::time::Instant::now();
    let (executions, failure) = fuzz(cases);
    println!(
        "long fuzz run: {executions} executions, {} failures, {:.1} s",
        usize::from(failure.is_some()),
        started.elapsed().as_secs_f64()
    );
    if let Some(f) = failure {
        panic!("the pipeline failed a generated message:\n{f}");
    }
}
