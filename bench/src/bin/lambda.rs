//! The Lambda path measured (`--features lambda`): the study server served by
//! `Server::run_lambda`, fed API Gateway HTTP API events (`tools/call` of `add`, 40 + 2).
//!
//! - `mcp-bench-lambda function`: the study server as a Lambda function (a current-thread
//!   runtime, as `examples/lambda.rs`), for the two runs below.
//! - `mcp-bench-lambda cold [--launches N]`: cold start, from spawning the process to its first
//!   answered invocation, with the event already waiting at a Runtime API this program serves
//!   on loopback (what `lambda_runtime` polls: `/next`, then the response posted); beside it,
//!   `mcp-bench-ours` (the HTTP server) from spawn to its first correct answer, as the driver
//!   measures it. The fastest and the median of N launches each (default 20).
//! - `mcp-bench-lambda callgrind [--calls N]`: the function process's instructions per
//!   invocation under `valgrind --tool=callgrind`, driven by that Runtime API:
//!   (I(N + N/5) − I(N/5)) ÷ N (default N = 1000), everything the process does per
//!   invocation: the runtime's `/next` and response requests, the event's JSON, the service.
//! - `mcp-bench-lambda inproc CASE N`: N events through the service in process, as
//!   `lambda_http::run` hands them over (the event's JSON read, the request made, the
//!   response event written), for callgrind or a profiler: CASE `lambda` (the service of
//!   `run_lambda`) or `router` (`Server::into_router` served by `lambda_http` instead).

#[path = "../../../examples/study-server/server.rs"]
#[allow(dead_code, unreachable_pub)]
mod study;

use mcp_runtime::lambda::lambda_http::request::LambdaRequest;
use mcp_runtime::lambda::lambda_http::{Adapter, Context, LambdaEvent, Service as _};
use mcp_runtime::lambda::{LambdaOptions, LambdaService};
use mcp_runtime::{HttpOptions, Server};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The HTTP API the events come through.
const DOMAIN: &str = "r3pmxmplak.execute-api.eu-west-1.amazonaws.com";
const USAGE: &str = "usage: mcp-bench-lambda function | cold [--launches N] | callgrind [--calls N] | inproc lambda|router N";

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str, default: usize| -> Result<usize, String> {
        match args.iter().position(|a| a == name) {
            None => Ok(default),
            Some(i) => args
                .get(i + 1)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number")),
        }
    };
    match args.first().map(String::as_str) {
        Some("function") => function(),
        Some("cold") => cold(flag("--launches", 20)?),
        Some("callgrind") => callgrind(flag("--calls", 1000)?),
        Some("inproc") => {
            let case = args.get(1).ok_or(USAGE)?;
            let n = args.get(2).and_then(|v| v.parse().ok()).ok_or(USAGE)?;
            inproc(case, n)
        }
        _ => Err(USAGE.into()),
    }
}

fn study_server() -> Result<Server, String> {
    mcp_bench::build_server(study::build, 0, false).map_err(|e| e.to_string())
}

/// The function: `run_lambda` on a current-thread runtime.
fn function() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        study_server()?
            .run_lambda(LambdaOptions::default())
            .await
            .map_err(|e| e.to_string())
    })
}

/// The HTTP API event (payload 2.0) of `add(40, 2)`, as API Gateway writes it.
fn event() -> String {
    let call = mcp_bench::add_call(false);
    let mut headers = json!({
        "accept": "application/json, text/event-stream",
        "content-length": call.body.len().to_string(),
        "content-type": "application/json",
        "host": DOMAIN,
        "user-agent": "mcp-bench/1.0",
        "x-amzn-trace-id": "Root=1-67891233-abcdef012345678912345678",
        "x-forwarded-for": "198.51.100.23",
        "x-forwarded-port": "443",
        "x-forwarded-proto": "https"
    });
    for (name, value) in &call.headers {
        headers[name.to_ascii_lowercase()] = json!(value);
    }
    json!({
        "version": "2.0",
        "routeKey": "POST /mcp",
        "rawPath": "/mcp",
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "r3pmxmplak",
            "domainName": DOMAIN,
            "domainPrefix": "r3pmxmplak",
            "http": {
                "method": "POST",
                "path": "/mcp",
                "protocol": "HTTP/1.1",
                "sourceIp": "198.51.100.23",
                "userAgent": "mcp-bench/1.0"
            },
            "requestId": "JKJaXmPLvHcESHA=",
            "routeKey": "POST /mcp",
            "stage": "$default",
            "time": "12/Mar/2026:19:03:58 +0000",
            "timeEpoch": 1_773_342_238_000_u64
        },
        "body": call.body,
        "isBase64Encoded": false
    })
    .to_string()
}

