//! The authentication stage (when [`HttpOptions::auth`](super::HttpOptions::auth) is set): the
//! access token of a request (and with DPoP its proof), checked by the verifier; the challenges
//! of refused requests; the protected resource metadata document.
//!
//! | request | status | `WWW-Authenticate: Bearer …` |
//! |---|---|---|
//! | no token (or another scheme) | 401 | `resource_metadata`, `scope` (what the operation needs, else `scopes_supported`) |
//! | two `Authorization` headers, a token that is not token68 | 400 | + `error="invalid_request"` |
//! | a token the verifier refuses, a token bound to a DPoP key sent as Bearer | 401 | + `error="invalid_token"`, `error_description` |
//! | the verifier cannot check now (JWKS unreachable) | 503 (`Retry-After`) | – |
//! | a valid token without a scope the primitive needs | 403 | + `error="insufficient_scope"`, `scope` |
//!
//! With DPoP (feature `jwt`, `ResourceServer::dpop`) a
//! `WWW-Authenticate: DPoP …` challenge (the same parameters and `algs`) follows the Bearer one
//! (or replaces it when DPoP is required). A refused proof is 401 with `error` in the DPoP
//! challenge only: `invalid_dpop_proof`, `use_dpop_nonce` (with a `DPoP-Nonce` header), or
//! `invalid_token` for the token it came with; a Bearer token where DPoP is required is 401
//! `invalid_token` in the DPoP challenge. With nonces on, every answer with a DPoP challenge
//! carries a fresh `DPoP-Nonce`.
//!
//! Tokens are read from the `Authorization` header only (never from the query string), and
//! neither they nor proofs are logged.

use super::respond::{json_response, transport_error};
#[cfg(feature = "jwt")]
use crate::auth::dpop::{DpopError, DpopRefusal};
use crate::auth::{Challenge, ResourceServer, TokenError, WELL_KNOWN};
use crate::context::Caller;
use crate::error::Refusal;
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use std::sync::Arc;

