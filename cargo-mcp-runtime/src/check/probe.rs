//! Plain HTTP requests to the server, each answer read whole (within 1 MiB, 10 s): what
//! `check` looks at is statuses and headers, which the MCP client does not show.

use bytes::Bytes;
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client as Pool;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::time::Duration;

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

/// The longest answer read, and how long one may take.
const MAX_BYTES: usize = 1 << 20;
const WITHIN: Duration = Duration::from_secs(10);

/// The server's endpoint, and a connection pool to it.
pub(super) struct Probe {
    url: String,
    uri: Uri,
    pool: Pool<Https, Full<Bytes>>,
}

/// One answer, read whole.
pub(super) struct Answer {
    pub(super) status: u16,
    headers: http::HeaderMap,
    body: Bytes,
}

impl Answer {
    pub(super) fn header(&self, name: &str) -> Option<String> {
        let value = self.headers.get(name)?;
        value.to_str().ok().map(str::to_owned)
    }

    /// The body as JSON (an SSE answer: its first event's data).
    pub(super) fn json(&self) -> Option<Value> {
        if let Ok(value) = serde_json::from_slice::<Value>(&self.body) {
            return Some(value);
        }
        let text = std::str::from_utf8(&self.body).ok()?;
        let data: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .collect();
        data.iter().find_map(|d| serde_json::from_str(d).ok())
    }
}

impl Probe {
    pub(super) fn new(url: &str) -> Result<Probe, String> {
        let uri: Uri = url
            .parse()
            .map_err(|e| format!("`{url}` is not a URL: {e}"))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none() {
            return Err(format!("`{url}` is not an http:// or https:// URL"));
        }
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(Duration::from_secs(5)));
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map_err(|e| format!("TLS setup failed: {e}"))?
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let pool = Pool::builder(TokioExecutor::new()).build(connector);
        Ok(Probe {
            url: url.to_owned(),
            uri,
            pool,
        })
    }

    pub(super) fn url(&self) -> &str {
        &self.url
    }

    pub(super) fn https(&self) -> bool {
        self.uri.scheme_str() == Some("https")
    }

    pub(super) fn port(&self) -> u16 {
        self.uri
            .port_u16()
            .unwrap_or(if self.https() { 443 } else { 80 })
    }

    pub(super) fn loopback(&self) -> bool {
        let host = self.uri.host().unwrap_or("").trim_matches(['[', ']']);
        host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// Where a connector looks for OAuth metadata first: the protected resource's (at the
    /// root and with the endpoint's path, RFC 9728) and the authorization server's.
    pub(super) fn metadata_paths(&self) -> Vec<String> {
        let origin = format!(
            "{}://{}",
            self.uri.scheme_str().unwrap_or("http"),
            self.uri.authority().map(|a| a.as_str()).unwrap_or("")
        );
        let path = self.uri.path().trim_end_matches('/');
        let mut out = vec![format!("{origin}/.well-known/oauth-protected-resource")];
        if !path.is_empty() {
            out.push(format!(
                "{origin}/.well-known/oauth-protected-resource{path}"
            ));
        }
        out.push(format!("{origin}/.well-known/oauth-authorization-server"));
        out
    }

    pub(super) async fn post(
        &self,
        message: &Value,
        headers: &[(&str, &str)],
    ) -> Result<Answer, String> {
        let body = Bytes::from(serde_json::to_vec(message).unwrap_or_default());
        let mut all = vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        all.extend_from_slice(headers);
        self.send(Method::POST, &self.url, &all, body).await
    }

    pub(super) async fn get(&self, url: &str, headers: &[(&str, &str)]) -> Result<Answer, String> {
        self.send(Method::GET, url, headers, Bytes::new()).await
    }

    /// Ends a 2025 session it opened.
    pub(super) async fn delete(&self, headers: &[(&str, &str)]) -> Result<Answer, String> {
        self.send(Method::DELETE, &self.url, headers, Bytes::new())
            .await
    }

    pub(super) async fn options(&self, headers: &[(&str, &str)]) -> Result<Answer, String> {
        self.send(Method::OPTIONS, &self.url, headers, Bytes::new())
            .await
    }

    async fn send(
        &self,
        method: Method,
        url: &str,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Result<Answer, String> {
        let mut request = Request::builder().method(method).uri(url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(body)).map_err(|e| e.to_string())?;
        let exchange = async {
            let response = self.pool.request(request).await.map_err(|e| {
                let mut text = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(s) = source {
                    text.push_str(&format!(": {s}"));
                    source = s.source();
                }
                text
            })?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            // An SSE answer may stay open: what came within a moment is enough to read.
            let streams = headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream"));
            let reading = Limited::new(response.into_body(), MAX_BYTES).collect();
            let body = match streams {
                true => match tokio::time::timeout(Duration::from_secs(2), reading).await {
                    Ok(Ok(collected)) => collected.to_bytes(),
                    _ => Bytes::new(),
                },
                false => reading.await.map_err(|e| e.to_string())?.to_bytes(),
            };
            Ok(Answer {
                status,
                headers,
                body,
            })
        };
        tokio::time::timeout(WITHIN, exchange)
            .await
            .map_err(|_| format!("no answer within {WITHIN:?}"))?
    }
}
