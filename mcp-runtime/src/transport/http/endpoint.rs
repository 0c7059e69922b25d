//! The endpoint and what every request to it passes before it is read: the DNS-rebinding guard,
//! authentication and the rate limit, the client's address, and reading the body within its
//! limits of size and time.

use super::options::HttpOptions;
use super::respond::{plain_status, transport_error};
use super::{auth, client, guard, negotiate, peer, rate};
use crate::context::Caller;
use crate::dispatch::Dispatcher;
use crate::legacy::Legacy;
use crate::net::ClientNet;
use axum::body::{Body, HttpBody as _};
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use std::sync::Arc;
use std::time::Duration;

/// The endpoint: what serves it, and how.
pub(super) struct Endpoint {
    pub(super) dispatcher: Arc<Dispatcher>,
    /// The 2025-11-25 side, unless the server serves 2026-07-28 clients only.
    pub(super) legacy: Option<Arc<Legacy>>,
    pub(super) options: HttpOptions,
    pub(super) limiter: Option<rate::Limiter>,
    /// The readiness checks' last answer, and when it was given (`health.rs`).
    pub(super) readiness: tokio::sync::Mutex<Option<(std::time::Instant, bool)>>,
}

/// The endpoint `dispatcher` (and `legacy` sessions, when given) serve with `options`.
pub(super) fn endpoint(
    dispatcher: Arc<Dispatcher>,
    legacy: Option<Arc<Legacy>>,
    options: HttpOptions,
) -> Arc<Endpoint> {
    warn_of_a_local_key(&dispatcher);
    let limiter = options
        .rate
        .map(|(requests, per)| rate::Limiter::new(requests, per));
    Arc::new(Endpoint {
        dispatcher,
        legacy,
        options,
        limiter,
        readiness: tokio::sync::Mutex::new(None),
    })
}

/// Says once a process, when an HTTP server's primitives ask the client for input and its
/// `requestState` key was made by this process, that those requests resume only here. (Over
/// stdio the one process is the only instance; Lambda refuses such a server before this.)
fn warn_of_a_local_key(dispatcher: &Dispatcher) {
    const MSG: &str = "no requestState key configured (MCP_STATE_KEY or \
         ServerBuilder::state_keys): generated a random one, so multi-round requests only resume \
         on this instance";
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let sealer = &dispatcher.sealer;
    if !sealer.asks_input
        || !sealer.ring.is_generated()
        || WARNED.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        return;
    }
    warn(MSG);
}

/// Logs a warning: through `tracing` when a subscriber is installed, else on stderr (never
/// stdout, which may be a stdio transport's).
pub(crate) fn warn(message: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::warn!("{message}");
    } else {
        eprintln!("warning: {message}");
    }
}

/// The client that sent a request, as `client.rs` decides it (anonymous callers' shares and
/// the rate limit count by it).
pub(super) fn client_of(options: &HttpOptions, parts: &http::request::Parts) -> Option<ClientNet> {
    client::client_of(options, &parts.headers, peer::peer_of(&parts.extensions))
}

/// The endpoint's local caller ([`HttpOptions::local_caller`]), for a request that came
/// straight from this machine (`client.rs`) and from no page but its own or one the endpoint
/// names.
pub(super) fn local_caller(
    options: &HttpOptions,
    parts: &http::request::Parts,
) -> Option<Arc<Caller>> {
    let caller = options.local_caller.as_ref()?;
    let peer = peer::peer_of(&parts.extensions);
    (client::came_from_here(&parts.headers, &parts.uri, peer)
        && guard::own_or_named_origin(options, &parts.headers))
    .then(|| caller.clone())
}

/// The DNS-rebinding guard every request passes first: the refusal, if any.
pub(super) fn guarded(
    options: &HttpOptions,
    headers: &http::HeaderMap,
    target: &http::Uri,
) -> Option<Response> {
    match guard::judge_host(options, headers, target) {
        Err(why) => return Some(plain_status(StatusCode::BAD_REQUEST, why)),
        Ok(true) if guard::origin_allowed(options, headers) => return None,
        Ok(_) => {}
    }
    Some(plain_status(
        StatusCode::FORBIDDEN,
        "Forbidden: this Host or Origin is not allowed (DNS rebinding protection)",
    ))
}

