//! Opaque access tokens, checked by asking the authorization server (RFC 7662 token
//! introspection, feature `jwt`): [`IntrospectionVerifier`], and [`JwtOrOpaque`], which checks
//! a JWT locally and sends what is not one to introspection.
//!
//! What an answer must say for the token to pass: `active: true`; `exp` (when present) in the
//! future and `nbf` (when present) in the past, with the leeway; `aud` naming this server (a
//! string or a list, required, as for a JWT); `iss` one of the trusted issuers when any is set;
//! a `sub` (or, for a client's own token, a `client_id`), and not a refresh token. Scopes come
//! from `scope`, as for a JWT.
//!
//! Each check asks the server (revocation takes effect at once), unless a cache is configured:
//! then an accepted token is kept for at most the cache's lifetime and never past its `exp`; a
//! refusal or an error is never kept. Concurrent checks of one token share one request.

mod discover;
mod either;

use super::jwt::cache::TokenCache;
use super::jwt::{caller_of, check_url, fetch};
use super::verifier::{TokenError, TokenVerifier};
use crate::context::Caller;
use crate::error::BuildError;
use crate::net::form_encode;
use crate::registry::BoxFuture;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use either::JwtOrOpaque;

/// A cache of introspection answers shared by the instances of a server (with the `redis`
/// feature: `redis::Redis::introspection_cache`), asked after this instance's own cache and
/// before the authorization server. Entries are keyed by the SHA-256 of the token (the token
/// itself is never stored), hold the endpoint's answer as it came, and end after `ttl`. Each
/// answer read from it is checked again as a fresh one is (`exp` above all).
///
/// ```
/// use mcp_runtime::auth::introspect::SharedIntrospectionCache;
/// use mcp_runtime::handler::BoxFuture;
/// use serde_json::{Map, Value};
/// use std::time::Duration;
///
/// /// A cache that keeps nothing.
/// struct Nothing;
/// impl SharedIntrospectionCache for Nothing {
///     fn get(&self, _key: [u8; 32]) -> BoxFuture<'_, Option<Map<String, Value>>> {
///         Box::pin(async { None })
///     }
///     fn put(&self, _key: [u8; 32], _answer: Map<String, Value>, _ttl: Duration) -> BoxFuture<'_, ()> {
///         Box::pin(async {})
///     }
/// }
/// ```
pub trait SharedIntrospectionCache: Send + Sync + 'static {
    /// The answer kept for the token whose SHA-256 is `key`, if any.
    fn get(&self, key: [u8; 32]) -> BoxFuture<'_, Option<Map<String, Value>>>;
    /// Keeps `answer` for the token whose SHA-256 is `key`, for `ttl`.
    fn put(&self, key: [u8; 32], answer: Map<String, Value>, ttl: Duration) -> BoxFuture<'_, ()>;
}

/// Longest token sent to the authorization server.
const MAX_TOKEN_BYTES: usize = 16 * 1024;
/// Distinct tokens being checked at once; beyond, a check is refused as unavailable.
const MAX_IN_FLIGHT: usize = 4096;

/// One token's check in flight: whoever comes first asks, the others wait for its answer.
type Flight = Arc<tokio::sync::OnceCell<Result<Arc<Caller>, TokenError>>>;

/// How this server authenticates itself to the introspection endpoint (RFC 7662 §2.1: the
/// endpoint is protected; the client credentials of RFC 6749 §2.3.1).
#[derive(Clone)]
enum ClientAuth {
    /// `Authorization: Basic` with the form-encoded id and secret.
    Basic(String, String),
    /// `client_id` and `client_secret` in the form.
    Post(String, String),
}

/// Where the introspection endpoint is.
#[derive(Clone, Debug)]
enum Endpoint {
    /// Given.
    Url(String),
    /// Read from the issuer's RFC 8414 metadata (`introspection_endpoint`) on first use.
    Discover(String),
}