/// Whether a response event (or the JSON-RPC body in it) answers `add(40, 2)`.
fn answers_42(text: &str) -> bool {
    let v: Value = serde_json::from_str(text).unwrap_or_default();
    let body: Value = match &v["body"] {
        Value::String(body) => serde_json::from_str(body).unwrap_or_default(),
        _ => v,
    };
    body["result"]["content"][0]["text"] == "42"
}

/// `N` events through the service in process.
fn inproc(case: &str, n: usize) -> Result<(), String> {
    let server = study_server()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let event = event();
    let t = Instant::now();
    let mut bytes = 0;
    macro_rules! run {
        ($service:expr) => {{
            let mut adapter = Adapter::from($service);
            for _ in 0..n {
                let payload: LambdaRequest =
                    serde_json::from_str(&event).map_err(|e| e.to_string())?;
                let call = adapter.call(LambdaEvent::new(payload, Context::default()));
                let response = runtime.block_on(call).map_err(|e| format!("{e:?}"))?;
                let out = serde_json::to_vec(&response).map_err(|e| e.to_string())?;
                if bytes == 0 && !answers_42(&String::from_utf8_lossy(&out)) {
                    return Err(format!("wrong answer: {}", String::from_utf8_lossy(&out)));
                }
                bytes += out.len();
            }
        }};
    }
    match case {
        "lambda" => {
            let service: LambdaService = server
                .lambda_service(LambdaOptions::default())
                .map_err(|e| e.to_string())?;
            run!(service)
        }
        "router" => {
            // Made a service once, as `axum::serve` does for each connection.
            let router = server.into_router(HttpOptions::default().allow_host(DOMAIN));
            run!(router)
        }
        other => return Err(format!("unknown case `{other}`; {USAGE}")),
    }
    let ns = t.elapsed().as_nanos() as f64 / n as f64;
    println!("{case}: {ns:.0} ns/invocation ({bytes} bytes of response events)");
    Ok(())
}

/// The Runtime API of one function process: `events` invocations of [`event`], then a `/next`
/// answer without a request id, which ends the runtime's loop (the process exits).
struct RuntimeApi {
    events: usize,
    event: String,
    handed: AtomicUsize,
    answered: AtomicUsize,
    wrong: Mutex<Option<String>>,
    first_answer: Mutex<Option<Instant>>,
}

impl RuntimeApi {
    async fn handle(
        self: Arc<Self>,
        request: hyper::Request<hyper::body::Incoming>,
    ) -> Result<hyper::Response<axum::body::Body>, std::convert::Infallible> {
        let path = request.uri().path().to_owned();
        let mut response = hyper::Response::new(axum::body::Body::empty());
        if path.ends_with("/invocation/next") {
            let n = self.handed.fetch_add(1, Ordering::SeqCst);
            if n < self.events {
                let deadline = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default()
                    + Duration::from_secs(300);
                let h = response.headers_mut();
                h.insert(
                    "lambda-runtime-aws-request-id",
                    format!("inv-{n}").parse().unwrap(),
                );
                h.insert(
                    "lambda-runtime-deadline-ms",
                    deadline.as_millis().to_string().parse().unwrap(),
                );
                h.insert(
                    "lambda-runtime-invoked-function-arn",
                    "arn:aws:lambda:eu-west-1:123456789012:function:mcp"
                        .parse()
                        .unwrap(),
                );
                h.insert("content-type", "application/json".parse().unwrap());
                *response.body_mut() = axum::body::Body::from(self.event.clone());
            }
            return Ok(response);
        }
        let body = axum::body::to_bytes(axum::body::Body::new(request.into_body()), 1 << 20)
            .await
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&body);
        if path.ends_with("/response") && answers_42(&text) {
            if self.answered.fetch_add(1, Ordering::SeqCst) == 0 {
                *self.first_answer.lock().unwrap() = Some(Instant::now());
            }
        } else {
            let mut wrong = self.wrong.lock().unwrap();
            wrong.get_or_insert_with(|| format!("{path}: {text}"));
        }
        *response.status_mut() = hyper::StatusCode::ACCEPTED;
        Ok(response)
    }
}