/// What a guarded request passes before it is read, when the endpoint has them: authentication
/// and the rate limit. The caller (the token's, else `local`: the local caller when this
/// request may have it) and the body (unless authentication read it to refuse), or the response
/// refusing the request. An endpoint with neither never calls this: the POST path then awaits
/// no extra future.
pub(super) async fn admit(
    endpoint: &Endpoint,
    parts: &http::request::Parts,
    body: Option<Body>,
    client: Option<ClientNet>,
    local: Option<Arc<Caller>>,
) -> Result<(Option<Arc<Caller>>, Option<Body>), Response> {
    let options = &endpoint.options;
    let (caller, body) = match &options.auth {
        None => (local, body),
        Some(rs) => match auth::authenticate_request(
            rs,
            &parts.method,
            &parts.headers,
            endpoint.dispatcher.config.keep_caller_tokens,
        )
        .await
        {
            Ok(caller) => (caller, body),
            Err(why) => {
                // The challenge names the scopes of the operation, when the body says which.
                let scopes = match (body, negotiate::content_type_ok(&parts.headers)) {
                    (Some(body), true) => match read_body(body, options).await {
                        Ok(bytes) => endpoint.dispatcher.scopes_needed(&bytes),
                        Err(_) => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                return Err(auth::unauthenticated(rs, why, &scopes));
            }
        },
    };
    if let Some(limiter) = &endpoint.limiter
        && let Err(wait) = limiter.check(caller.as_deref(), client)
    {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        let mut resp = transport_error(
            StatusCode::TOO_MANY_REQUESTS,
            &format!("Too Many Requests: retry in {seconds} s"),
        );
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        return Err(resp);
    }
    Ok((caller, body))
}

/// Reads the whole body, refusing more than the body limit (413; a declared `Content-Length`
/// above it is refused before reading), and a body that falls behind: once the options'
/// `body_timeout` has passed, it must have come at `min_body_rate` since it began (408).
pub(super) async fn read_body(body: Body, options: &HttpOptions) -> Result<Bytes, Response> {
    use http_body_util::BodyExt as _;
    let limit = options.body_limit;
    let too_large = || {
        transport_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("Payload Too Large: the body exceeds {limit} bytes"),
        )
    };
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large());
    }
    let started = tokio::time::Instant::now();
    let (allowance, rate) = (options.body_timeout, f64::from(options.min_body_rate));
    // What `received` bytes buy: the allowance, or their time at the minimum rate if longer.
    let deadline =
        |received: usize| started + allowance.max(Duration::from_secs_f64(received as f64 / rate));
    let mut body = body;
    let mut sleep = std::pin::pin!(tokio::time::sleep_until(deadline(0)));
    let mut first: Option<Bytes> = None;
    let mut more = bytes::BytesMut::new();
    let mut received = 0usize;
    loop {
        // The body first: one that is all here already never arms the timer.
        let frame = tokio::select! {
            biased;
            frame = body.frame() => frame,
            () = &mut sleep => {
                return Err(transport_error(
                    StatusCode::REQUEST_TIMEOUT,
                    &format!(
                        "Request Timeout: the body came slower than {} bytes per second after {} ms ({received} bytes so far)",
                        options.min_body_rate,
                        allowance.as_millis()
                    ),
                ));
            }
        };
        let data = match frame {
            None => break,
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
            Some(Err(_)) => {
                return Err(transport_error(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the body could not be read",
                ));
            }
        };
        received += data.len();
        if received > limit {
            return Err(too_large());
        }
        match first.take() {
            None if more.is_empty() => first = Some(data),
            None => more.extend_from_slice(&data),
            Some(earlier) => {
                more.extend_from_slice(&earlier);
                more.extend_from_slice(&data);
            }
        }
        let next = deadline(received);
        if next > sleep.deadline() {
            sleep.as_mut().reset(next);
        }
    }
    Ok(match first {
        Some(only) => only,
        None => more.freeze(),
    })
}
