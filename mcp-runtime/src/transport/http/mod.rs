//! Streamable HTTP: one endpoint. 2026-07-28 clients POST one message at a time, each answered
//! as JSON or SSE, chosen per request. 2025-11-25 clients (the handshake revision) are served on
//! the same endpoint from the same handlers: which revision a request belongs to is decided per
//! request (`era`: the `MCP-Protocol-Version` header, `Mcp-Session-Id`, a `_meta` version in
//! the body), and a legacy one goes to its session (`legacy`: `initialize`, GET streams with
//! `Last-Event-ID` resumption, DELETE, 404 for an unknown session).
//!
//! Validation order of a 2026-07-28 request (the first failing step answers):
//!
//! | step | failure | status | JSON-RPC |
//! |---|---|---|---|
//! | method is POST | PUT, …; GET or DELETE without `Mcp-Session-Id` | 405 (`Allow: POST`) | – |
//! | (`OPTIONS`: a CORS preflight, `cors`) | origin or requested header not allowed | 403 (else 204) | – |
//! | one non-empty `Host` (`guard`, RFC 9112 §3.2) | two `Host` headers, an empty one | 400 | – |
//! | `Host` and `Origin` allowed (`guard`) | DNS-rebinding guard | 403 | – |
//! | authentication (when configured, `auth`) | no, bad or invalid token | 401/400/503 | `-32600` |
//! | rate limit per caller (when configured, `rate`) | over the limit | 429 + `Retry-After` | `-32600` |
//! | `Content-Type` is `application/json` (`negotiate`) | | 415 | `-32600` |
//! | `Accept` admits JSON or SSE | | 406 | `-32600` |
//! | body within the limit | | 413 | `-32600` |
//! | body read within `body_timeout` (slow senders) | | 408 | `-32600` |
//! | a 2026-07-28 request (`era`) | else the 2025-11-25 session path | – | – |
//! | body parses | invalid JSON / not one request object | 400 | `-32700` / `-32600` |
//! | nesting within `Limits::depth` (checked before parsing) | | 400 | `-32602` (`-32600` without a readable envelope) |
//! | ids, names, URIs, cursors within `Limits::string_bytes` | | 400 | `-32602` |
//! | notification | accepted | 202 | – |
//! | `params` is an object, `_meta` has version and capabilities | | 400 | `-32602` |
//! | `MCP-Protocol-Version` equals `_meta` (`headers`) | | 400 | `-32020` |
//! | `Mcp-Method`, `Mcp-Name` equal the body | | 400 | `-32020` |
//! | version supported | | 400 | `-32022` |
//! | method known and advertised | | 404 | `-32601` |
//! | `tools/call`: `Mcp-Param-*` equal the arguments | | 400 | `-32020` |
//! | the method's own errors | missing client capability | 400 | `-32021` |
//! | | caller refused (scopes, checks) | 401/403 + challenge | `-32602` |
//! | | server at its concurrency limit | 503 + `Retry-After` | `-32603` |
//! | | anything else (unknown tool, bad arguments, …) | 200 | `-32602`, `-32603`, … |
//!
//! On the 2026-07-28 path `Mcp-Session-Id` and `Last-Event-ID` play no part: that revision has
//! no sessions and no resumption.
//!
//! # Files
//!
//! This module serves and binds (`router`, `serve`, `bind`). `routes`: the handlers of each
//! route and the POST the accept loop takes directly (`accept::DirectRoute`); `endpoint`:
//! the endpoint and what a request passes before it is read (guard, authentication, rate
//! limit, body); `answer`: a pipeline answer as a response; `respond`: plain responses;
//! `cors`: the preflight, and the headers an answer to another allowed origin carries;
//! `sse`: every SSE stream; `legacy`: a 2025-11-25 session's outcomes as responses (the
//! session itself is `crate::legacy`'s); `server_card` (feature `server-card`): the Server
//! Card and the AI Catalog.
//!
//! # The lab page
//!
//! With the `lab` feature, the router also serves a page at `/lab` (`HttpOptions::lab_path`
//! moves it, `HttpOptions::without_lab` leaves it out): an MCP client that runs in the browser. It sends real requests to
//! this endpoint (discover, the three lists, then one call, read and get, each granted or denied
//! by the user as the host), answers `input_required` rounds from forms, shows progress and log
//! notifications as they stream, opens `subscriptions/listen`, reads skills, and shows every
//! envelope as sent and received. It is plain HTML, CSS and JavaScript embedded in the binary,
//! loads nothing from any other host, and is served only to loopback clients that connect
//! directly (no proxy headers) and name a loopback host, unless `HttpOptions::lab_for_any_client`
//! is on. With [`HttpOptions::auth`], the page itself needs no token; paste one into it to call
//! the endpoint.
//!
//! It is also an MCP Apps host: a tool linked to a `ui://` view is called (with the user's
//! grant), its view read and rendered in a sandbox, and the view's own requests go through the
//! page (each `tools/call` with the user's grant, never a tool whose visibility leaves out
//! `app`). A view's `resources/read` goes without a grant only for a `ui://` view this server's
//! tools link to (the page reads those itself); any other URI is shown to the user and sent only
//! once granted, as the MCP Apps spec lets a host subject a view's requests to user approval.
//! The sandbox is `/lab/sandbox` on the other loopback name of the server (the page on
//! `127.0.0.1` frames `localhost`, and the other way round), always for loopback clients only,
//! under a `Content-Security-Policy` built from the view's `_meta.ui.csp` (the spec's restrictive
//! default when it declares none); the view runs inside it in a frame of an opaque origin, so it
//! reaches neither the page nor its token. Views are rendered when the page is opened on
//! `127.0.0.1` or `localhost`.
//!
//! ```no_run
//! # #[cfg(feature = "lab")]
//! # async fn demo(server: mcp_runtime::Server) -> Result<(), mcp_runtime::Error> {
//! // `cargo run --example acme-knowledge`, then open http://127.0.0.1:8000/lab
//! let options = mcp_runtime::HttpOptions::default().lab_path("/lab");
//! server.run_with(mcp_runtime::RunMode::default(), options).await
//! # }
//! ```

