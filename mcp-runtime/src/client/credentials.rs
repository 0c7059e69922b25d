//! How a remote client authenticates to its server beyond fixed headers: an OAuth client of its
//! own (client credentials), its caller's token exchanged (RFC 8693), or, as an explicit
//! opt-in, its caller's token passed on as it came.

use super::error::ClientError;
use crate::context::Caller;
use crate::net::form_encode as encode;
use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// An OAuth client registered at an authorization server: its token endpoint, its id and secret
/// (sent as `client_secret_basic`), and what to ask for.
///
/// ```
/// use mcp_runtime::client::OAuthClient;
/// let gateway = OAuthClient::new("https://auth.example.com/token", "gateway", "s3cret")
///     .scope("notes:read")
///     .resource("https://notes.example.com/mcp");
/// ```
#[derive(Clone)]
#[must_use]
pub struct OAuthClient {
    pub(crate) token_url: String,
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
    pub(crate) scope: Option<String>,
    pub(crate) resource: Option<String>,
    pub(crate) audience: Option<String>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// The client `client_id` (with `client_secret`) of the token endpoint `token_url` (HTTPS,
    /// or HTTP on a loopback host).
    pub fn new(
        token_url: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> OAuthClient {
        OAuthClient {
            token_url: token_url.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scope: None,
            resource: None,
            audience: None,
        }
    }
    /// The scopes to ask for (space-separated).
    pub fn scope(self, scope: impl Into<String>) -> OAuthClient {
        OAuthClient {
            scope: Some(scope.into()),
            ..self
        }
    }
    /// The server the token is for (RFC 8707 `resource`: the MCP server's URL).
    pub fn resource(self, resource: impl Into<String>) -> OAuthClient {
        OAuthClient {
            resource: Some(resource.into()),
            ..self
        }
    }
    /// The `audience` of a token exchange, for servers that name their tokens' audience so.
    pub fn audience(self, audience: impl Into<String>) -> OAuthClient {
        OAuthClient {
            audience: Some(audience.into()),
            ..self
        }
    }
}

/// How a remote client authenticates to its server ([`Remote::credentials`](super::Remote)).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Credentials {
    /// A token of the client's own (OAuth client credentials, RFC 6749 §4.4), kept until shortly
    /// before it expires and fetched again after a `401`.
    ClientCredentials(OAuthClient),
    /// Each caller's token exchanged for one meant for this server (RFC 8693), kept until it
    /// expires (at most 1,000 at once). A request without a caller's token (the lists, fetched
    /// for every caller) goes with the client's own headers only.
    TokenExchange(OAuthClient),
    /// The caller's own token, sent as it came. An explicit opt-in: the MCP authorization spec
    /// forbids passing a token on to a server it was not issued for, so use it only where the
    /// two servers share one audience. A request without one goes with the client's own
    /// headers only.
    ForwardCallerToken,
}

impl Credentials {
    /// Whether requests need their caller's token.
    pub(crate) fn needs_caller_token(&self) -> bool {
        matches!(
            self,
            Credentials::TokenExchange(_) | Credentials::ForwardCallerToken
        )
    }
}

/// Tokens kept at once by a token exchange.
const MAX_EXCHANGED: usize = 1_000;
/// How long before its expiry a token is no longer sent.
const MARGIN: Duration = Duration::from_secs(30);
/// A token endpoint's answer read at most.
const MAX_TOKEN_BYTES: usize = 64 * 1024;

/// The tokens a link holds for its credentials.
pub(crate) struct Authorizer {
    credentials: Credentials,
    own: Mutex<Option<(String, Instant)>>,
    exchanged: Mutex<HashMap<String, (String, Instant)>>,
}

pub(crate) type TokenPool = hyper_util::client::legacy::Client<
    hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>,
    Full<Bytes>,
>;

impl Authorizer {
    pub(crate) fn new(credentials: Credentials) -> Result<Authorizer, ClientError> {
        if let Credentials::ClientCredentials(c) | Credentials::TokenExchange(c) = &credentials {
            check_url(&c.token_url)?;
        }
        Ok(Authorizer {
            credentials,
            own: Mutex::new(None),
            exchanged: Mutex::new(HashMap::new()),
        })
    }

    pub(crate) fn needs_caller_token(&self) -> bool {
        self.credentials.needs_caller_token()
    }

    /// Forgets the token a request of `caller` was sent with (its server answered `401`): the
    /// client's own, or the one `caller`'s token was exchanged for.
    pub(crate) fn forget(&self, caller: Option<&Caller>) {
        *super::link::lock(&self.own) = None;
        if let Some(token) = caller.and_then(Caller::token) {
            super::link::lock(&self.exchanged).remove(&digest(token));
        }
    }

