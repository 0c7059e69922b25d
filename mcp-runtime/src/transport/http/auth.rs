//! The authentication stage (when [`HttpOptions::auth`](super::HttpOptions::auth) is set): the
//! bearer token of a request, checked by the verifier; the challenges of refused requests; the
//! protected resource metadata document.
//!
//! | request | status | `WWW-Authenticate: Bearer …` |
//! |---|---|---|
//! | no token (or another scheme) | 401 | `resource_metadata`, `scope` (what the operation needs, else `scopes_supported`) |
//! | two `Authorization` headers, a token that is not token68 | 400 | + `error="invalid_request"` |
//! | a token the verifier refuses | 401 | + `error="invalid_token"`, `error_description` |
//! | the verifier cannot check now (JWKS unreachable) | 503 (`Retry-After`) | – |
//! | a valid token without a scope the primitive needs | 403 | + `error="insufficient_scope"`, `scope` |
//!
//! Tokens are read from the `Authorization` header only (never from the query string), and are
//! never logged.

use super::respond::{json_response, transport_error};
use crate::auth::{Challenge, ResourceServer, TokenError, WELL_KNOWN};
use crate::context::Caller;
use crate::error::Refusal;
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use std::sync::Arc;

/// Why a request was not authenticated.
pub(super) enum Unauthenticated {
    /// No bearer token.
    Missing,
    /// An `Authorization` header that cannot be read.
    Malformed(&'static str),
    /// The verifier refused the token.
    Invalid(String),
    /// The verifier cannot check tokens now.
    Unavailable,
}

/// The bearer token of a request, if any.
fn bearer(headers: &HeaderMap) -> Result<Option<&str>, Unauthenticated> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(Unauthenticated::Malformed("send one Authorization header"));
    }
    let value = value.as_bytes();
    let (scheme, rest) = match value.iter().position(|&b| b == b' ') {
        Some(i) => (&value[..i], &value[i + 1..]),
        None => (value, &[][..]),
    };
    if !scheme.eq_ignore_ascii_case(b"bearer") {
        // Another scheme: no bearer credentials at all.
        return Ok(None);
    }
    let token = rest.trim_ascii();
    match std::str::from_utf8(token) {
        Ok(token) if is_token68(token.as_bytes()) => Ok(Some(token)),
        _ => Err(Unauthenticated::Malformed(
            "the bearer token is not a token68 string",
        )),
    }
}

/// RFC 7235 `token68`: `[A-Za-z0-9-._~+/]+ "="*`. Every byte is checked without branching, so
/// that the check vectorizes: it runs on every request (a byte-by-byte `all` cost far more;
/// BENCHMARKS.md, "Bearer tokens").
fn is_token68(token: &[u8]) -> bool {
    let body = match token.iter().rposition(|&b| b != b'=') {
        Some(last) => &token[..=last],
        None => return false,
    };
    body.iter().fold(true, |ok, &b| {
        let letter = (b | 0x20).wrapping_sub(b'a') < 26;
        let digit = b.wrapping_sub(b'0') < 10;
        let mark =
            (b == b'-') | (b == b'.') | (b == b'_') | (b == b'~') | (b == b'+') | (b == b'/');
        ok & (letter | digit | mark)
    })
}

/// The caller of a request: `None` when anonymous access is allowed and no token was sent.
/// `keep_token`: the caller carries the token it sent (a mount passes it on or exchanges it).
pub(super) async fn authenticate(
    rs: &ResourceServer,
    headers: &HeaderMap,
    keep_token: bool,
) -> Result<Option<Arc<Caller>>, Unauthenticated> {
    match bearer(headers)? {
        None if rs.anonymous => Ok(None),
        None => Err(Unauthenticated::Missing),
        Some(token) => match rs.verifier.verify(token).await {
            Ok(caller) if keep_token => Ok(Some(Arc::new(caller.with_token(token)))),
            Ok(caller) => Ok(Some(caller)),
            Err(TokenError::Invalid(why)) => Err(Unauthenticated::Invalid(why)),
            Err(TokenError::Unavailable(why)) => {
                tracing::error!(error = %why, "access tokens cannot be verified");
                Err(Unauthenticated::Unavailable)
            }
        },
    }
}

