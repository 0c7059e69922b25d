//! The Lambda target (`--features lambda`): API Gateway REST (payload 1.0), HTTP API (payload
//! 2.0) and Function URL events, written as AWS sends them (base64 bodies, multi-value headers,
//! a stage in the path), turned into requests by `lambda_http` and answered by the service
//! `Server::run_lambda` serves; their answers turned back into the response event AWS reads.
//! The study server (with two task tools of this file) is the function.
#![cfg(feature = "lambda")]

mod common;

#[path = "../examples/study-server/server.rs"]
#[allow(dead_code)]
mod study;

use common::{assert_response_valid, headers_for, request, sse_messages};
use mcp_runtime::auth::{ResourceServer, TokenError, verifier_fn};
use mcp_runtime::lambda::lambda_http::Service as _;
use mcp_runtime::lambda::lambda_http::lambda_runtime::{FunctionResponse, StreamResponse};
use mcp_runtime::lambda::lambda_http::request::LambdaRequest;
use mcp_runtime::lambda::lambda_http::{self, Context, LambdaEvent, RequestExt as _};
use mcp_runtime::lambda::{LambdaOptions, LambdaService};
use mcp_runtime::{Caller, HttpOptions, KeyRing, NoArguments, Progress, Server, Tool, tool};
use serde_json::{Value, json};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Summarize a text: its words and characters.
#[tool(task = "optional")]
async fn digest(text: String, progress: Progress) -> String {
    progress.report(0.5, Some(1.0), Some("counting"));
    format!(
        "{} words, {} characters",
        text.split_whitespace().count(),
        text.chars().count()
    )
}

/// Rebuild the search index (minutes of work: only ever a task).
#[tool(task = "required")]
async fn reindex() -> String {
    "reindexed".to_owned()
}

/// The Function URL, HTTP API and REST API the events come through.
const URL_DOMAIN: &str = "f3kzq7m2xdbnw5tyrqe4hu6vca0lgpsj.lambda-url.eu-west-1.on.aws";
const API_DOMAIN: &str = "r3pmxmplak.execute-api.eu-west-1.amazonaws.com";
const REST_DOMAIN: &str = "8kq2w0ttbc.execute-api.eu-west-1.amazonaws.com";
/// The client, as AWS saw it.
const SOURCE_IP: &str = "198.51.100.23";

const KEY: [u8; 32] = [7; 32];

/// The study server with a shared `requestState` key.
fn study_server() -> Server {
    study::build(Some(KeyRing::new(&[KEY]).unwrap())).unwrap()
}

fn service_of(server: Server, options: impl Into<LambdaOptions>) -> LambdaService {
    server
        .lambda_service(options)
        .expect("the server starts on Lambda")
}

/// How an event reached the function.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Via {
    /// A Function URL (payload 2.0, route `$default`).
    FunctionUrl,
    /// An API Gateway HTTP API (payload 2.0).
    HttpApi,
    /// An API Gateway REST API (payload 1.0) on stage `prod`.
    RestApi,
}

/// An HTTP request as a client sent it, before AWS wrote it as an event.
#[derive(Clone)]
struct Sent {
    method: &'static str,
    path: &'static str,
    /// In the order sent; a name may repeat.
    headers: Vec<(String, String)>,
    body: String,
    /// Whether AWS hands the body over in base64.
    base64: bool,
}

impl Sent {
    /// A conforming client's POST of `message` to `/mcp`, on `host`.
    fn post(message: &Value, host: &str) -> Sent {
        let mut headers = vec![("Host".to_owned(), host.to_owned())];
        headers.extend(headers_for(message));
        headers.push(("User-Agent".to_owned(), "mcp-tests/1.0".to_owned()));
        Sent {
            method: "POST",
            path: "/mcp",
            headers,
            body: message.to_string(),
            base64: false,
        }
    }