    /// The `Authorization` value for a request of `caller`; `None` for a caller without a
    /// token when the credentials pass on or exchange callers' tokens (the link's own headers
    /// then go alone: a list fetched for every caller, an anonymous request).
    pub(crate) async fn header(
        &self,
        pool: &TokenPool,
        caller: Option<&Caller>,
    ) -> Result<Option<String>, ClientError> {
        let token = caller.and_then(Caller::token);
        match &self.credentials {
            Credentials::ForwardCallerToken => Ok(token.map(|t| format!("Bearer {t}"))),
            Credentials::ClientCredentials(client) => {
                if let Some((token, until)) = super::link::lock(&self.own).clone()
                    && Instant::now() < until
                {
                    return Ok(Some(format!("Bearer {token}")));
                }
                let form = vec![("grant_type", "client_credentials".to_owned())];
                let (token, until) = request(pool, client, form).await?;
                *super::link::lock(&self.own) = Some((token.clone(), until));
                Ok(Some(format!("Bearer {token}")))
            }
            Credentials::TokenExchange(client) => {
                let Some(subject) = token else {
                    return Ok(None);
                };
                let key = digest(subject);
                if let Some((token, until)) = super::link::lock(&self.exchanged).get(&key).cloned()
                    && Instant::now() < until
                {
                    return Ok(Some(format!("Bearer {token}")));
                }
                let form = vec![
                    (
                        "grant_type",
                        "urn:ietf:params:oauth:grant-type:token-exchange".to_owned(),
                    ),
                    ("subject_token", subject.to_owned()),
                    (
                        "subject_token_type",
                        "urn:ietf:params:oauth:token-type:access_token".to_owned(),
                    ),
                    (
                        "requested_token_type",
                        "urn:ietf:params:oauth:token-type:access_token".to_owned(),
                    ),
                ];
                let (token, until) = request(pool, client, form).await?;
                let mut kept = super::link::lock(&self.exchanged);
                if kept.len() >= MAX_EXCHANGED {
                    let now = Instant::now();
                    kept.retain(|_, (_, until)| now < *until);
                }
                if kept.len() < MAX_EXCHANGED {
                    kept.insert(key, (token.clone(), until));
                }
                Ok(Some(format!("Bearer {token}")))
            }
        }
    }
}

/// A token's cache key: its SHA-256, so no token is kept as a key.
fn digest(token: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(token.as_bytes());
    base64::engine::general_purpose::STANDARD_NO_PAD.encode(hash)
}

fn check_url(url: &str) -> Result<(), ClientError> {
    let uri: http::Uri = url.parse().map_err(|e| {
        ClientError::Unreachable(format!("`{url}` is not a token endpoint URL: {e}"))
    })?;
    let loopback = crate::net::is_loopback_host(uri.host().unwrap_or_default());
    match uri.scheme_str() {
        Some("https") => Ok(()),
        Some("http") if loopback => Ok(()),
        _ => Err(ClientError::Unreachable(format!(
            "the token endpoint `{url}` must be https:// (http:// only on a loopback host)"
        ))),
    }
}

/// One token request: the form (with the client's scope, resource and audience) posted with
/// `client_secret_basic`; the token and until when it may be sent.
async fn request(
    pool: &TokenPool,
    client: &OAuthClient,
    mut form: Vec<(&'static str, String)>,
) -> Result<(String, Instant), ClientError> {
    for (key, value) in [
        ("scope", &client.scope),
        ("resource", &client.resource),
        ("audience", &client.audience),
    ] {
        if let Some(value) = value {
            form.push((key, value.clone()));
        }
    }
    let body: Vec<String> = form
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    let basic = base64::engine::general_purpose::STANDARD.encode(format!(
        "{}:{}",
        encode(&client.client_id),
        encode(&client.client_secret)
    ));
    let request = http::Request::post(client.token_url.as_str())
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(http::header::ACCEPT, "application/json")
        .header(http::header::AUTHORIZATION, format!("Basic {basic}"))
        .body(Full::new(Bytes::from(body.join("&"))))
        .map_err(|e| ClientError::Unreachable(e.to_string()))?;
    let url = &client.token_url;
    let asked = async {
        let response = pool.request(request).await.map_err(|e| {
            ClientError::Unreachable(format!(
                "the token endpoint {url} could not be reached: {e}"
            ))
        })?;
        let status = response.status();
        let bytes = Limited::new(response.into_body(), MAX_TOKEN_BYTES)
            .collect()
            .await
            .map_err(|e| ClientError::Protocol(format!("the token endpoint {url}: {e}")))?
            .to_bytes();
        let answer: Value = crate::json::from_bytes(&bytes).unwrap_or_default();
        if !status.is_success() {
            let error = answer["error"].as_str().unwrap_or("no error code");
            let description = answer["error_description"].as_str().unwrap_or_default();
            return Err(ClientError::Credentials(format!(
                "the token endpoint {url} refused the request (HTTP {status}, {error}{}{description})",
                if description.is_empty() { "" } else { ": " }
            )));
        }
        let token = answer["access_token"].as_str().ok_or_else(|| {
            ClientError::Protocol(format!("the token endpoint {url} answered no access_token"))
        })?;
        let lifetime = Duration::from_secs(answer["expires_in"].as_u64().unwrap_or(300));
        let until = Instant::now() + lifetime.saturating_sub(MARGIN).max(Duration::from_secs(1));
        Ok((token.to_owned(), until))
    };
    tokio::time::timeout(Duration::from_secs(10), asked)
        .await
        .map_err(|_| ClientError::Timeout(url.clone()))?
}

#[cfg(test)]
mod tests {
    use super::{check_url, encode};

    #[test]
    fn forms_and_endpoints() {
        assert_eq!(encode("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
        assert!(check_url("https://auth.example.com/token").is_ok());
        assert!(check_url("http://127.0.0.1:9/token").is_ok());
        assert!(check_url("http://auth.example.com/token").is_err());
    }
}
