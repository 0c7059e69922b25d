//! CORS for hosts that run in a browser: a request from an origin the endpoint allows (a
//! loopback origin, or one of `HttpOptions::allow_origin`) may cross origins. Its preflight
//! (`OPTIONS`) is answered with the methods and the MCP request headers it may send, and every
//! answer to it names the origin and exposes the headers a client reads (`Mcp-Session-Id`,
//! `WWW-Authenticate`, …). Credentials mode is never allowed: the endpoint authenticates with
//! bearer tokens, not cookies. Any other origin is refused before CORS is looked at (403, the
//! DNS-rebinding guard). An endpoint with a local caller crosses origins only for the origins
//! it names: loopback ones are any page on this machine.

use super::endpoint::{Endpoint, guarded};
use super::guard;
use super::options::HttpOptions;
use super::respond::plain_status;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use std::sync::Arc;

/// What a cross-origin client may send: the endpoint's methods.
const METHODS: &str = "POST, GET, DELETE";

/// The request headers a cross-origin client may send (and any `Mcp-Param-*`), lowercase.
const REQUEST_HEADERS: &[&str] = &[
    "accept",
    "authorization",
    "content-type",
    "dpop",
    "last-event-id",
    "mcp-method",
    "mcp-name",
    "mcp-protocol-version",
    "mcp-session-id",
    "traceparent",
    "tracestate",
];

/// The response headers a cross-origin client may read.
const EXPOSED: &str =
    "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After, DPoP-Nonce";

/// How long a browser may keep a preflight's answer, in seconds.
const MAX_AGE: &str = "600";

/// The request's `Origin`, when it names one the endpoint allows to cross origins: what its
/// answer must name. On an endpoint with a local caller, only origins
/// [`HttpOptions::allow_origin`] names: a loopback origin is any page served on any port of
/// this machine, and it would call with the local caller's rights.
pub(super) fn origin(options: &HttpOptions, headers: &HeaderMap) -> Option<HeaderValue> {
    let origin = headers.get(header::ORIGIN)?;
    let allowed = match options.local_caller {
        None => guard::origin_allowed(options, headers),
        Some(_) => {
            headers.get_all(header::ORIGIN).iter().count() == 1
                && origin
                    .to_str()
                    .is_ok_and(|o| guard::named_origin(options, o.trim().trim_end_matches('/')))
        }
    };
    allowed.then(|| origin.clone())
}

/// Names `origin` on an answer to a cross-origin request, and exposes what clients read.
pub(super) fn allow(response: &mut Response, origin: HeaderValue) {
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED),
    );
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
}

/// Whether a cross-origin request may carry the header `name`.
fn header_allowed(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    REQUEST_HEADERS.contains(&name.as_str())
        || name
            .strip_prefix("mcp-param-")
            .is_some_and(|rest| !rest.is_empty())
}

/// `OPTIONS` on the endpoint: the preflight of a cross-origin request.
pub(super) async fn preflight(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let headers = request.headers();
    if let Some(refused) = guarded(&endpoint.options, headers, request.uri()) {
        return refused;
    }
    let Some(origin) = origin(&endpoint.options, headers) else {
        if headers.contains_key(header::ORIGIN) {
            // Only an endpoint with a local caller gets here with an origin the guard passed.
            return plain_status(
                StatusCode::FORBIDDEN,
                "Forbidden: this endpoint gives loopback requests a local caller, so only the origins it names (HttpOptions::allow_origin) may call it from a browser page",
            );
        }
        return plain_status(
            StatusCode::BAD_REQUEST,
            "Bad Request: a CORS preflight names its Origin",
        );
    };
    let method = headers
        .get(header::ACCESS_CONTROL_REQUEST_METHOD)
        .and_then(|m| m.to_str().ok())
        .unwrap_or_default();
    if !matches!(method, "POST" | "GET" | "DELETE") {
        return plain_status(
            StatusCode::FORBIDDEN,
            "Forbidden: the endpoint takes POST, GET and DELETE",
        );
    }
    let requested: Vec<&str> = headers
        .get_all(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .collect();
    if let Some(refused) = requested.iter().find(|h| !header_allowed(h)) {
        return plain_status(
            StatusCode::FORBIDDEN,
            &format!("Forbidden: a cross-origin request may not send the header {refused}"),
        );
    }
    let mut allowed = REQUEST_HEADERS.join(", ");
    for h in requested
        .iter()
        .filter(|h| h.to_ascii_lowercase().starts_with("mcp-param-"))
    {
        allowed.push_str(", ");
        allowed.push_str(&h.to_ascii_lowercase());
    }
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let out = response.headers_mut();
    out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    out.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(METHODS),
    );
    if let Ok(value) = HeaderValue::from_str(&allowed) {
        out.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, value);
    }
    out.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static(MAX_AGE),
    );
    out.insert(
        header::VARY,
        HeaderValue::from_static(
            "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
        ),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::header_allowed;

    #[test]
    fn the_mcp_headers_and_their_parameters_may_cross_origins() {
        for h in [
            "Content-Type",
            "Authorization",
            "MCP-Protocol-Version",
            "mcp-param-region",
        ] {
            assert!(header_allowed(h), "{h}");
        }
        for h in ["Cookie", "X-Forwarded-For", "mcp-param-", "Host"] {
            assert!(!header_allowed(h), "{h}");
        }
    }
}