    fn header(mut self, name: &str, value: &str) -> Sent {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    fn without(mut self, name: &str) -> Sent {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    fn base64(mut self) -> Sent {
        self.base64 = true;
        self
    }

    /// The event AWS hands the function for this request.
    fn event(&self, via: Via) -> Value {
        let body = match self.base64 {
            true => common::base64(self.body.as_bytes()),
            false => self.body.clone(),
        };
        let body = match self.method {
            "GET" | "DELETE" | "OPTIONS" if self.body.is_empty() => Value::Null,
            _ => Value::String(body),
        };
        match via {
            Via::FunctionUrl | Via::HttpApi => {
                // Payload 2.0: header names in lowercase, repeated values joined with commas.
                let mut headers = serde_json::Map::new();
                for (name, value) in &self.headers {
                    let name = name.to_ascii_lowercase();
                    match headers.get_mut(&name) {
                        Some(Value::String(joined)) => *joined = format!("{joined},{value}"),
                        _ => {
                            headers.insert(name, Value::String(value.clone()));
                        }
                    }
                }
                let (domain, route) = match via {
                    Via::FunctionUrl => (URL_DOMAIN, "$default".to_owned()),
                    _ => (API_DOMAIN, format!("{} {}", self.method, self.path)),
                };
                let prefix = domain.split('.').next().unwrap();
                let mut context = json!({
                    "accountId": if via == Via::FunctionUrl { "anonymous" } else { "123456789012" },
                    "apiId": prefix,
                    "domainName": domain,
                    "domainPrefix": prefix,
                    "http": {
                        "method": self.method,
                        "path": self.path,
                        "protocol": "HTTP/1.1",
                        "sourceIp": SOURCE_IP,
                        "userAgent": "mcp-tests/1.0"
                    },
                    "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
                    "routeKey": route,
                    "stage": "$default",
                    "time": "12/Mar/2026:19:03:58 +0000",
                    "timeEpoch": 1_773_342_238_000_u64
                });
                if via == Via::HttpApi {
                    context["authorizer"] =
                        json!({"jwt": {"claims": {"sub": "u-1"}, "scopes": null}});
                }
                json!({
                    "version": "2.0",
                    "routeKey": route,
                    "rawPath": self.path,
                    "rawQueryString": "",
                    "headers": headers,
                    "requestContext": context,
                    "body": body,
                    "isBase64Encoded": self.base64
                })
            }
            Via::RestApi => {
                // Payload 1.0: `headers` holds the last value of each, `multiValueHeaders` all.
                let mut single = serde_json::Map::new();
                let mut multi = serde_json::Map::new();
                for (name, value) in &self.headers {
                    single.insert(name.clone(), Value::String(value.clone()));
                    match multi.get_mut(name) {
                        Some(Value::Array(values)) => values.push(Value::String(value.clone())),
                        _ => {
                            multi.insert(name.clone(), json!([value]));
                        }
                    }
                }
                json!({
                    "resource": self.path,
                    "path": self.path,
                    "httpMethod": self.method,
                    "headers": single,
                    "multiValueHeaders": multi,
                    "queryStringParameters": null,
                    "multiValueQueryStringParameters": null,
                    "pathParameters": null,
                    "stageVariables": null,
                    "requestContext": {
                        "accountId": "123456789012",
                        "apiId": "8kq2w0ttbc",
                        "domainName": REST_DOMAIN,
                        "domainPrefix": "8kq2w0ttbc",
                        "extendedRequestId": "BQGojGkVoAMFzAQ=",
                        "httpMethod": self.method,
                        "identity": {
                            "accessKey": null,
                            "accountId": null,
                            "caller": null,
                            "cognitoIdentityId": null,
                            "cognitoIdentityPoolId": null,
                            "sourceIp": SOURCE_IP,
                            "user": null,
                            "userAgent": "mcp-tests/1.0",
                            "userArn": null
                        },
                        "path": format!("/prod{}", self.path),
                        "protocol": "HTTP/1.1",
                        "requestId": "41b45ea3-70b5-11e6-b7bd-69b5aaebc7d9",
                        "requestTime": "12/Mar/2026:19:03:58 +0000",
                        "requestTimeEpoch": 1_773_342_238_000_u64,
                        "resourceId": "roq9wj",
                        "resourcePath": self.path,
                        "stage": "prod"
                    },
                    "body": body,
                    "isBase64Encoded": self.base64
                })
            }
        }
    }
}

/// The answer as API Gateway or the Function URL reads it from the response event.
#[derive(Debug)]
struct Answered {
    status: u16,
    /// Lowercase names, every value.
    headers: Vec<(String, String)>,
    body: String,
}

impl Answered {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {}", self.body))
    }

    /// The JSON-RPC error's code and message.
    fn error(&self) -> (i64, String) {
        let v = self.json();
        let code = v["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error: {v}"));
        (code, v["error"]["message"].as_str().unwrap().to_owned())
    }
}

/// Invokes `service` with `event` as `Server::run_lambda` does (the event deserialized and
/// handed to the service, which makes it a request with `lambda_http` and writes the response
/// as the event's response shape), and reads the response event.
async fn invoke(service: &LambdaService, event: &Value) -> Answered {
    invoke_with(service, event, Context::default()).await
}

async fn invoke_with(service: &LambdaService, event: &Value, context: Context) -> Answered {
    let payload: LambdaRequest =
        serde_json::from_value(event.clone()).expect("lambda_http reads the event");
    let response = common::within(
        "the invocation",
        service.clone().call(LambdaEvent::new(payload, context)),
    )
    .await
    .unwrap();
    let FunctionResponse::BufferedResponse(response) = response else {
        panic!("a streamed answer without response streaming");
    };
    let out = serde_json::to_value(&response).unwrap();
    let status = out["statusCode"].as_u64().expect("a statusCode") as u16;
    let mut headers = Vec::new();
    for (name, value) in out["headers"].as_object().into_iter().flatten() {
        headers.push((
            name.to_ascii_lowercase(),
            value.as_str().unwrap().to_owned(),
        ));
    }
    for (name, values) in out["multiValueHeaders"].as_object().into_iter().flatten() {
        for value in values.as_array().unwrap() {
            headers.push((
                name.to_ascii_lowercase(),
                value.as_str().unwrap().to_owned(),
            ));
        }
    }
    assert_eq!(out["isBase64Encoded"], false, "{out}");
    let body = out["body"].as_str().unwrap_or_default().to_owned();
    Answered {
        status,
        headers,
        body,
    }
}