/// Verifies opaque access tokens by asking the authorization server's RFC 7662 introspection
/// endpoint. Build one with [`IntrospectionVerifier::builder`]; pair it with a
/// [`JwtVerifier`](super::jwt::JwtVerifier) through [`JwtOrOpaque`] when the server issues both.
///
/// ```
/// use mcp_runtime::auth::ResourceServer;
/// use mcp_runtime::auth::introspect::IntrospectionVerifier;
///
/// let verifier = IntrospectionVerifier::builder("https://mcp.example.com/mcp")
///     .discover("https://auth.example.com")
///     .client_secret_basic("mcp-server", "its-secret")
///     .build()
///     .unwrap();
/// let auth = ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", verifier);
/// ```
#[derive(Clone)]
pub struct IntrospectionVerifier {
    inner: Arc<Inner>,
}

struct Inner {
    audiences: Vec<String>,
    issuers: Vec<String>,
    endpoint: discover::Resolved,
    client: ClientAuth,
    leeway: u64,
    /// Accepted tokens and how long one may be kept, when caching is on.
    cache: Option<(TokenCache, u64)>,
    /// The cache shared with the other instances, if any.
    shared: Option<Arc<dyn SharedIntrospectionCache>>,
    /// One check per token at a time: the others wait for its answer.
    /// Keyed by the token's SHA-256 (a token is up to 16 KiB).
    in_flight: Mutex<HashMap<[u8; 32], Flight>>,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("audiences", &self.inner.audiences)
            .field("issuers", &self.inner.issuers)
            .finish_non_exhaustive()
    }
}

/// Configures an [`IntrospectionVerifier`].
#[derive(Clone)]
#[must_use]
pub struct IntrospectionVerifierBuilder {
    audiences: Vec<String>,
    issuers: Vec<String>,
    endpoint: Option<Endpoint>,
    client: Option<ClientAuth>,
    leeway: Duration,
    cache: Option<(usize, Duration)>,
    shared: Option<Arc<dyn SharedIntrospectionCache>>,
}

impl IntrospectionVerifier {
    /// A verifier of tokens whose audience is `audience`: this server's canonical URI.
    pub fn builder(audience: impl Into<String>) -> IntrospectionVerifierBuilder {
        IntrospectionVerifierBuilder {
            audiences: vec![audience.into()],
            issuers: Vec::new(),
            endpoint: None,
            client: None,
            leeway: Duration::from_secs(30),
            cache: None,
            shared: None,
        }
    }