fn with_challenge(mut resp: Response, rs: &ResourceServer, challenge: &Challenge<'_>) -> Response {
    let value = challenge.header_value(&rs.metadata_url());
    if let Ok(v) = HeaderValue::from_str(&value) {
        resp.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    resp
}

/// The scopes a challenge names: those the operation needs, else the baseline the metadata
/// publishes.
fn challenge_scopes<'a>(rs: &'a ResourceServer, needed: &'a [String]) -> &'a [String] {
    match needed.is_empty() {
        true => &rs.metadata.scopes_supported,
        false => needed,
    }
}

/// The answer to a request that was not authenticated; `scopes` are those its operation needs.
pub(super) fn unauthenticated(
    rs: &ResourceServer,
    why: Unauthenticated,
    scopes: &[String],
) -> Response {
    let scopes = challenge_scopes(rs, scopes);
    match why {
        Unauthenticated::Missing => with_challenge(
            transport_error(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send an access token (Authorization: Bearer …)",
            ),
            rs,
            &Challenge {
                scopes,
                ..Challenge::default()
            },
        ),
        Unauthenticated::Malformed(why) => with_challenge(
            transport_error(StatusCode::BAD_REQUEST, &format!("Bad Request: {why}")),
            rs,
            &Challenge {
                error: Some("invalid_request"),
                description: Some(why),
                scopes,
            },
        ),
        Unauthenticated::Invalid(why) => with_challenge(
            transport_error(StatusCode::UNAUTHORIZED, &format!("Unauthorized: {why}")),
            rs,
            &Challenge {
                error: Some("invalid_token"),
                description: Some(&why),
                scopes,
            },
        ),
        Unauthenticated::Unavailable => {
            let mut resp = transport_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: access tokens cannot be verified right now; retry shortly",
            );
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            resp
        }
    }
}

/// The status and challenge of an answer that refused its caller: 401 for an anonymous caller,
/// 403 `insufficient_scope` for an authenticated one (403 without a challenge when this
/// endpoint authenticates no one).
pub(super) fn refused(rs: Option<&ResourceServer>, refusal: &Refusal, body: Bytes) -> Response {
    let Some(rs) = rs else {
        return json_response(StatusCode::FORBIDDEN, body);
    };
    if refusal.anonymous {
        let challenge = Challenge {
            scopes: challenge_scopes(rs, &refusal.scopes),
            ..Challenge::default()
        };
        return with_challenge(
            json_response(StatusCode::UNAUTHORIZED, body),
            rs,
            &challenge,
        );
    }
    let challenge = Challenge {
        error: Some("insufficient_scope"),
        description: None,
        scopes: &refusal.scopes,
    };
    with_challenge(json_response(StatusCode::FORBIDDEN, body), rs, &challenge)
}

/// The well-known paths of the metadata document: path-suffixed (from the resource URI) and
/// root.
pub(super) fn metadata_paths(rs: &ResourceServer) -> Vec<String> {
    let suffixed = rs.uri.metadata_path();
    let mut paths = vec![WELL_KNOWN.to_owned()];
    if suffixed != WELL_KNOWN {
        paths.push(suffixed);
    }
    paths
}

/// The metadata document (public: any origin may read it).
pub(super) fn metadata_response(rs: &ResourceServer) -> Response {
    let body = serde_json::to_vec(&rs.metadata).unwrap_or_default();
    let mut resp = Response::new(Body::from(body));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=3600"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn bearer_tokens_are_read_strictly() {
        assert!(matches!(bearer(&headers(&[])), Ok(None)));
        assert!(matches!(
            bearer(&headers(&["Basic dXNlcjpwdw=="])),
            Ok(None)
        ));
        assert!(matches!(
            bearer(&headers(&["bearer abc.def-_~+/=="])),
            Ok(Some("abc.def-_~+/=="))
        ));
        for bad in [
            "Bearer",
            "Bearer ",
            "Bearer a b",
            "Bearer a\"b",
            "Bearer =abc",
        ] {
            assert!(
                matches!(bearer(&headers(&[bad])), Err(Unauthenticated::Malformed(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            bearer(&headers(&["Bearer a", "Bearer b"])),
            Err(Unauthenticated::Malformed(_))
        ));
    }
}
