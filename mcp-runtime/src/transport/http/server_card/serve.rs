//! The Server Card's and the AI Catalog's routes. Each document is written once, when the
//! router is made (it is static for the life of the process), with a strong `ETag`: the
//! SHA-256 of its bytes. A `GET` (or `HEAD`) is answered `200` with it, or `304 Not Modified`
//! when `If-None-Match` names its tag (or is `*`); `OPTIONS` is the CORS preflight; anything
//! else `405`. Every answer carries `Cache-Control: public, max-age=3600` (the `200`s and
//! `304`s) and CORS for any origin: the documents are public and read-only, and no request
//! needs a token, whatever the endpoint asks of MCP requests. The `Host` still passes the
//! DNS-rebinding guard, and the endpoint's rate limit (when set) counts each request by its
//! client's address.

use super::card::{CARD_MEDIA_TYPE, CATALOG_MEDIA_TYPE, CATALOG_PATH};
use crate::legacy::LEGACY_VERSIONS;
use crate::transport::http::endpoint::{Endpoint, client_of, warn};
use crate::transport::http::guard;
use crate::transport::http::respond::plain_status;
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use axum::routing::MethodRouter;
use base64::Engine as _;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use sha2::{Digest as _, Sha256};
use std::sync::Arc;

/// How long a client or a cache may keep a document.
const CACHE_CONTROL: &str = "public, max-age=3600";

/// How long a browser may keep a preflight's answer, in seconds.
const PREFLIGHT_MAX_AGE: &str = "600";

/// A document as served: its bytes, their tag, its media type.
struct Published {
    body: Bytes,
    etag: HeaderValue,
    media_type: &'static str,
}

impl Published {
    fn new(document: &serde_json::Value, media_type: &'static str) -> Published {
        let body = Bytes::from(document.to_string());
        let digest = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(&body));
        Published {
            etag: HeaderValue::from_str(&format!("\"{digest}\"")).expect("base64url is a header"),
            body,
            media_type,
        }
    }
}

/// `router` with the card's route and the catalog's, when the options serve a card: the card
/// at `<endpoint>/server-card`, the catalog at `/.well-known/ai-catalog.json` (unless left out,
/// and only for a card with a public URL). A card made from another server's info, or whose
/// path another route takes, is left out with a warning: serving refuses the latter first.
pub(in crate::transport::http) fn mount(
    router: Router<Arc<Endpoint>>,
    endpoint: &Endpoint,
) -> Router<Arc<Endpoint>> {
    let options = &endpoint.options;
    let (Some(card), Some(path)) = (&options.server_card, options.server_card_path()) else {
        return router;
    };
    let config = &endpoint.dispatcher.config;
    if !card.describes(&config.info, config.instructions.as_deref()) {
        warn(&format!(
            "the Server Card `{}` was made from another server's info than the one served (its \
             name, version, title, description, icons, website or instructions differ): it is not \
             served; make it with this server's Server::server_card",
            card.name()
        ));
        return router;
    }
    if let Some(why) = options.server_card_clash() {
        warn(&format!("{why}: the Server Card is not served"));
        return router;
    }
    let document = card.document(&served_versions(endpoint));
    let mut router = router.route(&path, route(Published::new(&document, CARD_MEDIA_TYPE)));
    if options.ai_catalog
        && let Some(catalog) = card.catalog()
    {
        router = router.route(
            CATALOG_PATH,
            route(Published::new(&catalog, CATALOG_MEDIA_TYPE)),
        );
    }
    router
}

/// The protocol versions the endpoint serves: those `server/discover` lists, then the
/// 2025-11-25 family unless the server speaks 2026-07-28 only.
fn served_versions(endpoint: &Endpoint) -> Vec<String> {
    let mut versions = endpoint.dispatcher.config.supported_versions.clone();
    if endpoint.legacy.is_some() {
        for version in LEGACY_VERSIONS {
            if !versions.iter().any(|v| v == version) {
                versions.push(version.to_owned());
            }
        }
    }
    versions
}