    async fn check(&self, token: &str) -> Result<Arc<Caller>, TokenError> {
        let inner = &*self.inner;
        if token.is_empty() || token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::invalid("the token is empty or too long"));
        }
        let now = jsonwebtoken::get_current_timestamp();
        if let Some((cache, _)) = &inner.cache
            && let Some(caller) = cache.get(token, now)
        {
            return Ok(caller);
        }
        let key: [u8; 32] = {
            use sha2::Digest;
            sha2::Sha256::digest(token.as_bytes()).into()
        };
        let cell = {
            let mut flights = inner.in_flight.lock().unwrap_or_else(|p| p.into_inner());
            if !flights.contains_key(&key) && flights.len() >= MAX_IN_FLIGHT {
                return Err(TokenError::unavailable(
                    "too many tokens are being checked at once: try again",
                ));
            }
            flights.entry(key).or_default().clone()
        };
        let answer = cell.get_or_init(|| self.ask(token, key, now)).await.clone();
        {
            let mut flights = inner.in_flight.lock().unwrap_or_else(|p| p.into_inner());
            if flights.get(&key).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
                flights.remove(&key);
            }
        }
        answer
    }

    /// The caller of `token` (whose SHA-256 is `key`): from the shared cache, else from one
    /// introspection request.
    async fn ask(&self, token: &str, key: [u8; 32], now: u64) -> Result<Arc<Caller>, TokenError> {
        let inner = &*self.inner;
        if let Some(shared) = &inner.shared
            && let Some(answer) = shared.get(key).await
            && let Ok(caller) = self.judge(answer, now)
        {
            let caller = Arc::new(caller);
            self.keep(token, &caller, now);
            return Ok(caller);
        }
        let answer = self.introspect(token).await?;
        let caller = Arc::new(self.judge(answer.clone(), now)?);
        let until = self.keep(token, &caller, now);
        if let (Some(shared), Some(until)) = (&inner.shared, until) {
            let ttl = Duration::from_secs(until.saturating_sub(now).max(1));
            shared.put(key, answer, ttl).await;
        }
        Ok(caller)
    }

    /// Keeps an accepted token in this instance's cache (when on): until when, in Unix seconds.
    fn keep(&self, token: &str, caller: &Arc<Caller>, now: u64) -> Option<u64> {
        let (cache, ttl) = self.inner.cache.as_ref()?;
        let exp = caller.claims.get("exp").and_then(Value::as_u64);
        let until = exp.map_or(now + ttl, |exp| exp.min(now + ttl));
        cache.insert(token, caller.clone(), until, now);
        Some(until)
    }

    /// The endpoint's answer about `token`.
    async fn introspect(&self, token: &str) -> Result<Map<String, Value>, TokenError> {
        let inner = &*self.inner;
        let url = inner.endpoint.url().await?;
        let mut form = format!("token={}&token_type_hint=access_token", form_encode(token));
        let basic = match &inner.client {
            ClientAuth::Basic(id, secret) => Some((id.as_str(), secret.as_str())),
            ClientAuth::Post(id, secret) => {
                form.push_str(&format!(
                    "&client_id={}&client_secret={}",
                    form_encode(id),
                    form_encode(secret)
                ));
                None
            }
        };
        let (status, body) = fetch::post_form(&url, form, basic)
            .await
            .map_err(TokenError::unavailable)?;
        if status != http::StatusCode::OK {
            // The server's own credentials or the endpoint are at fault, not the caller.
            return Err(TokenError::unavailable(format!(
                "the introspection endpoint answered {status}"
            )));
        }
        crate::json::from_bytes(&body).map_err(|_| {
            TokenError::unavailable("the introspection endpoint answered no JSON object")
        })
    }

    /// The caller an introspection answer stands for, or why it is refused.
    fn judge(&self, mut answer: Map<String, Value>, now: u64) -> Result<Caller, TokenError> {
        let inner = &*self.inner;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(TokenError::invalid(
                "the token is not active (revoked, expired or unknown to its issuer)",
            ));
        }
        if answer.get("token_type").and_then(Value::as_str) == Some("refresh_token") {
            return Err(TokenError::invalid("a refresh token is no access token"));
        }
        let time = |key: &str| answer.get(key).and_then(Value::as_u64);
        if time("exp").is_some_and(|exp| exp.saturating_add(inner.leeway) < now) {
            return Err(TokenError::invalid("the token has expired"));
        }
        if time("nbf").is_some_and(|nbf| nbf > now.saturating_add(inner.leeway)) {
            return Err(TokenError::invalid("the token is not valid yet (nbf)"));
        }
        let for_us = match answer.get("aud") {
            Some(Value::String(aud)) => inner.audiences.contains(aud),
            Some(Value::Array(auds)) => auds
                .iter()
                .filter_map(Value::as_str)
                .any(|aud| inner.audiences.iter().any(|a| a == aud)),
            _ => false,
        };
        if !for_us {
            return Err(TokenError::invalid(
                "the token was not issued for this server (aud)",
            ));
        }
        if !answer.contains_key("sub")
            && let Some(client) = answer.get("client_id").cloned()
        {
            // A client's own token (client credentials): the client is the caller.
            answer.insert("sub".into(), client);
        }
        caller_of(answer, &inner.issuers)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Arc<Caller>, TokenError>> {
        Box::pin(self.check(token))
    }
}

