//! Fetching a JWKS document over HTTPS (plain HTTP only from a loopback host).

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
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

fn client() -> Result<&'static Client<Https, Empty<Bytes>>, String> {
    static CLIENT: OnceLock<Result<Client<Https, Empty<Bytes>>, String>> = OnceLock::new();
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
pub(super) async fn get(url: &str) -> Result<Bytes, String> {
    let uri: http::Uri = url.parse().map_err(|e| format!("bad JWKS URL: {e}"))?;
    let request = http::Request::get(uri)
        .header(http::header::ACCEPT, "application/json")
        .body(Empty::new())
        .map_err(|e| e.to_string())?;
    let fetch = async {
        let response = client()?
            .request(request)
            .await
            .map_err(|e| format!("fetching the JWKS failed: {e}"))?;
        if response.status() != http::StatusCode::OK {
            return Err(format!("the JWKS URL answered {}", response.status()));
        }
        Limited::new(response.into_body(), MAX_BYTES)
            .collect()
            .await
            .map(|b| b.to_bytes())
            .map_err(|e| format!("reading the JWKS failed: {e}"))
    };
    tokio::time::timeout(TIMEOUT, fetch)
        .await
        .map_err(|_| format!("fetching the JWKS took longer than {} s", TIMEOUT.as_secs()))?
}