/// Invokes a streaming `service` with `event`: the answer's prelude, and its stream.
async fn stream(
    service: &LambdaService,
    event: &Value,
) -> StreamResponse<impl futures_core::Stream<Item = Result<bytes::Bytes, axum::Error>> + use<>> {
    let payload: LambdaRequest = serde_json::from_value(event.clone()).unwrap();
    let response = service
        .clone()
        .call(LambdaEvent::new(payload, Context::default()))
        .await
        .unwrap();
    match response {
        FunctionResponse::StreamingResponse(response) => response,
        FunctionResponse::BufferedResponse(_) => panic!("buffered with response streaming"),
    }
}

fn call_add(id: i64, a: i64, b: i64) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": "add", "arguments": {"a": a, "b": b}}),
    )
}

/// `add` with a progress token: its handler reports progress twice.
fn call_add_with_progress(id: i64, a: i64, b: i64) -> Value {
    let mut meta = common::meta();
    meta["progressToken"] = json!(format!("p-{id}"));
    request(
        id,
        "tools/call",
        json!({"name": "add", "arguments": {"a": a, "b": b}, "_meta": meta}),
    )
}

/// `_meta` with these client capabilities.
fn meta_with(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-tests", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

#[tokio::test]
async fn discover_through_a_function_url_advertises_nothing_to_listen_for() {
    let service = service_of(study_server(), LambdaOptions::default());
    let message = request(1, "server/discover", json!({}));
    let answered = invoke(
        &service,
        &Sent::post(&message, URL_DOMAIN).event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(answered.header("content-type"), Some("application/json"));
    let v = answered.json();
    assert_response_valid("server/discover", &v);
    let result = &v["result"];
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "study-server"
    );
    let caps = &result["capabilities"];
    assert!(caps["tools"].is_object(), "{caps}");
    assert!(caps["tools"].get("listChanged").is_none(), "{caps}");
    assert!(caps["resources"].get("subscribe").is_none(), "{caps}");
    // `digest` and `reindex` are task tools, yet no task is served here.
    let extensions = caps.get("extensions").cloned().unwrap_or_default();
    assert!(
        extensions.get("io.modelcontextprotocol/tasks").is_none(),
        "{caps}"
    );

    // The same server served by a long-lived process declares the extension.
    let caps = study_server().capabilities();
    assert!(
        caps.extensions
            .as_ref()
            .is_some_and(|e| e.contains_key("io.modelcontextprotocol/tasks"))
    );
}

#[tokio::test]
async fn a_call_through_an_http_api_and_a_base64_body_through_a_function_url() {
    let service = service_of(study_server(), LambdaOptions::default());
    let answered = invoke(
        &service,
        &Sent::post(&call_add(2, 2, 3), API_DOMAIN).event(Via::HttpApi),
    )
    .await;
    assert_eq!(answered.status, 200, "{answered:?}");
    let v = answered.json();
    assert_response_valid("tools/call", &v);
    assert_eq!(v["id"], 2);
    assert_eq!(v["result"]["content"][0]["text"], "5");
    assert_eq!(v["result"]["isError"], false);

    // A Function URL hands a body it takes for binary over in base64.
    let sent = Sent::post(&call_add(3, 40, 2), URL_DOMAIN).base64();
    let event = sent.event(Via::FunctionUrl);
    assert_eq!(event["isBase64Encoded"], true);
    assert!(!event["body"].as_str().unwrap().contains("tools/call"));
    let v = invoke(&service, &event).await.json();
    assert_eq!(v["result"]["content"][0]["text"], "42", "{v}");
}

#[tokio::test]
async fn a_rest_api_event_on_a_stage_with_multi_value_headers() {
    let service = service_of(study_server(), LambdaOptions::default());
    let message = request(4, "tools/list", json!({}));
    let sent = Sent::post(&message, REST_DOMAIN);
    let event = sent.event(Via::RestApi);
    // lambda_http puts the stage in front of the path: the endpoint is `/mcp` on any stage.
    let made = lambda_http::request::from_str(&event.to_string()).unwrap();
    assert_eq!(made.uri().path(), "/prod/mcp");
    assert_eq!(made.raw_http_path(), "/mcp");
    let answered = invoke(&service, &event).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    let v = answered.json();
    assert_response_valid("tools/list", &v);
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // `reindex` runs only as a task: not offered here. `digest` is an ordinary tool.
    assert!(
        names.contains(&"add") && names.contains(&"digest"),
        "{names:?}"
    );
    assert!(!names.contains(&"reindex"), "{names:?}");
    let digest = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "digest")
        .unwrap();
    assert!(digest.get("execution").is_none(), "{digest}");

    // A client sending Accept as two header lines: payload 1.0 carries both in
    // `multiValueHeaders` and the last in `headers`, and lambda_http keeps `headers`'s value
    // (`text/event-stream`): the answer comes as events.
    let sent = Sent::post(&call_add_with_progress(5, 1, 2), REST_DOMAIN)
        .without("Accept")
        .header("Accept", "application/json");
    let mut sent = sent;
    sent.headers
        .push(("Accept".to_owned(), "text/event-stream".to_owned()));
    let event = sent.event(Via::RestApi);
    assert_eq!(
        event["multiValueHeaders"]["Accept"],
        json!(["application/json", "text/event-stream"])
    );
    let answered = invoke(&service, &event).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(answered.header("content-type"), Some("text/event-stream"));
    let messages = sse_messages(answered.body.as_bytes());
    let last = messages.last().unwrap();
    assert_eq!(last["result"]["content"][0]["text"], "3", "{messages:?}");
    // Buffered whole: the two progress notifications of `add` came first.
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/progress");
}