/// Serves a Runtime API for `events` invocations on loopback; its address.
fn runtime_api(
    runtime: &tokio::runtime::Runtime,
    events: usize,
) -> Result<(Arc<RuntimeApi>, String), String> {
    let api = Arc::new(RuntimeApi {
        events,
        event: event(),
        handed: AtomicUsize::new(0),
        answered: AtomicUsize::new(0),
        wrong: Mutex::new(None),
        first_answer: Mutex::new(None),
    });
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let serving = api.clone();
    runtime.spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let api = serving.clone();
            tokio::spawn(async move {
                let service =
                    hyper::service::service_fn(move |request| api.clone().handle(request));
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await;
            });
        }
    });
    Ok((api, addr.to_string()))
}

/// The function process (this program's `function`), under `prefix` (valgrind) when given.
fn spawn_function(api: &str, prefix: &[String]) -> Result<Child, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = match prefix.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(&me);
            c
        }
        None => Command::new(&me),
    };
    command
        .arg("function")
        .env("AWS_LAMBDA_RUNTIME_API", api)
        .env("AWS_LAMBDA_FUNCTION_NAME", "mcp")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawning the function: {e}"))
}

fn wait_exit(mut child: Child, limit: Duration) -> Result<(), String> {
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            return Ok(());
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("the function did not end within {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn fastest_and_median(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    (ms(v[0]), ms(v[v.len() / 2]))
}

/// Cold start of the function and of the HTTP server, `launches` times each, interleaved.
fn cold(launches: usize) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let ours = std::env::current_exe()
        .map_err(|e| e.to_string())?
        .with_file_name("mcp-bench-ours");
    if !ours.exists() {
        return Err(format!(
            "{} is missing: cargo build --release -p mcp-bench --bins",
            ours.display()
        ));
    }
    let request = mcp_bench::add_call(false);
    let (mut lambda, mut http) = (Vec::new(), Vec::new());
    for _ in 0..launches.max(1) {
        // The function: the event waits at the Runtime API before the process starts.
        let (api, addr) = runtime_api(&runtime, 1)?;
        let t0 = Instant::now();
        let child = spawn_function(&addr, &[])?;
        wait_exit(child, Duration::from_secs(60))?;
        if let Some(wrong) = api.wrong.lock().unwrap().take() {
            return Err(format!("wrong answer: {wrong}"));
        }
        let first = api.first_answer.lock().unwrap().ok_or("no answer")?;
        lambda.push(first - t0);

        // The HTTP server: spawn, then the first correct answer to the same call.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let t0 = Instant::now();
        let mut child = Command::new(&ours)
            .args(["--addr", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let took = loop {
            if let Ok(resp) = mcp_bench::client::once(port, &request) {
                if !answers_42(&resp.body) {
                    let _ = child.kill();
                    return Err(format!("wrong answer: {}", resp.body));
                }
                break t0.elapsed();
            }
            if t0.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                return Err("mcp-bench-ours did not answer".into());
            }
            std::thread::sleep(Duration::from_micros(200));
        };
        let _ = child.kill();
        let _ = child.wait();
        http.push(took);
    }
    let (lf, lm) = fastest_and_median(lambda);
    let (hf, hm) = fastest_and_median(http);
    println!("cold start over {launches} launches each (ms): fastest, median");
    println!("lambda (spawn to first answered invocation) {lf:>8.2} {lm:>8.2}");
    println!("http   (spawn to first correct answer)      {hf:>8.2} {hm:>8.2}");
    Ok(())
}

/// Instructions of one callgrind run of the function answering `events` invocations.
fn callgrind_run(events: usize, dir: &std::path::Path) -> Result<u64, String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let (api, addr) = runtime_api(&runtime, events)?;
    let file = dir.join(format!("callgrind.lambda.{events}.out"));
    let prefix = [
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={}", file.display()),
    ];
    let child = spawn_function(&addr, &prefix)?;
    wait_exit(child, Duration::from_secs(1800))?;
    if let Some(wrong) = api.wrong.lock().unwrap().take() {
        return Err(format!("wrong answer under callgrind: {wrong}"));
    }
    let answered = api.answered.load(Ordering::SeqCst);
    if answered != events {
        return Err(format!("{answered} of {events} invocations answered"));
    }
    mcp_bench::callgrind_total(&file)
}

fn callgrind(calls: usize) -> Result<(), String> {
    let dir = match std::env::var_os("MCP_BENCH_KEEP") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::env::temp_dir().join(format!("mcp-bench-lambda-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let lo = callgrind_run(calls / 5, &dir)?;
    let hi = callgrind_run(calls + calls / 5, &dir)?;
    if std::env::var_os("MCP_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    println!(
        "lambda function: {:.0} instructions/invocation under callgrind ((I({}) - I({})) / {calls})",
        (hi - lo) as f64 / calls as f64,
        calls + calls / 5,
        calls / 5
    );
    Ok(())
}
