//! Safe however it is deployed: behind a real nginx with the repository's `deploy/nginx.conf`
//! (or a tunnel) on the same machine, against clients that send slowly or name other hosts,
//! and through a drain. Each client is a loopback address of its own (127.0.0.2, …), so what
//! the server takes for "who sent it" is what is tested: the local caller, the per-caller
//! shares, the connection share and the rate limit.
//!
//! Needs `nginx` (Debian: nginx-light); `.ci/run` installs it before the tests. Without it the
//! tests that put it in front fail, unless `MCP_SKIP_NGINX` is set.

use crate::common;
use common::engines::nginx;
use common::{HttpResponse, headers_for, request, spawn_http_with, within};
use mcp_runtime::TaskOptions;
use mcp_runtime::{Caller, HttpOptions, Limits, NoArguments, Resource, Server, TaskSupport, Tool};
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Semaphore;

/// The loopback address of client `n` (2 and up: 127.0.0.1 is the server's and the proxy's).
fn client(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, n))
}

async fn post_from(from: IpAddr, port: u16, body: &Value) -> HttpResponse {
    post_with(from, port, headers_for(body), body).await
}

async fn post_with(
    from: IpAddr,
    port: u16,
    headers: Vec<(String, String)>,
    body: &Value,
) -> HttpResponse {
    let url = format!("http://127.0.0.1:{port}/mcp");
    common::send_from(
        Some(from),
        http::Method::POST,
        &url,
        &headers,
        body.to_string(),
    )
    .await
}

fn call(name: &str) -> Value {
    request(1, "tools/call", json!({"name": name, "arguments": {}}))
}