#[tokio::test]
async fn a_multi_round_request_resumes_on_another_instance() {
    let arguments = json!({"topic": "release safety"});
    let caps = json!({"roots": {}, "sampling": {}, "elicitation": {}});
    let first = request(
        10,
        "tools/call",
        json!({"name": "prepare_review", "arguments": arguments, "_meta": meta_with(caps.clone())}),
    );
    // One invocation on one instance...
    let a = service_of(study_server(), LambdaOptions::default());
    let answered = invoke(&a, &Sent::post(&first, URL_DOMAIN).event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    let v = answered.json();
    assert_response_valid("tools/call", &v);
    let result = &v["result"];
    assert_eq!(result["resultType"], "input_required", "{v}");
    let asked: Vec<&String> = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(asked, ["review_goal", "review_sample", "workspace_scope"]);
    let state = result["requestState"].as_str().unwrap().to_owned();
    drop(a);

    // ... the retry on another: a process of its own, sharing only the key.
    let retry = request(
        11,
        "tools/call",
        json!({
            "name": "prepare_review",
            "arguments": arguments,
            "inputResponses": {
                "workspace_scope": {"roots": [{"uri": "file:///srv/release", "name": "release"}]},
                "review_sample": {
                    "role": "assistant",
                    "content": {"type": "text", "text": "Check rollback risk."},
                    "model": "m",
                    "stopReason": "endTurn"
                },
                "review_goal": {"action": "accept", "content": {"goal": "correctness"}}
            },
            "requestState": state,
            "_meta": meta_with(caps.clone()),
        }),
    );
    let b = service_of(
        study::build(Some(KeyRing::new(&[KEY]).unwrap())).unwrap(),
        LambdaOptions::default(),
    );
    let answered = invoke(&b, &Sent::post(&retry, API_DOMAIN).event(Via::HttpApi)).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    let v = answered.json();
    assert_response_valid("tools/call", &v);
    assert_eq!(v["result"]["resultType"], "complete", "{v}");
    let summary: Value =
        serde_json::from_str(v["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(summary["goal"], "correctness");
    assert_eq!(summary["rootCount"], 1);
    assert_eq!(summary["topic"], "release safety");

    // An instance with another key cannot open the state: the retry fails there.
    let c = service_of(
        study::build(Some(KeyRing::new(&[[9; 32]]).unwrap())).unwrap(),
        LambdaOptions::default(),
    );
    let v = invoke(&c, &Sent::post(&retry, API_DOMAIN).event(Via::HttpApi))
        .await
        .json();
    assert!(v.get("error").is_some(), "{v}");
}

#[test]
fn a_multi_round_server_without_a_shared_key_refuses_to_start() {
    let server = study::build(Some(KeyRing::random().unwrap())).unwrap();
    let err = server
        .lambda_service(LambdaOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("MCP_STATE_KEY"), "{err}");
    assert!(err.contains("ask the client for input"), "{err}");

    // A server that never asks for input seals nothing: a generated key is no matter.
    let plain = Server::builder()
        .state_keys(KeyRing::random().unwrap())
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .build()
        .unwrap();
    assert!(plain.lambda_service(LambdaOptions::default()).is_ok());
}

#[tokio::test]
async fn task_tools_run_in_their_call_and_tasks_and_listen_are_refused() {
    let service = service_of(study_server(), LambdaOptions::default());
    let tasks_caps = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    // A client declaring the tasks extension still gets the result in the call.
    let digest = request(
        20,
        "tools/call",
        json!({"name": "digest", "arguments": {"text": "one two three"},
               "_meta": meta_with(tasks_caps.clone())}),
    );
    let answered = invoke(
        &service,
        &Sent::post(&digest, URL_DOMAIN).event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 200, "{answered:?}");
    let v = answered.json();
    assert_response_valid("tools/call", &v);
    assert_eq!(v["result"]["resultType"], "complete", "{v}");
    assert_eq!(v["result"]["content"][0]["text"], "3 words, 13 characters");

    // A tool that only runs as a task: refused, saying why.
    let reindex = request(
        21,
        "tools/call",
        json!({"name": "reindex", "arguments": {}, "_meta": meta_with(tasks_caps.clone())}),
    );
    let answered = invoke(
        &service,
        &Sent::post(&reindex, URL_DOMAIN).event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 400, "{answered:?}");
    let (code, message) = answered.error();
    assert_eq!(code, -32602);
    assert!(message.contains("runs only as a task"), "{message}");
    assert!(message.contains("AWS Lambda"), "{message}");
    assert_response_valid("tools/call", &answered.json());

    // The tasks extension's methods and listen streams: not served, saying why.
    let get = request(
        22,
        "tasks/get",
        json!({"taskId": "t-1", "_meta": meta_with(tasks_caps.clone())}),
    );
    let listen = request(
        23,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    for (message, why) in [
        (get, "a task's handler runs on"),
        (listen, "a listen stream lasts"),
    ] {
        let answered = invoke(
            &service,
            &Sent::post(&message, API_DOMAIN).event(Via::HttpApi),
        )
        .await;
        assert_eq!(answered.status, 404, "{answered:?}");
        let (code, text) = answered.error();
        assert_eq!(code, -32601);
        assert!(text.contains("AWS Lambda") && text.contains(why), "{text}");
        assert_eq!(answered.json()["id"], message["id"]);
    }

    // A server that advertises list changes and subscriptions elsewhere does not here.
    let listening = study::builder(Some(KeyRing::new(&[KEY]).unwrap()))
        .list_changed(true)
        .resource_subscriptions(true)
        .build()
        .unwrap();
    assert_eq!(
        listening.capabilities().tools.unwrap().list_changed,
        Some(true)
    );
    let service = service_of(listening, LambdaOptions::default());
    let v = invoke(
        &service,
        &Sent::post(&request(24, "server/discover", json!({})), URL_DOMAIN).event(Via::FunctionUrl),
    )
    .await
    .json();
    let caps = &v["result"]["capabilities"];
    assert!(caps["tools"].get("listChanged").is_none(), "{caps}");
    assert!(caps["resources"].get("listChanged").is_none(), "{caps}");
    assert!(caps["resources"].get("subscribe").is_none(), "{caps}");
}

#[tokio::test]
async fn a_2025_client_is_told_what_this_function_speaks() {
    let service = service_of(study_server(), LambdaOptions::default());
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "old-host", "version": "1.0"}}
    });
    let sent = Sent {
        method: "POST",
        path: "/mcp",
        headers: vec![
            ("Host".to_owned(), URL_DOMAIN.to_owned()),
            ("Content-Type".to_owned(), "application/json".to_owned()),
            (
                "Accept".to_owned(),
                "application/json, text/event-stream".to_owned(),
            ),
        ],
        body: initialize.to_string(),
        base64: false,
    };
    let answered = invoke(&service, &sent.event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 400, "{answered:?}");
    let v = answered.json();
    assert_eq!(v["id"], 0);
    assert_eq!(v["error"]["code"], -32602);
    assert_eq!(v["error"]["data"]["supported"], json!(["2026-07-28"]));
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("AWS Lambda") && message.contains("2025-11-25"),
        "{message}"
    );

    // A request on a session, and its GET stream.
    let on_session = sent
        .clone()
        .header("Mcp-Session-Id", "s-1")
        .header("MCP-Protocol-Version", "2025-11-25");
    let answered = invoke(&service, &on_session.event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 400, "{answered:?}");
    let get = Sent {
        method: "GET",
        body: String::new(),
        ..on_session
    };
    let answered = invoke(&service, &get.event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 405, "{answered:?}");
    assert_eq!(answered.header("allow"), Some("POST"));
}