mod accept;
mod answer;
mod auth;
mod client;
mod cors;
mod endpoint;
mod era;
mod guard;
mod headers;
mod health;
mod hygiene;
#[cfg(feature = "lab")]
mod lab;
// `mcp_runtime::lambda`: the endpoint's checks served to Lambda events.
#[cfg(feature = "lambda")]
#[doc(hidden)]
pub mod lambda;
mod legacy;
mod negotiate;
mod options;
mod peer;
mod proxies;
mod rate;
mod respond;
mod routes;
mod scopes;
// The Server Card and the AI Catalog (SEP-2127, a draft).
#[cfg(feature = "server-card")]
mod server_card;
mod sse;

pub(crate) use endpoint::warn;
pub use options::HttpOptions;
#[cfg(feature = "server-card")]
pub use options::ServerCard;
pub use proxies::ForwardedHeader;
pub(crate) use scopes::check as check_options;
#[cfg(feature = "server-card")]
pub use server_card::SERVER_CARD_SCHEMA;

use crate::dispatch::Dispatcher;
use crate::legacy::Legacy;
use axum::Router;
use endpoint::endpoint;
use routes::{EndpointPost, routes};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// An axum router serving `dispatcher` (and `legacy` sessions, when given) at the options' path.
pub(crate) fn router(
    dispatcher: Arc<Dispatcher>,
    legacy: Option<Arc<Legacy>>,
    options: HttpOptions,
) -> Router {
    routes(endpoint(dispatcher, legacy, options))
}

/// Serves on `listener` until `signal`; then drains: readiness turns to 503, the listener
/// closes (a proxy sends new connections elsewhere), listen streams end with their final
/// result (their clients open them again on another instance), answers say `Connection: close`
/// and connections close once their client knows (`accept::LINGER`), and the
/// requests and tasks in flight get the options' grace period to finish. Then the tasks still
/// running are marked failed (so that their clients learn it at once, on any instance sharing
/// the task store), and it returns.
pub(crate) async fn serve<S>(
    dispatcher: Arc<Dispatcher>,
    legacy: Option<Arc<Legacy>>,
    listener: tokio::net::TcpListener,
    options: HttpOptions,
    signal: S,
) where
    S: Future<Output = ()> + Send + 'static,
{
    let shutdown = dispatcher.shutdown.clone();
    let grace = options.shutdown_grace;
    let stopping = shutdown.clone();
    let stopped_at = Arc::new(std::sync::OnceLock::new());
    let stop = {
        let stopped_at = stopped_at.clone();
        async move {
            signal.await;
            let _ = stopped_at.set(tokio::time::Instant::now());
            shutdown.cancel();
        }
    };
    let rules = options.hygiene();
    // Made once and shared by every connection (a clone is a reference count).
    let endpoint = endpoint(dispatcher.clone(), legacy, options);
    let app = routes(endpoint.clone());
    tokio::select! {
        () = accept::serve(listener, app, Arc::new(EndpointPost(endpoint)), rules, stop) => {}
        () = async {
            stopping.cancelled().await;
            tokio::time::sleep(grace).await;
        } => {
            tracing::warn!(
                grace_ms = grace.as_millis() as u64,
                "requests still running after the shutdown grace period: closing their connections"
            );
        }
    }
    // Tasks outlive their requests: they get what is left of the grace.
    let until = stopped_at
        .get()
        .copied()
        .unwrap_or_else(tokio::time::Instant::now)
        + grace;
    while dispatcher.running_tasks.taken() > 0 && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    dispatcher.halt.cancel();
    // Each task still running writes its failure to the store: a moment for that.
    let written = tokio::time::Instant::now() + Duration::from_secs(2);
    while dispatcher.running_tasks.taken() > 0 && tokio::time::Instant::now() < written {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A listener on `addr` with room for 4,096 connections waiting to be accepted (the kernel caps
/// it at `net.core.somaxconn`), as [`Server::run`](crate::Server::run) binds: with tokio's
/// default of 1,024, a burst of a thousand clients connecting at once overflowed the queue, and
/// the dropped ones retried a second later (BENCHMARKS.md, "Listen backlog").
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
/// let listener = mcp_runtime::transport::http::bind("127.0.0.1:0".parse().unwrap()).await?;
/// assert!(listener.local_addr()?.port() > 0);
/// # Ok(()) }
/// ```
pub async fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    // As std and tokio do on Unix: a restarted server can bind while old connections linger.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(4096)
}

/// Ctrl-C, or (on Unix) SIGTERM: what ends [`Server::serve`](crate::Server::serve).
pub(crate) async fn ctrl_c_or_term() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