/// The route of one document: `GET` and `HEAD`, the preflight, `405` for the rest.
fn route(document: Published) -> MethodRouter<Arc<Endpoint>> {
    let document = Arc::new(document);
    axum::routing::get(
        move |State(endpoint): State<Arc<Endpoint>>, request: Request| {
            let document = document.clone();
            async move { with_cors(get(&endpoint, &document, request)) }
        },
    )
    .options(
        |State(endpoint): State<Arc<Endpoint>>, request: Request| async move {
            with_cors(preflight(&endpoint, &request))
        },
    )
    .fallback(|| async {
        let mut response = plain_status(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed: GET or HEAD",
        );
        response.headers_mut().insert(
            header::ALLOW,
            HeaderValue::from_static("GET, HEAD, OPTIONS"),
        );
        with_cors(response)
    })
}

/// `GET` or `HEAD` (axum answers `HEAD` with the `GET` answer's head).
fn get(endpoint: &Endpoint, document: &Published, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    if let Some(refused) = host_refused(endpoint, &parts) {
        return refused;
    }
    if let Some(limiter) = &endpoint.limiter
        && let Err(wait) = limiter.check(None, client_of(&endpoint.options, &parts))
    {
        let seconds = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
        let mut response = plain_status(
            StatusCode::TOO_MANY_REQUESTS,
            &format!("Too Many Requests: retry in {seconds} s"),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        return response;
    }
    let mut response = match unchanged(&parts.headers, &document.etag) {
        true => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        }
        false => {
            let mut response = Response::new(Body::from(document.body.clone()));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(document.media_type),
            );
            response
        }
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, document.etag.clone());
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    response
}

/// Whether `If-None-Match` names the document's tag, or is `*` (RFC 9110 §13.1.2: the weak
/// comparison, so a `W/` tag of the same value matches too).
fn unchanged(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let etag = etag.as_bytes();
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .flat_map(|value| value.as_bytes().split(|b| *b == b','))
        .map(<[u8]>::trim_ascii)
        .any(|tag| tag == b"*" || tag.strip_prefix(b"W/").unwrap_or(tag) == etag)
}

/// `OPTIONS`: the preflight of a cross-origin `GET`, answered for any origin.
fn preflight(endpoint: &Endpoint, request: &Request) -> Response {
    let (headers, target) = (request.headers(), request.uri());
    if let Some(refused) = host_refused_in(endpoint, headers, target) {
        return refused;
    }
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    response.headers_mut().insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static(PREFLIGHT_MAX_AGE),
    );
    response
}

/// The DNS-rebinding guard's refusal of the request's `Host`, if any (its `Origin` may be any:
/// the documents are public).
fn host_refused(endpoint: &Endpoint, parts: &http::request::Parts) -> Option<Response> {
    host_refused_in(endpoint, &parts.headers, &parts.uri)
}

fn host_refused_in(
    endpoint: &Endpoint,
    headers: &HeaderMap,
    target: &http::Uri,
) -> Option<Response> {
    match guard::judge_host(&endpoint.options, headers, target) {
        Ok(true) => None,
        Err(why) => Some(plain_status(StatusCode::BAD_REQUEST, why)),
        Ok(false) => Some(plain_status(
            StatusCode::FORBIDDEN,
            "Forbidden: this Host is not allowed (DNS rebinding protection)",
        )),
    }
}

/// `response` with the CORS headers of a public, read-only document, whatever its status.
fn with_cors(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (header::ACCESS_CONTROL_ALLOW_METHODS, "GET"),
        (
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            "Content-Type, If-None-Match",
        ),
        (header::ACCESS_CONTROL_EXPOSE_HEADERS, "ETag"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::IF_NONE_MATCH, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn if_none_match_takes_lists_stars_and_weak_tags() {
        let document = Published::new(&serde_json::json!({"a": 1}), CARD_MEDIA_TYPE);
        let tag = document.etag.to_str().unwrap().to_owned();
        assert!(
            tag.starts_with('"') && tag.ends_with('"') && tag.len() == 45,
            "{tag}"
        );
        assert!(unchanged(&asking(&[&tag]), &document.etag));
        assert!(unchanged(&asking(&["*"]), &document.etag));
        assert!(unchanged(
            &asking(&[&format!("\"x\", W/{tag}")]),
            &document.etag
        ));
        assert!(unchanged(&asking(&["\"x\"", &tag]), &document.etag));
        assert!(!unchanged(&asking(&["\"x\""]), &document.etag));
        assert!(!unchanged(&asking(&[]), &document.etag));
        let other = Published::new(&serde_json::json!({"a": 2}), CARD_MEDIA_TYPE);
        assert_ne!(other.etag, document.etag);
    }
}
