//! The endpoint and what every request to it passes before it is read: the DNS-rebinding guard,
//! authentication and the rate limit, the client's address, and reading the body within its
//! limits of size and time.

use super::options::HttpOptions;
use super::respond::{plain_status, transport_error};
use super::{auth, guard, negotiate, peer, rate};
use crate::context::Caller;
use crate::dispatch::Dispatcher;
use crate::legacy::Legacy;
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
}

/// The endpoint `dispatcher` (and `legacy` sessions, when given) serve with `options`.
pub(super) fn endpoint(
    dispatcher: Arc<Dispatcher>,
    legacy: Option<Arc<Legacy>>,
    options: HttpOptions,
) -> Arc<Endpoint> {
    let limiter = options
        .rate
        .map(|(requests, per)| rate::Limiter::new(requests, per, options.trust_forwarded));
    Arc::new(Endpoint {
        dispatcher,
        legacy,
        options,
        limiter,
    })
}

/// The address of the client that sent a request (anonymous callers' shares are counted by it).
pub(super) fn client_address(
    options: &HttpOptions,
    parts: &http::request::Parts,
) -> Option<std::net::IpAddr> {
    let peer = peer::peer_of(&parts.extensions);
    rate::client_address(options.trust_forwarded, &parts.headers, peer)
}

/// The endpoint's local caller ([`HttpOptions::local_caller`]), for a request whose connection
/// comes from a loopback address (the socket's, never a forwarding header's).
pub(super) fn local_caller(
    options: &HttpOptions,
    parts: &http::request::Parts,
) -> Option<Arc<Caller>> {
    let caller = options.local_caller.as_ref()?;
    let peer = peer::peer_of(&parts.extensions)?;
    peer.ip().is_loopback().then(|| caller.clone())
}

/// The DNS-rebinding guard every request passes first: the refusal, if any.
pub(super) fn guarded(options: &HttpOptions, headers: &http::HeaderMap) -> Option<Response> {
    match guard::judge_host(options, headers) {
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
/// and the rate limit. The caller (and the body, unless authentication read it to refuse), or
/// the response refusing the request. An endpoint with neither never calls this: the POST
/// path then awaits no extra future.
pub(super) async fn admit(
    endpoint: &Endpoint,
    parts: &http::request::Parts,
    body: Option<Body>,
) -> Result<(Option<Arc<Caller>>, Option<Body>), Response> {
    let options = &endpoint.options;
    let (caller, body) = match &options.auth {
        None => (local_caller(options, parts), body),
        Some(rs) => match auth::authenticate(rs, &parts.headers).await {
            Ok(caller) => (caller, body),
            Err(why) => {
                // The challenge names the scopes of the operation, when the body says which.
                let scopes = match (body, negotiate::content_type_ok(&parts.headers)) {
                    (Some(body), true) => {
                        match read_body(body, options.body_limit, options.body_timeout).await {
                            Ok(bytes) => endpoint.dispatcher.scopes_needed(&bytes),
                            Err(_) => Vec::new(),
                        }
                    }
                    _ => Vec::new(),
                };
                return Err(auth::unauthenticated(rs, why, &scopes));
            }
        },
    };
    if let Some(limiter) = &endpoint.limiter {
        let peer = peer::peer_of(&parts.extensions);
        if let Err(wait) = limiter.check(caller.as_deref(), &parts.headers, peer) {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let mut resp = transport_error(
                StatusCode::TOO_MANY_REQUESTS,
                &format!("Too Many Requests: retry in {seconds} s"),
            );
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
            return Err(resp);
        }
    }
    Ok((caller, body))
}

/// Reads the whole body, refusing more than `limit` bytes (413; a declared `Content-Length`
/// above the limit is refused before reading).
pub(super) async fn read_body(
    body: Body,
    limit: usize,
    within: Duration,
) -> Result<Bytes, Response> {
    match tokio::time::timeout(within, read_body_now(body, limit)).await {
        Ok(read) => read,
        Err(_) => Err(transport_error(
            StatusCode::REQUEST_TIMEOUT,
            &format!(
                "Request Timeout: the body did not arrive within {} ms",
                within.as_millis()
            ),
        )),
    }
}

async fn read_body_now(body: Body, limit: usize) -> Result<Bytes, Response> {
    let too_large = || {
        transport_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("Payload Too Large: the body exceeds {limit} bytes"),
        )
    };
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large());
    }
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(err) = source {
            if err.is::<http_body_util::LengthLimitError>() {
                return too_large();
            }
            source = err.source();
        }
        transport_error(
            StatusCode::BAD_REQUEST,
            "Bad Request: the body could not be read",
        )
    })
}