#[tokio::test]
async fn the_endpoints_header_checks_hold() {
    let service = service_of(study_server(), LambdaOptions::default());
    let message = call_add(30, 1, 1);
    let good = Sent::post(&message, URL_DOMAIN);

    // No MCP-Protocol-Version: 400, -32020 in the body.
    let answered = invoke(
        &service,
        &good
            .clone()
            .without("MCP-Protocol-Version")
            .event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 400, "{answered:?}");
    let (code, text) = answered.error();
    assert_eq!(code, -32020);
    assert!(text.contains("MCP-Protocol-Version"), "{text}");
    assert_response_valid("tools/call", &answered.json());

    // Mcp-Method and Mcp-Name that do not match the body.
    for sent in [
        good.clone().header("Mcp-Method", "tools/list"),
        good.clone().header("Mcp-Name", "prepare_review"),
    ] {
        let answered = invoke(&service, &sent.event(Via::FunctionUrl)).await;
        assert_eq!(answered.status, 400, "{answered:?}");
        assert_eq!(answered.error().0, -32020);
    }

    // Content-Type, Accept, the body limit.
    let answered = invoke(
        &service,
        &good
            .clone()
            .header("Content-Type", "text/plain")
            .event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 415, "{answered:?}");
    let answered = invoke(
        &service,
        &good
            .clone()
            .header("Accept", "text/html")
            .event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 406, "{answered:?}");
    let small = service_of(study_server(), HttpOptions::default().body_limit(64));
    let answered = invoke(&small, &good.clone().event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 413, "{answered:?}");
    assert_eq!(answered.error().0, -32600);

    // Another path: 404; the endpoint on another path: served there.
    let mut elsewhere = good.clone();
    elsewhere.path = "/other";
    let answered = invoke(&service, &elsewhere.event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 404, "{answered:?}");
    let moved = service_of(study_server(), HttpOptions::default().path("/other"));
    let answered = invoke(&moved, &elsewhere.event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    // On a REST API's stage too (`/prod/other`).
    let mut on_stage = Sent::post(&message, REST_DOMAIN);
    on_stage.path = "/other";
    let answered = invoke(&moved, &on_stage.event(Via::RestApi)).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(answered.json()["result"]["content"][0]["text"], "2");
}

#[tokio::test]
async fn host_and_origin_are_guarded() {
    let message = request(40, "server/discover", json!({}));
    let service = service_of(study_server(), LambdaOptions::default());
    // The domain each event names is accepted as its Host; a Host it does not name is not.
    for via in [Via::FunctionUrl, Via::HttpApi, Via::RestApi] {
        let host = match via {
            Via::FunctionUrl => URL_DOMAIN,
            Via::HttpApi => API_DOMAIN,
            Via::RestApi => REST_DOMAIN,
        };
        let answered = invoke(&service, &Sent::post(&message, host).event(via)).await;
        assert_eq!(answered.status, 200, "{via:?}: {answered:?}");
        let answered = invoke(&service, &Sent::post(&message, "evil.example").event(via)).await;
        assert_eq!(answered.status, 403, "{via:?}: {answered:?}");
    }
    // A custom domain in front: allowed by name.
    let custom = service_of(
        study_server(),
        HttpOptions::default().allow_host("mcp.example.com"),
    );
    let answered = invoke(
        &custom,
        &Sent::post(&message, "mcp.example.com").event(Via::HttpApi),
    )
    .await;
    assert_eq!(answered.status, 200, "{answered:?}");
    // Without the event's domain, only the names given (and loopback ones).
    let strict = service_of(
        study_server(),
        LambdaOptions::new(HttpOptions::default().allow_host("mcp.example.com"))
            .event_domain(false),
    );
    let answered = invoke(
        &strict,
        &Sent::post(&message, URL_DOMAIN).event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 403, "{answered:?}");
    let answered = invoke(
        &strict,
        &Sent::post(&message, "localhost:9000").event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 200, "{answered:?}");

    // Browser origins: refused unless allowed; an allowed one gets its CORS headers and
    // preflight.
    let from = |origin: &str| Sent::post(&message, URL_DOMAIN).header("Origin", origin);
    let answered = invoke(
        &service,
        &from("https://evil.example").event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 403, "{answered:?}");
    let app = service_of(
        study_server(),
        HttpOptions::default().allow_origin("https://app.example.com"),
    );
    let answered = invoke(
        &app,
        &from("https://app.example.com").event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(
        answered.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    let preflight = Sent {
        method: "OPTIONS",
        path: "/mcp",
        headers: vec![
            ("Host".to_owned(), URL_DOMAIN.to_owned()),
            ("Origin".to_owned(), "https://app.example.com".to_owned()),
            (
                "Access-Control-Request-Method".to_owned(),
                "POST".to_owned(),
            ),
            (
                "Access-Control-Request-Headers".to_owned(),
                "content-type, mcp-protocol-version, mcp-method".to_owned(),
            ),
        ],
        body: String::new(),
        base64: false,
    };
    let answered = invoke(&app, &preflight.event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 204, "{answered:?}");
    assert_eq!(
        answered.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
}

#[tokio::test]
async fn bearer_tokens_are_checked_and_the_metadata_is_served() {
    let resource = format!("https://{URL_DOMAIN}/mcp");
    let verifier = verifier_fn(|token: String| async move {
        match token.as_str() {
            "good" => Ok(Caller::new("alice")),
            _ => Err(TokenError::Invalid("unknown token".into())),
        }
    });
    let rs = ResourceServer::new(&resource, "https://auth.example.com", verifier).unwrap();
    let service = service_of(study_server(), HttpOptions::default().auth(rs));
    let message = call_add(50, 2, 2);
    let answered = invoke(
        &service,
        &Sent::post(&message, URL_DOMAIN).event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 401, "{answered:?}");
    let challenge = answered.header("www-authenticate").unwrap();
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    let answered = invoke(
        &service,
        &Sent::post(&message, URL_DOMAIN)
            .header("Authorization", "Bearer bad")
            .event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 401, "{answered:?}");
    let answered = invoke(
        &service,
        &Sent::post(&message, URL_DOMAIN)
            .header("Authorization", "Bearer good")
            .event(Via::FunctionUrl),
    )
    .await;
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(answered.json()["result"]["content"][0]["text"], "4");

    let metadata = Sent {
        method: "GET",
        path: "/.well-known/oauth-protected-resource/mcp",
        headers: vec![("Host".to_owned(), URL_DOMAIN.to_owned())],
        body: String::new(),
        base64: false,
    };
    let answered = invoke(&service, &metadata.event(Via::FunctionUrl)).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(answered.json()["resource"], resource);
}

#[tokio::test]
async fn with_response_streaming_progress_goes_out_as_events() {
    let streaming = service_of(
        study_server(),
        LambdaOptions::default().response_streaming(true),
    );
    let event = Sent::post(&call_add_with_progress(60, 20, 22), URL_DOMAIN).event(Via::FunctionUrl);
    // A prelude (status and headers), then the body as it is written.
    let response = stream(&streaming, &event).await;
    assert_eq!(response.metadata_prelude.status_code, 200);
    assert_eq!(
        response.metadata_prelude.headers["content-type"],
        "text/event-stream"
    );
    let mut stream = response.stream;
    let mut body = Vec::new();
    while let Some(chunk) = std::future::poll_fn(|cx| {
        futures_core::Stream::poll_next(std::pin::Pin::new(&mut stream), cx)
    })
    .await
    {
        body.extend_from_slice(&chunk.unwrap());
    }
    let messages = sse_messages(&body);
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/progress");
    assert_eq!(messages[1]["method"], "notifications/progress");
    assert_eq!(messages[2]["result"]["content"][0]["text"], "42");

    // Buffered (the default), the same call is one JSON answer.
    let buffered = service_of(study_server(), LambdaOptions::default());
    let answered = invoke(&buffered, &event).await;
    assert_eq!(answered.header("content-type"), Some("application/json"));
    assert_eq!(answered.json()["result"]["content"][0]["text"], "42");
}

#[tokio::test]
async fn a_request_running_into_the_invocations_deadline_is_answered() {
    let server = Server::builder()
        .tool(Tool::new("sleep").handler(|_: NoArguments, _cx| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "woke"
        }))
        .build()
        .unwrap();
    let service = service_of(server, LambdaOptions::default());
    let message = request(70, "tools/call", json!({"name": "sleep", "arguments": {}}));
    let mut context = Context::default();
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    context.deadline = now_ms + 800;
    let started = Instant::now();
    let answered = invoke_with(
        &service,
        &Sent::post(&message, URL_DOMAIN).event(Via::FunctionUrl),
        context,
    )
    .await;
    let took = started.elapsed();
    assert!(took < Duration::from_millis(800), "{took:?}");
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert_eq!(answered.status, 200, "{answered:?}");
    let (code, text) = answered.error();
    assert_eq!(code, -32603);
    assert!(text.contains("deadline"), "{text}");
}

#[tokio::test]
async fn run_lambda_outside_lambda_says_so() {
    // Not under the Lambda runtime: `AWS_LAMBDA_RUNTIME_API` is unset.
    let err = study_server()
        .run_lambda(LambdaOptions::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("AWS_LAMBDA_RUNTIME_API"), "{err}");
}

/// The domain an event through `via` was invoked on.
fn domain_of(via: Via) -> &'static str {
    match via {
        Via::FunctionUrl => URL_DOMAIN,
        Via::HttpApi => API_DOMAIN,
        Via::RestApi => REST_DOMAIN,
    }
}

/// An event whose body AWS flags as base64 (`isBase64Encoded`), with `body` in its place.
fn flagged_base64(sent: &Sent, via: Via, body: &str) -> Value {
    let mut event = sent.clone().base64().event(via);
    event["body"] = Value::String(body.to_owned());
    event
}

#[tokio::test]
async fn a_body_flagged_base64_that_is_not_base64_is_answered_400() {
    let service = service_of(study_server(), LambdaOptions::default());
    let message = call_add(80, 40, 2);
    for via in [Via::FunctionUrl, Via::HttpApi, Via::RestApi] {
        let sent = Sent::post(&message, domain_of(via));
        // Not the alphabet, a length no base64 has, bad padding, and the JSON itself.
        for body in ["not base64!", "eyJ", "eyJhIjoxfQ=", &sent.body] {
            let answered = invoke(&service, &flagged_base64(&sent, via, body)).await;
            assert_eq!(answered.status, 400, "{via:?} {body:?}: {answered:?}");
            assert_eq!(answered.header("content-type"), Some("application/json"));
            let (code, text) = answered.error();
            assert_eq!(code, -32600, "{text}");
            assert!(
                text.contains("flagged base64") && text.contains("not valid base64"),
                "{text}"
            );
        }
        // The same request in good base64 is served.
        let answered = invoke(&service, &sent.clone().base64().event(via)).await;
        assert_eq!(answered.status, 200, "{via:?}: {answered:?}");
        assert_eq!(answered.json()["result"]["content"][0]["text"], "42");
    }
}

#[tokio::test]
async fn a_base64_body_that_is_not_utf8_is_a_parse_error() {
    let service = service_of(study_server(), LambdaOptions::default());
    for via in [Via::FunctionUrl, Via::HttpApi, Via::RestApi] {
        let sent = Sent::post(&call_add(81, 1, 2), domain_of(via));
        // Good base64 of bytes that are no UTF-8 text (a Latin-1 "é" inside the JSON).
        let mut bytes = sent.body.clone().into_bytes();
        bytes.insert(1, 0xE9);
        let event = flagged_base64(&sent, via, &common::base64(&bytes));
        let answered = invoke(&service, &event).await;
        assert_eq!(answered.status, 400, "{via:?}: {answered:?}");
        let (code, text) = answered.error();
        assert_eq!(code, -32700, "{text}");
        assert!(text.contains("not valid UTF-8"), "{text}");
    }
}

#[tokio::test]
async fn a_body_that_is_not_base64_is_judged_where_the_endpoint_reads_the_body() {
    let message = call_add(82, 1, 2);
    let bad = |sent: &Sent, via| flagged_base64(sent, via, "%%%");

    // What comes before the body still comes first: the Host guard, then authentication.
    let service = service_of(study_server(), LambdaOptions::default());
    let answered = invoke(
        &service,
        &bad(&Sent::post(&message, "evil.example"), Via::HttpApi),
    )
    .await;
    assert_eq!(answered.status, 403, "{answered:?}");
    let verifier = verifier_fn(|token: String| async move {
        match token.as_str() {
            "good" => Ok(Caller::new("alice")),
            _ => Err(TokenError::Invalid("unknown token".into())),
        }
    });
    let resource = format!("https://{URL_DOMAIN}/mcp");
    let rs = ResourceServer::new(&resource, "https://auth.example.com", verifier).unwrap();
    let authed = service_of(study_server(), HttpOptions::default().auth(rs));
    let sent = Sent::post(&message, URL_DOMAIN);
    let answered = invoke(&authed, &bad(&sent, Via::FunctionUrl)).await;
    assert_eq!(answered.status, 401, "{answered:?}");
    let sent = sent.header("Authorization", "Bearer good");
    let answered = invoke(&authed, &bad(&sent, Via::FunctionUrl)).await;
    assert_eq!(answered.status, 400, "{answered:?}");
    assert!(answered.error().1.contains("not valid base64"));

    // An allowed browser origin can read the refusal.
    let app = service_of(
        study_server(),
        HttpOptions::default().allow_origin("https://app.example.com"),
    );
    let sent = Sent::post(&message, URL_DOMAIN).header("Origin", "https://app.example.com");
    let answered = invoke(&app, &bad(&sent, Via::FunctionUrl)).await;
    assert_eq!(answered.status, 400, "{answered:?}");
    assert_eq!(
        answered.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );

    // What never reads the body answers as it would without one.
    let get = Sent {
        method: "GET",
        ..Sent::post(&message, URL_DOMAIN)
    };
    let answered = invoke(&service, &bad(&get, Via::FunctionUrl)).await;
    assert_eq!(answered.status, 405, "{answered:?}");
    let elsewhere = Sent {
        path: "/other",
        ..Sent::post(&message, URL_DOMAIN)
    };
    let answered = invoke(&service, &bad(&elsewhere, Via::HttpApi)).await;
    assert_eq!(answered.status, 404, "{answered:?}");

    // Streamed, the refusal is the prelude's status and one JSON body.
    let streaming = service_of(
        study_server(),
        LambdaOptions::default().response_streaming(true),
    );
    let response = stream(
        &streaming,
        &bad(&Sent::post(&message, URL_DOMAIN), Via::FunctionUrl),
    )
    .await;
    assert_eq!(response.metadata_prelude.status_code, 400);
    assert_eq!(
        response.metadata_prelude.headers["content-type"],
        "application/json"
    );
}

/// No request of an event comes from this machine, whatever address the event names: a local
/// caller is never given on Lambda (an event whose `sourceIp` is 127.0.0.1 stays anonymous).
#[tokio::test]
async fn an_event_from_a_loopback_address_gets_no_local_caller() {
    let desk = Server::builder()
        .tool(
            Tool::new("reset")
                .scopes(["admin"])
                .handler(|_: NoArguments, _| async { "ADMIN-RESET-DONE" }),
        )
        .build()
        .unwrap();
    let options =
        HttpOptions::default().local_caller(Caller::new("desktop-user").with_scopes(["admin"]));
    let app = service_of(desk, options);
    let call = request(1, "tools/call", json!({"name": "reset", "arguments": {}}));
    for via in [Via::FunctionUrl, Via::HttpApi, Via::RestApi] {
        let host = match via {
            Via::FunctionUrl => URL_DOMAIN,
            Via::HttpApi => API_DOMAIN,
            Via::RestApi => REST_DOMAIN,
        };
        let mut event = Sent::post(&call, host).event(via);
        match via {
            Via::RestApi => event["requestContext"]["identity"]["sourceIp"] = json!("127.0.0.1"),
            _ => event["requestContext"]["http"]["sourceIp"] = json!("127.0.0.1"),
        }
        let answered = invoke(&app, &event).await;
        assert!(
            !answered.body.contains("ADMIN-RESET-DONE"),
            "{via:?}: {answered:?}"
        );
        assert!(
            answered.error().1.contains("admin"),
            "{via:?}: {answered:?}"
        );
    }
}