impl IntrospectionVerifierBuilder {
    /// The introspection endpoint's URL (`https://`, or `http://` to a loopback host).
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = Some(Endpoint::Url(url.into()));
        self
    }
    /// Finds the endpoint in the issuer's RFC 8414 metadata
    /// (`/.well-known/oauth-authorization-server`, else `/.well-known/openid-configuration`)
    /// on first use, whose `issuer` must be `issuer`; also trusts `issuer`
    /// ([`issuer`](Self::issuer)). A redirect is not followed; the endpoint found must be
    /// `https://` (or on a loopback host when the issuer is).
    pub fn discover(mut self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        self.issuers.push(issuer.clone());
        self.endpoint = Some(Endpoint::Discover(issuer));
        self
    }
    /// This server's client credentials, sent with HTTP Basic (`client_secret_basic`).
    pub fn client_secret_basic(mut self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        self.client = Some(ClientAuth::Basic(id.into(), secret.into()));
        self
    }
    /// This server's client credentials, sent in the form (`client_secret_post`).
    pub fn client_secret_post(mut self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        self.client = Some(ClientAuth::Post(id.into(), secret.into()));
        self
    }
    /// Also accepts tokens for `audience`.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }
    /// Trusts `issuer` (repeatable): an answer's `iss` must then be one of them.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuers.push(issuer.into());
        self
    }
    /// Clock leeway for `exp` and `nbf` (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }
    /// Keeps accepted tokens (at most `entries`, each at most `ttl` and never past its `exp`)
    /// instead of asking for every request: a revoked token then passes until its entry ends.
    /// Off by default, so that a revocation is seen at once.
    pub fn cache(mut self, entries: usize, ttl: Duration) -> Self {
        self.cache = Some((entries, ttl));
        self
    }

    /// Shares accepted tokens with the other instances through `cache` (entries as long as
    /// [`cache`](Self::cache)'s, which it needs).
    pub fn shared_cache(mut self, cache: impl SharedIntrospectionCache) -> Self {
        self.shared = Some(Arc::new(cache));
        self
    }

    /// The verifier, or what is missing.
    pub fn build(self) -> Result<IntrospectionVerifier, BuildError> {
        let setting = |reason: &str| BuildError::setting("IntrospectionVerifier", reason);
        let endpoint = match self.endpoint {
            Some(Endpoint::Url(url)) => {
                check_url(&url).map_err(|e| setting(&e))?;
                discover::Resolved::fixed(url)
            }
            Some(Endpoint::Discover(issuer)) => {
                check_url(&issuer).map_err(|e| setting(&e))?;
                discover::Resolved::discover(issuer)
            }
            None => {
                return Err(setting(
                    "no introspection endpoint: name it (`endpoint`) or the issuer whose metadata \
                     gives it (`discover`)",
                ));
            }
        };
        let client = self.client.ok_or_else(|| {
            setting(
                "no client credentials: the introspection endpoint is protected \
                 (`client_secret_basic` or `client_secret_post`)",
            )
        })?;
        if self.audiences.iter().any(String::is_empty) {
            return Err(setting("an audience is empty"));
        }
        let cache = match self.cache {
            Some((0, _)) | Some((_, Duration::ZERO)) => None,
            Some((entries, ttl)) => Some((TokenCache::new(entries), ttl.as_secs().max(1))),
            None => None,
        };
        if self.shared.is_some() && cache.is_none() {
            return Err(setting(
                "a shared cache keeps entries as long as this instance's: set `cache(entries, ttl)` too",
            ));
        }
        Ok(IntrospectionVerifier {
            inner: Arc::new(Inner {
                audiences: self.audiences,
                issuers: self.issuers,
                endpoint,
                client,
                leeway: self.leeway.as_secs(),
                cache,
                shared: self.shared,
                in_flight: Mutex::new(HashMap::new()),
            }),
        })
    }
}
