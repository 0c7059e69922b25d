//! The authorization server's documents over HTTPS (plain HTTP only from a loopback host): the
//! JWKS, its RFC 8414 metadata, and RFC 7662 introspection requests. No redirect is followed.

use crate::net::form_encode;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::sync::OnceLock;
use std::time::Duration;

/// Largest JWKS document read.
const MAX_BYTES: usize = 1024 * 1024;
/// How long one fetch may take.
const TIMEOUT: Duration = Duration::from_secs(10);

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

fn client() -> Result<&'static Client<Https, Full<Bytes>>, String> {
    static CLIENT: OnceLock<Result<Client<Https, Full<Bytes>>, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            let connector = hyper_rustls::HttpsConnectorBuilder::new()
                .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
                .map_err(|e| format!("TLS setup failed: {e}"))?
                .https_or_http()
                .enable_http1()
                .build();
            Ok(Client::builder(TokioExecutor::new()).build(connector))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The body of `GET url`, when it answers 200 within the time and size limits.
pub(in crate::auth) async fn get(url: &str) -> Result<Bytes, String> {
    let uri: http::Uri = url.parse().map_err(|e| format!("bad URL {url}: {e}"))?;
    let request = http::Request::get(uri)
        .header(http::header::ACCEPT, "application/json")
        .body(Full::default())
        .map_err(|e| e.to_string())?;
    let fetch = async {
        let response = client()?
            .request(request)
            .await
            .map_err(|e| format!("fetching {url} failed: {e}"))?;
        if response.status() != http::StatusCode::OK {
            return Err(format!(
                "{url} answered {} (redirects are not followed)",
                response.status()
            ));
        }
        Limited::new(response.into_body(), MAX_BYTES)
            .collect()
            .await
            .map(|b| b.to_bytes())
            .map_err(|e| format!("reading {url} failed: {e}"))
    };
    tokio::time::timeout(TIMEOUT, fetch)
        .await
        .map_err(|_| format!("fetching {url} took longer than {} s", TIMEOUT.as_secs()))?
}

/// What a `POST` of a form answered: its status and body (at most `MAX_BYTES`), within the
/// time limit. `basic`: HTTP Basic credentials (RFC 6749 §2.3.1: each part form-encoded).
pub(in crate::auth) async fn post_form(
    url: &str,
    form: String,
    basic: Option<(&str, &str)>,
) -> Result<(http::StatusCode, Bytes), String> {
    use base64::Engine;
    let uri: http::Uri = url.parse().map_err(|e| format!("bad URL {url}: {e}"))?;
    let mut request = http::Request::post(uri)
        .header(http::header::ACCEPT, "application/json")
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        );
    if let Some((id, secret)) = basic {
        let pair = format!("{}:{}", form_encode(id), form_encode(secret));
        let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
        request = request.header(http::header::AUTHORIZATION, format!("Basic {encoded}"));
    }
    let request = request
        .body(Full::new(Bytes::from(form)))
        .map_err(|e| e.to_string())?;
    let send = async {
        let response = client()?
            .request(request)
            .await
            .map_err(|e| format!("the request to {url} failed: {e}"))?;
        let status = response.status();
        let body = Limited::new(response.into_body(), MAX_BYTES)
            .collect()
            .await
            .map(|b| b.to_bytes())
            .map_err(|e| format!("reading the answer of {url} failed: {e}"))?;
        Ok((status, body))
    };
    tokio::time::timeout(TIMEOUT, send)
        .await
        .map_err(|_| format!("{url} took longer than {} s", TIMEOUT.as_secs()))?
}