/// Why a request was not authenticated.
pub(super) enum Unauthenticated {
    /// No access token.
    Missing,
    /// An `Authorization` header that cannot be read.
    Malformed(&'static str),
    /// The verifier refused the Bearer token (or it is bound to a DPoP key).
    Invalid(String),
    /// The verifier cannot check tokens now.
    Unavailable,
    /// The token presented with DPoP, or its proof, was refused.
    #[cfg(feature = "jwt")]
    Dpop(DpopRefusal),
    /// A Bearer token, where only DPoP-bound ones are taken.
    #[cfg(feature = "jwt")]
    BearerRefused,
}

/// The access token of a request, as it was presented.
#[derive(Debug, PartialEq, Eq)]
enum Presented<'a> {
    /// `Authorization: Bearer <token>`.
    Bearer(&'a str),
    /// `Authorization: DPoP <token>`, with a proof in the `DPoP` header.
    #[cfg(feature = "jwt")]
    Dpop(&'a str),
}

/// The access token of a request, if any: `Bearer`, or `DPoP` when `dpop` (another scheme is
/// no token at all).
fn presented(headers: &HeaderMap, dpop: bool) -> Result<Option<Presented<'_>>, Unauthenticated> {
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
    let is_dpop = dpop && scheme.eq_ignore_ascii_case(b"dpop");
    if !scheme.eq_ignore_ascii_case(b"bearer") && !is_dpop {
        // Another scheme: no credentials at all.
        return Ok(None);
    }
    let token = rest.trim_ascii();
    let token = match std::str::from_utf8(token) {
        Ok(token) if is_token68(token.as_bytes()) => token,
        _ if is_dpop => {
            return Err(Unauthenticated::Malformed(
                "the DPoP-bound token is not a token68 string",
            ));
        }
        _ => {
            return Err(Unauthenticated::Malformed(
                "the bearer token is not a token68 string",
            ));
        }
    };
    #[cfg(feature = "jwt")]
    if is_dpop {
        return Ok(Some(Presented::Dpop(token)));
    }
    Ok(Some(Presented::Bearer(token)))
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

/// Whether a token is bound to a DPoP key (RFC 9449 §6: `cnf.jkt`), so that it must never be
/// taken as a Bearer token (§7.2).
fn bound_to_key(caller: &Caller) -> bool {
    caller
        .claims
        .get("cnf")
        .is_some_and(|cnf| cnf.get("jkt").is_some())
}

/// The caller of `token`, as the verifier says.
async fn verified(rs: &ResourceServer, token: &str) -> Result<Arc<Caller>, Unauthenticated> {
    match rs.verifier.verify(token).await {
        Ok(caller) => Ok(caller),
        Err(TokenError::Invalid(why)) => Err(Unauthenticated::Invalid(why)),
        Err(TokenError::Unavailable(why)) => {
            tracing::error!(error = %why, "access tokens cannot be verified");
            Err(Unauthenticated::Unavailable)
        }
    }
}

/// The caller of a request made with `method` (what a DPoP proof's `htm` must be): `None` when
/// anonymous access is allowed and no token was sent. `keep_token`: the caller carries the
/// token it sent (a mount passes it on or exchanges it).
pub(super) async fn authenticate_request(
    rs: &ResourceServer,
    method: &Method,
    headers: &HeaderMap,
    keep_token: bool,
) -> Result<Option<Arc<Caller>>, Unauthenticated> {
    let (token, caller) = match presented(headers, rs.takes_dpop())? {
        None if rs.anonymous => return Ok(None),
        None => return Err(Unauthenticated::Missing),
        Some(Presented::Bearer(token)) => {
            #[cfg(feature = "jwt")]
            if !rs.takes_bearer() {
                return Err(Unauthenticated::BearerRefused);
            }
            let caller = verified(rs, token).await?;
            if bound_to_key(&caller) {
                return Err(Unauthenticated::Invalid(
                    "this access token is bound to a DPoP key: present it as `Authorization: \
                     DPoP` with a DPoP proof, never as a Bearer token"
                        .to_owned(),
                ));
            }
            (token, caller)
        }
        #[cfg(feature = "jwt")]
        Some(Presented::Dpop(token)) => {
            let Some(dpop) = rs.dpop.as_deref() else {
                return Err(Unauthenticated::Missing);
            };
            let proof = dpop
                .check_proof(headers, method.as_str(), token)
                .map_err(Unauthenticated::Dpop)?;
            let caller = match verified(rs, token).await {
                Err(Unauthenticated::Invalid(why)) => {
                    return Err(Unauthenticated::Dpop(DpopRefusal::token(why)));
                }
                other => other?,
            };
            dpop.accept(proof, &caller)
                .await
                .map_err(Unauthenticated::Dpop)?;
            (token, caller)
        }
    };
    #[cfg(not(feature = "jwt"))]
    let _ = method;
    Ok(Some(match keep_token {
        true => Arc::new(caller.with_token(token)),
        false => caller,
    }))
}

/// Which scheme a refusal is about: its challenge carries the error; the other scheme's (when
/// the server takes both) only where the metadata is and the scopes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum About {
    /// Both: no credentials, a malformed header, missing scopes.
    Any,
    Bearer,
    #[cfg(feature = "jwt")]
    Dpop,
}

/// `resp` with the challenges of this resource server (one `WWW-Authenticate` field each, so
/// that a client reading the first finds the Bearer one as before): Bearer (unless DPoP is
/// required), then DPoP (when taken, with a fresh nonce when nonces are on).
fn with_challenges(
    mut resp: Response,
    rs: &ResourceServer,
    challenge: &Challenge<'_>,
    about: About,
) -> Response {
    let metadata_url = rs.metadata_url();
    let bare = Challenge {
        scopes: challenge.scopes,
        ..Challenge::default()
    };
    let pick = |scheme: About| match about == About::Any || about == scheme {
        true => challenge,
        false => &bare,
    };
    if rs.takes_bearer() {
        append_challenge(&mut resp, pick(About::Bearer).header_value(&metadata_url));
    }
    #[cfg(feature = "jwt")]
    if let Some(dpop) = rs.dpop.as_deref() {
        let value = pick(About::Dpop).dpop_value(&metadata_url, &dpop.algs);
        append_challenge(&mut resp, value);
        if let Some(nonce) = dpop.fresh_nonce()
            && let Ok(v) = HeaderValue::from_str(&nonce)
        {
            resp.headers_mut().insert("dpop-nonce", v);
        }
    }
    resp
}

fn append_challenge(resp: &mut Response, value: String) {
    if let Ok(v) = HeaderValue::from_str(&value) {
        resp.headers_mut().append(header::WWW_AUTHENTICATE, v);
    }
}

/// The scopes a challenge names: those the operation needs, else the baseline the metadata
/// publishes.
fn challenge_scopes<'a>(rs: &'a ResourceServer, needed: &'a [String]) -> &'a [String] {
    match needed.is_empty() {
        true => &rs.metadata.scopes_supported,
        false => needed,
    }
}

/// A 401 refusing a token (or its proof) with `error` and `why`, about `scheme`.
fn refused_token(
    rs: &ResourceServer,
    scopes: &[String],
    error: &str,
    why: &str,
    about: About,
) -> Response {
    with_challenges(
        transport_error(StatusCode::UNAUTHORIZED, &format!("Unauthorized: {why}")),
        rs,
        &Challenge {
            error: Some(error),
            description: Some(why),
            scopes,
        },
        about,
    )
}

/// The answer to a request that was not authenticated; `scopes` are those its operation needs.
pub(super) fn unauthenticated(
    rs: &ResourceServer,
    why: Unauthenticated,
    scopes: &[String],
) -> Response {
    let scopes = challenge_scopes(rs, scopes);
    match why {
        Unauthenticated::Missing => with_challenges(
            transport_error(
                StatusCode::UNAUTHORIZED,
                match rs.takes_dpop() {
                    true => {
                        "Unauthorized: send an access token (Authorization: Bearer … or DPoP … with a DPoP proof)"
                    }
                    false => "Unauthorized: send an access token (Authorization: Bearer …)",
                },
            ),
            rs,
            &Challenge {
                scopes,
                ..Challenge::default()
            },
            About::Any,
        ),
        Unauthenticated::Malformed(why) => with_challenges(
            transport_error(StatusCode::BAD_REQUEST, &format!("Bad Request: {why}")),
            rs,
            &Challenge {
                error: Some("invalid_request"),
                description: Some(why),
                scopes,
            },
            About::Any,
        ),
        Unauthenticated::Invalid(why) => {
            refused_token(rs, scopes, "invalid_token", &why, About::Bearer)
        }
        #[cfg(feature = "jwt")]
        Unauthenticated::Dpop(refusal) => refused_token(
            rs,
            scopes,
            refusal.error.code(),
            &refusal.description,
            About::Dpop,
        ),
        #[cfg(feature = "jwt")]
        Unauthenticated::BearerRefused => refused_token(
            rs,
            scopes,
            DpopError::InvalidToken.code(),
            "this server takes DPoP-bound access tokens only: present the token as \
             `Authorization: DPoP` with a DPoP proof",
            About::Dpop,
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
        return with_challenges(
            json_response(StatusCode::UNAUTHORIZED, body),
            rs,
            &challenge,
            About::Any,
        );
    }
    let challenge = Challenge {
        error: Some("insufficient_scope"),
        description: None,
        scopes: &refusal.scopes,
    };
    with_challenges(
        json_response(StatusCode::FORBIDDEN, body),
        rs,
        &challenge,
        About::Any,
    )
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

    /// What `presented` reads: `Ok(Some("bearer token"))`, `Ok(Some("dpop token"))`, `Ok(None)`,
    /// or `Err(())` for a malformed header.
    fn read(values: &[&str], dpop: bool) -> Result<Option<String>, ()> {
        match presented(&headers(values), dpop) {
            Ok(None) => Ok(None),
            Ok(Some(Presented::Bearer(t))) => Ok(Some(format!("bearer {t}"))),
            #[cfg(feature = "jwt")]
            Ok(Some(Presented::Dpop(t))) => Ok(Some(format!("dpop {t}"))),
            Err(Unauthenticated::Malformed(_)) => Err(()),
            Err(_) => unreachable!("reading a header only finds it malformed"),
        }
    }

    #[test]
    fn tokens_are_read_strictly() {
        assert_eq!(read(&[], false), Ok(None));
        assert_eq!(read(&["Basic dXNlcjpwdw=="], false), Ok(None));
        assert_eq!(
            read(&["bearer abc.def-_~+/=="], false),
            Ok(Some("bearer abc.def-_~+/==".into()))
        );
        // The DPoP scheme is no credentials unless DPoP is on.
        assert_eq!(read(&["DPoP abc"], false), Ok(None));
        #[cfg(feature = "jwt")]
        assert_eq!(
            read(&["dpop abc.def"], true),
            Ok(Some("dpop abc.def".into()))
        );
        for bad in [
            "Bearer",
            "Bearer ",
            "Bearer a b",
            "Bearer a\"b",
            "Bearer =abc",
            "DPoP a b",
            "DPoP",
        ] {
            assert_eq!(read(&[bad], true), Err(()), "{bad}");
        }
        assert_eq!(read(&["Bearer a", "Bearer b"], false), Err(()));
    }
}