fn error_message(resp: &HttpResponse) -> String {
    let body: Value = serde_json::from_slice(&resp.body).unwrap_or(Value::Null);
    body["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn text_of(resp: &HttpResponse) -> String {
    common::response_of(resp)["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A desk: `reset` needs `admin`, `secret://plan` needs `secret`, `wait` holds until `gate`
/// gives a permit, `ping` answers at once.
fn desk(limits: Limits, gate: Arc<Semaphore>) -> Server {
    Server::builder()
        .limits(limits)
        .tool(
            Tool::new("reset")
                .description("Resets everything.")
                .scopes(["admin"])
                .handler(|_: NoArguments, cx| async move {
                    let who = cx.caller().map(|c| c.subject.clone()).unwrap_or_default();
                    format!("ADMIN-RESET-DONE for {who}")
                }),
        )
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .tool(Tool::new("wait").handler(move |_: NoArguments, _cx| {
            let gate = gate.clone();
            async move {
                let _permit = gate.acquire().await;
                "waited"
            }
        }))
        .resource(
            Resource::new("secret://plan", "plan")
                .scopes(["secret"])
                .handler(|_cx| async { "the plan" }),
        )
        .build()
        .unwrap()
}

fn desktop_user() -> Caller {
    Caller::new("desktop-user").with_scopes(["admin", "secret"])
}

/// nginx with `deploy/nginx.conf` in front of `addr`: its port, and the process (stopped when
/// dropped) with its folder; `None` (the test skipped) where nginx is not installed and
/// `MCP_SKIP_NGINX` is set: without it, a missing nginx fails the test.
struct Proxy {
    port: u16,
    _nginx: common::engines::Process,
    _dir: TempDir,
}

fn proxy(addr: SocketAddr) -> Option<Proxy> {
    if !common::nginx_installed() {
        return None;
    }
    let dir = TempDir::new("nginx");
    let (process, port) = nginx(&[addr], &dir.0);
    Some(Proxy {
        port,
        _nginx: process,
        _dir: dir,
    })
}

/// A folder under the system's temporary one, removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(what: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("mcp-deploy-{what}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------------------------
// The local caller
// ---------------------------------------------------------------------------------------------

/// The critical finding: through the repository's own nginx on the same machine, a client on
/// the internet (here 127.0.0.9) connected to the server from loopback and was given the local
/// caller: it called an `admin` tool, read a `secret` resource and listed hidden tools. It
/// must be anonymous, with or without trusting the proxy; the desktop host that connects
/// straight from loopback keeps its rights.
#[tokio::test]
async fn behind_nginx_an_internet_client_is_not_the_local_caller() {
    for trust in [false, true] {
        let options = HttpOptions::default()
            .local_caller(desktop_user())
            .trust_forwarded_for(trust);
        let http = spawn_http_with(
            desk(Limits::default(), Arc::new(Semaphore::new(0))),
            options,
        )
        .await;
        let Some(front) = proxy(http.addr) else {
            return;
        };
        let stranger = client(9);

        let reset = post_from(stranger, front.port, &call("reset")).await;
        assert_ne!(reset.status, 200, "trust {trust}: {:?}", reset.body);
        assert!(!String::from_utf8_lossy(&reset.body).contains("ADMIN-RESET-DONE"));
        assert!(
            error_message(&reset).contains("admin"),
            "{}",
            error_message(&reset)
        );

        let read = request(2, "resources/read", json!({"uri": "secret://plan"}));
        let read = post_from(stranger, front.port, &read).await;
        assert!(!String::from_utf8_lossy(&read.body).contains("the plan"));
        assert!(
            error_message(&read).contains("secret"),
            "{}",
            error_message(&read)
        );

        let list = post_from(stranger, front.port, &request(3, "tools/list", json!({}))).await;
        let names: Vec<Value> = common::response_of(&list)["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].clone())
            .collect();
        assert!(
            !names.contains(&json!("reset")),
            "hidden from a stranger: {names:?}"
        );

        // The desktop host on this machine, straight to the server: still the local caller.
        let direct = post_from(client(1), http.addr.port(), &call("reset")).await;
        assert_eq!(text_of(&direct), "ADMIN-RESET-DONE for desktop-user");
    }
}

/// A tunnel (cloudflared, ngrok) connects from loopback too, and adds a forwarding header or
/// names the public host: either makes the request anonymous. So does a page of another
/// loopback origin.
#[tokio::test]
async fn through_a_tunnel_or_from_another_page_a_request_is_anonymous() {
    let options = HttpOptions::default()
        .local_caller(desktop_user())
        .allow_host("mcp.example.com");
    let http = spawn_http_with(
        desk(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    let body = call("reset");
    let refused =
        |resp: &HttpResponse| !String::from_utf8_lossy(&resp.body).contains("ADMIN-RESET");
    for (name, value) in [
        ("X-Forwarded-For", "203.0.113.9"),
        ("Forwarded", "for=203.0.113.9"),
        ("CF-Connecting-IP", "203.0.113.9"),
        ("X-Real-IP", "203.0.113.9"),
        ("Via", "1.1 tunnel"),
        ("Host", "mcp.example.com"),
        ("Origin", "http://localhost:3000"),
    ] {
        let headers = common::with_header(headers_for(&body), name, value);
        let resp = post_with(client(1), http.addr.port(), headers, &body).await;
        assert!(refused(&resp), "{name}: {value}: {:?}", resp.body);
    }
    // Its own origin (the lab page's requests) keeps it.
    let own = format!("http://{}", http.addr);
    let headers = common::with_header(headers_for(&body), "Origin", &own);
    let resp = post_with(client(1), http.addr.port(), headers, &body).await;
    assert_eq!(text_of(&resp), "ADMIN-RESET-DONE for desktop-user");
}

/// Any page on any loopback port could call with the local caller's rights through CORS: an
/// endpoint with a local caller crosses origins only for the origins it names.
#[tokio::test]
async fn a_local_callers_endpoint_crosses_origins_only_for_those_it_names() {
    let preflight = |port: u16, origin: &'static str| async move {
        let headers = vec![
            ("Origin".to_owned(), origin.to_owned()),
            (
                "Access-Control-Request-Method".to_owned(),
                "POST".to_owned(),
            ),
            (
                "Access-Control-Request-Headers".to_owned(),
                "content-type, mcp-protocol-version".to_owned(),
            ),
        ];
        let url = format!("http://127.0.0.1:{port}/mcp");
        common::send(http::Method::OPTIONS, &url, &headers, "").await
    };
    let options = HttpOptions::default()
        .local_caller(desktop_user())
        .allow_origin("http://127.0.0.1:5173");
    let http = spawn_http_with(
        desk(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    let port = http.addr.port();
    let other = preflight(port, "http://localhost:3000").await;
    assert_eq!(other.status, 403, "{:?}", other.body);
    assert!(String::from_utf8_lossy(&other.body).contains("allow_origin"));
    let named = preflight(port, "http://127.0.0.1:5173").await;
    assert_eq!(named.status, 204);
    assert_eq!(
        named.header("access-control-allow-origin"),
        Some("http://127.0.0.1:5173")
    );
    // Without a local caller, loopback pages are allowed as before.
    let plain = spawn_http_with(
        desk(Limits::default(), Arc::new(Semaphore::new(0))),
        HttpOptions::default(),
    )
    .await;
    assert_eq!(
        preflight(plain.addr.port(), "http://localhost:3000")
            .await
            .status,
        204
    );
}

// ---------------------------------------------------------------------------------------------
// Shares behind a proxy
// ---------------------------------------------------------------------------------------------

/// Starts `n` calls of `wait` from `from` through `port`, each on its own connection, and
/// gives them a moment to be running.
async fn hold_calls(
    from: IpAddr,
    port: u16,
    n: usize,
) -> Vec<tokio::task::JoinHandle<HttpResponse>> {
    let held: Vec<_> = (0..n)
        .map(|_| tokio::spawn(async move { post_from(from, port, &call("wait")).await }))
        .collect();
    tokio::time::sleep(Duration::from_millis(400)).await;
    held
}

/// The deployment's finding: instances behind nginx that do not trust it count every client as
/// the proxy's one address, so one client holding its share of calls locks every other out.
/// Trusting the proxy, each client has a share of its own.
#[tokio::test]
async fn behind_nginx_each_client_has_its_own_share() {
    let limits = Limits::default()
        .concurrent_requests(64)
        .requests_per_caller(4);
    for trust in [true, false] {
        let gate = Arc::new(Semaphore::new(0));
        let options = HttpOptions::default().trust_forwarded_for(trust);
        let http = spawn_http_with(desk(limits.clone(), gate.clone()), options).await;
        let Some(front) = proxy(http.addr) else {
            return;
        };
        let held = hold_calls(client(2), front.port, 4).await;
        let attacker = post_from(client(2), front.port, &call("ping")).await;
        let other = post_from(client(3), front.port, &call("ping")).await;
        gate.add_permits(64);
        if trust {
            assert_eq!(attacker.status, 503, "{:?}", attacker.body);
            assert!(
                error_message(&attacker).contains("127.0.0.2 holds 4 requests"),
                "{}",
                error_message(&attacker)
            );
            assert_eq!(other.status, 200, "the other client: {:?}", other.body);
        } else {
            // Not trusted: both are the proxy, and the other client pays for the attacker.
            assert_eq!(other.status, 503, "{:?}", other.body);
            assert!(error_message(&other).contains("127.0.0.1 holds 4 requests"));
        }
        for h in held {
            assert_eq!(within("a held call", h).await.unwrap().status, 200);
        }
    }
}

/// `body` from `from` through `port`, with `X-Forwarded-For: xff`.
async fn post_forwarding(from: IpAddr, port: u16, xff: &str, body: Value) -> HttpResponse {
    let headers = common::with_header(headers_for(&body), "X-Forwarded-For", xff);
    post_with(from, port, headers, &body).await
}

/// Calls of `wait` from `from` through `port`, one for each forwarded address, given a moment
/// to be running.
async fn hold_forwarding(
    from: IpAddr,
    port: u16,
    forwarded: Vec<String>,
) -> Vec<tokio::task::JoinHandle<HttpResponse>> {
    let held = forwarded
        .into_iter()
        .map(|xff| {
            tokio::spawn(async move { post_forwarding(from, port, &xff, call("wait")).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(400)).await;
    held
}

/// A desk taking 4 requests at once from a caller, its `wait` held by `gate`, served behind a
/// proxy trusted at 127.0.0.1 only.
async fn behind_127_0_0_1(gate: Arc<Semaphore>) -> common::HttpServer {
    let limits = Limits::default()
        .concurrent_requests(64)
        .requests_per_caller(4);
    let options = HttpOptions::default().trusted_proxies(["127.0.0.1"]);
    spawn_http_with(desk(limits, gate), options).await
}

/// `X-Forwarded-For` is believed only from a trusted proxy: a client that reaches the server
/// without its proxy cannot rotate addresses past its share, nor name a victim's.
#[tokio::test]
async fn a_forwarding_header_from_anyone_else_is_ignored() {
    let gate = Arc::new(Semaphore::new(0));
    let http = behind_127_0_0_1(gate.clone()).await;
    let port = http.addr.port();
    let rotated = (0..4).map(|i| format!("198.51.100.{i}")).collect();
    let held = hold_forwarding(client(2), port, rotated).await;
    let refused = post_forwarding(client(2), port, "198.51.100.99", call("ping")).await;
    assert_eq!(refused.status, 503, "{:?}", refused.body);
    assert!(
        error_message(&refused).contains("127.0.0.2 holds 4"),
        "{}",
        error_message(&refused)
    );
    // Naming another client's address does not spend that client's share.
    let victim = post_from(client(3), port, &call("ping")).await;
    assert_eq!(victim.status, 200);
    gate.add_permits(64);
    for h in held {
        assert_eq!(within("a held call", h).await.unwrap().status, 200);
    }
}

/// IPv6 clients are counted by their /64: one subscriber cannot pass for 2^64 clients. (Here
/// the test stands for a trusted proxy on 127.0.0.1, naming IPv6 clients.)
#[tokio::test]
async fn ipv6_clients_are_counted_by_their_network() {
    let gate = Arc::new(Semaphore::new(0));
    let http = behind_127_0_0_1(gate.clone()).await;
    let port = http.addr.port();
    let one_network = (1..=4).map(|i| format!("2001:db8:7:7::{i:x}")).collect();
    let held = hold_forwarding(client(1), port, one_network).await;
    let refused = post_forwarding(client(1), port, "2001:db8:7:7:ffff::1", call("ping")).await;
    assert_eq!(refused.status, 503, "{:?}", refused.body);
    assert!(
        error_message(&refused).contains("2001:db8:7:7::/64 holds 4"),
        "{}",
        error_message(&refused)
    );
    let other = post_forwarding(client(1), port, "2001:db8:7:8::1", call("ping")).await;
    assert_eq!(other.status, 200);
    gate.add_permits(64);
    for h in held {
        assert_eq!(within("a held call", h).await.unwrap().status, 200);
    }
}

// ---------------------------------------------------------------------------------------------
// Connections
// ---------------------------------------------------------------------------------------------

/// Opens a connection from `from` and sends a request head announcing `length` bytes of body,
/// and `sent` of them: a body that then stops coming.
async fn stalled_body(
    from: IpAddr,
    addr: SocketAddr,
    length: usize,
    sent: usize,
) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    let mut s = socket.connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {length}\r\n\r\n"
    );
    // A connection refused at once (503 and closed) may fail the writes: the attacker's loss.
    let _ = s.write_all(head.as_bytes()).await;
    let _ = s.write_all(&b"{".repeat(sent)).await;
    s
}

/// One client, however many addresses it has, cannot fill the connection cap with request
/// bodies that never finish: each address has a share of the connections, and a body that has
/// stopped coming makes room at the cap as an idle connection does. The other client is served
/// throughout.
#[tokio::test]
async fn slow_bodies_cannot_hold_the_connection_cap() {
    let options = HttpOptions::default()
        .max_connections(48)
        .max_connections_per_address(8)
        .body_timeout(Duration::from_secs(60))
        .head_timeout(Some(Duration::from_secs(2)));
    let http = spawn_http_with(
        desk(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    // One address: past its share of 8, its own stalled connections go first.
    let mut held = Vec::new();
    for _ in 0..20 {
        held.push(stalled_body(client(2), http.addr, 1000, 10).await);
    }
    // Six more addresses fill the cap with bodies that stop coming.
    for n in 3..9 {
        for _ in 0..8 {
            held.push(stalled_body(client(n), http.addr, 1000, 10).await);
        }
    }
    // Once the bodies have brought nothing for a second, the other client gets a connection.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    for round in 0..3 {
        let other = post_from(client(20), http.addr.port(), &call("ping")).await;
        assert_eq!(other.status, 200, "round {round}: {:?}", other.body);
    }
    drop(held);
}

/// A body that comes slower than the minimum rate, once the allowance is over, is refused with
/// 408; a large one that keeps the rate arrives, however long it takes.
#[tokio::test]
async fn a_body_must_keep_a_minimum_rate() {
    let options = HttpOptions::default()
        .body_timeout(Duration::from_millis(500))
        .min_body_rate(20_000);
    let http = spawn_http_with(
        desk(Limits::default(), Arc::new(Semaphore::new(0))),
        options,
    )
    .await;
    // A byte every 100 ms, until the server answers.
    let slow = stalled_body(client(2), http.addr, 100, 0).await;
    let (mut reading, mut writing) = slow.into_split();
    let trickle = tokio::spawn(async move {
        for _ in 0..100 {
            if writing.write_all(b" ").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let mut answer = vec![0u8; 1024];
    let n = within("the slow body's answer", reading.read(&mut answer))
        .await
        .unwrap();
    trickle.abort();
    let text = String::from_utf8_lossy(&answer[..n]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(
        text.contains("slower than 20000 bytes per second"),
        "{text}"
    );

    // 60 KB at about 40 KB/s: past the allowance, within the rate.
    let mut steady = stalled_body(client(3), http.addr, 60_000, 0).await;
    let chunk = vec![b' '; 4_000];
    for _ in 0..15 {
        steady.write_all(&chunk).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut seen = vec![0u8; 4096];
    let n = within("the steady body's answer", steady.read(&mut seen))
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&seen[..n]);
    // Whitespace is no JSON: the body was read to its end, then parsed.
    assert!(text.starts_with("HTTP/1.1 400"), "{text}");
    assert!(text.contains("-32700"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Requests that say two things
// ---------------------------------------------------------------------------------------------

/// Sends `raw` on a new connection and reads until the server closes it (bounded).
async fn exchange(addr: SocketAddr, raw: &[u8]) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(raw).await.unwrap();
    let mut seen = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(3), s.read_to_end(&mut seen)).await;
    String::from_utf8_lossy(&seen).into_owned()
}

/// `Content-Length` beside `Transfer-Encoding: chunked` (request smuggling's shape): the body
/// is read as chunked (RFC 9112 §6.1: the Transfer-Encoding overrides) and the connection is
/// closed after the answer (§6.1: "the server MUST close the connection after responding"),
/// so nothing the length hid is ever read as a request of its own.
#[tokio::test]
async fn a_length_beside_chunked_is_read_as_chunked_and_the_connection_closed() {
    let http = spawn_http_with(
        desk(Limits::default(), Arc::new(Semaphore::new(0))),
        HttpOptions::default(),
    )
    .await;
    let body = call("ping").to_string();
    let mut head = String::from("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (name, value) in headers_for(&call("ping")) {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let smuggled = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
        body.len(),
        body
    );
    let raw = format!(
        "{head}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n{smuggled}",
        body.len()
    );
    let answer = exchange(http.addr, raw.as_bytes()).await;
    assert_eq!(answer.matches("HTTP/1.1 ").count(), 1, "{answer}");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("pong"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
}

/// An absolute-form target names its own authority (RFC 9112 §3.2.2): that is what the
/// DNS-rebinding guard judges, not the `Host` header beside it.
#[tokio::test]
async fn an_absolute_form_target_is_judged_by_its_authority() {
    let http = spawn_http_with(
        desk(Limits::default(), Arc::new(Semaphore::new(0))),
        HttpOptions::default().local_caller(desktop_user()),
    )
    .await;
    let body = call("reset").to_string();
    let mut headers = String::new();
    for (name, value) in headers_for(&call("reset")) {
        headers.push_str(&format!("{name}: {value}\r\n"));
    }
    let raw = |target: &str| {
        format!(
            "POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let evil = exchange(http.addr, raw("http://evil.example.com/mcp").as_bytes()).await;
    assert!(evil.starts_with("HTTP/1.1 403"), "{evil}");
    let mine = exchange(
        http.addr,
        raw(&format!("http://{}/mcp", http.addr)).as_bytes(),
    )
    .await;
    assert!(mine.contains("ADMIN-RESET-DONE"), "{mine}");
}

// ---------------------------------------------------------------------------------------------
// Listen streams, and the drain
// ---------------------------------------------------------------------------------------------

/// Opens a listen stream for tool list changes from `from` (`common::listen_from`).
async fn open_listen(from: IpAddr, addr: SocketAddr) -> Result<tokio::net::TcpStream, String> {
    common::listen_from(from, addr, json!({"toolsListChanged": true})).await
}

/// Listen streams are counted in their own pool: more streams than the server takes requests
/// at once are all acknowledged, and calls are still served beside them.
#[tokio::test]
async fn listen_streams_have_a_pool_of_their_own() {
    let limits = Limits::default()
        .concurrent_requests(4)
        .requests_per_caller(4)
        .listen_streams(40)
        .listens_per_caller(2);
    let server = Server::builder()
        .limits(limits)
        .list_changed(true)
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .build()
        .unwrap();
    let http = spawn_http_with(server, HttpOptions::default()).await;
    let mut streams = Vec::new();
    for n in 2..22 {
        streams.push(
            open_listen(client(n), http.addr)
                .await
                .expect("acknowledged"),
        );
    }
    assert_eq!(streams.len(), 20);
    let resp = post_from(client(30), http.addr.port(), &call("ping")).await;
    assert_eq!(text_of(&resp), "pong");
}

/// Told to stop, an instance drains: readiness turns 503 at once, it takes no new connection,
/// its listen streams end with their final result (their clients open them elsewhere), the
/// call and the task in flight finish within the grace, and a task that outlives the grace is
/// marked failed, so that whoever asks learns it at once.
#[tokio::test]
async fn told_to_stop_an_instance_drains() {
    let gate = Arc::new(Semaphore::new(0));
    let task_gate = Arc::new(Semaphore::new(0));
    let store = Arc::new(mcp_runtime::tasks::MemoryTaskStore::default());
    let server = {
        let gate = gate.clone();
        let task_gate = task_gate.clone();
        Server::builder()
            .list_changed(true)
            .tasks(TaskOptions::new().store(store.clone()))
            .tool(Tool::new("wait").handler(move |_: NoArguments, _cx| {
                let gate = gate.clone();
                async move {
                    let _permit = gate.acquire().await;
                    "waited"
                }
            }))
            .tool(Tool::new("job").task(TaskSupport::Required).handler(
                move |_: NoArguments, _cx| {
                    let gate = task_gate.clone();
                    async move {
                        let _permit = gate.acquire().await;
                        "job done"
                    }
                },
            ))
            .build()
            .unwrap()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let options = HttpOptions::default()
        .health("/health")
        .shutdown_grace(Duration::from_secs(2));
    let serving = tokio::spawn(server.serve_until(listener, options, async move {
        let _ = stop_rx.await;
    }));
    let health = format!("http://{addr}/health");
    assert_eq!(
        common::send(http::Method::GET, &health, &[], "")
            .await
            .status,
        200
    );

    let mut listen = open_listen(client(2), addr).await.expect("acknowledged");
    let port = addr.port();
    let in_flight = tokio::spawn(async move { post_from(client(3), port, &call("wait")).await });
    let mut task_meta = common::meta();
    task_meta["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {mcp_runtime::protocol::TASKS_EXTENSION: {}}});
    let create = request(
        9,
        "tools/call",
        json!({"name": "job", "arguments": {}, "_meta": task_meta}),
    );
    let created = common::response_of(&post_from(client(4), port, &create).await);
    let task_id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let _ = stop_tx.send(());
    tokio::time::sleep(Duration::from_millis(200)).await;
    // The listen stream ended with its final result.
    let mut rest = Vec::new();
    let _ = within("the listen stream's end", listen.read_to_end(&mut rest)).await;
    let rest = String::from_utf8_lossy(&rest);
    assert!(rest.contains("\"resultType\":\"complete\""), "{rest}");
    // No new connection is taken.
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "the listener is closed"
    );
    // The call in flight finishes within the grace.
    gate.add_permits(1);
    let done = within("the call in flight", in_flight).await.unwrap();
    assert_eq!(text_of(&done), "waited");
    // The task outlives the grace: failed in the store, saying why.
    within("the drain", serving).await.unwrap().unwrap();
    use mcp_runtime::tasks::TaskStore as _;
    let record = store
        .get(&task_id)
        .await
        .unwrap()
        .expect("the task is kept");
    let shown = serde_json::to_string(&record.into_detailed()).unwrap();
    assert!(shown.contains("\"failed\""), "{shown}");
    assert!(
        shown.contains("shut down before the task finished"),
        "{shown}"
    );
}
