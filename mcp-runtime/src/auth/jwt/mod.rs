//! The built-in token verifier (feature `jwt`): signed JWT access tokens checked against the
//! authorization server's JWKS.
//!
//! What a token must be to pass:
//!
//! - three base64url parts, at most 16 KiB;
//! - signed with an algorithm of the allow-list (default RS256, RS384, RS512, PS256, PS384,
//!   PS512, ES256, ES384, EdDSA: never `none`, never HMAC, since the keys are public), by a key
//!   of the JWKS that fits the algorithm (its `kid`, its curve, its own `alg`);
//! - `exp` in the future and `nbf` (when present) in the past, both with a small leeway
//!   (default 30 s);
//! - `aud` naming this server's canonical URI (RFC 8707), `iss` one of the trusted issuers (when
//!   set), and a `sub`.
//!
//! The caller's scopes come from `scope` (space-separated) or `scp` (a list), every claim is
//! kept in [`Caller::claims`](crate::Caller::claims). A token that names an unknown `kid` makes
//! the verifier fetch the JWKS again (at most once per floor, default 30 s), so a key rotation
//! is picked up at once. Verified tokens are cached until they expire.

mod cache;
mod fetch;
mod keys;

use super::verifier::{TokenError, TokenVerifier};
use crate::context::Caller;
use crate::error::BuildError;
use crate::registry::BoxFuture;
use cache::TokenCache;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use keys::{Found, KeyStore, Source};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

pub use jsonwebtoken::Algorithm as JwtAlgorithm;

/// Longest token read.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// The algorithms accepted unless told otherwise.
const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Verifies JWT access tokens against a JWKS. Build one with [`JwtVerifier::builder`].
///
/// ```
/// use mcp_runtime::auth::jwt::JwtVerifier;
/// let jwks = r#"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1",
///     "x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#;
/// let verifier = JwtVerifier::builder("https://mcp.example.com/mcp")
///     .issuer("https://auth.example.com")
///     .jwks_json(jwks)
///     .build()
///     .unwrap();
/// ```
#[derive(Clone)]
pub struct JwtVerifier {
    inner: Arc<Inner>,
}

struct Inner {
    validation: Validation,
    algorithms: Vec<Algorithm>,
    leeway: u64,
    keys: KeyStore,
    cache: TokenCache,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("audience", &self.inner.validation.aud)
            .field("issuers", &self.inner.validation.iss)
            .field("algorithms", &self.inner.algorithms)
            .finish_non_exhaustive()
    }
}

/// Configures a [`JwtVerifier`].
#[derive(Debug, Clone)]
#[must_use]
pub struct JwtVerifierBuilder {
    audiences: Vec<String>,
    issuers: Vec<String>,
    source: Option<Source>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    floor: Duration,
    max_age: Duration,
    cache: usize,
}

impl JwtVerifier {
    /// A verifier of tokens whose audience is `audience`: this server's canonical URI.
    pub fn builder(audience: impl Into<String>) -> JwtVerifierBuilder {
        JwtVerifierBuilder {
            audiences: vec![audience.into()],
            issuers: Vec::new(),
            source: None,
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: Duration::from_secs(30),
            floor: Duration::from_secs(30),
            max_age: Duration::from_secs(3600),
            cache: 10_000,
        }
    }

    /// Fetches (or reads) the JWKS now: a URL source is otherwise fetched on the first token.
    pub async fn refresh(&self) -> Result<(), String> {
        if self.inner.keys.refresh(true).await? {
            self.inner.cache.clear();
        }
        Ok(())
    }

    async fn verify_token(&self, token: &str) -> Result<Arc<Caller>, TokenError> {
        let inner = &*self.inner;
        let now = jsonwebtoken::get_current_timestamp();
        if let Some(caller) = inner.cache.get(token, now) {
            return Ok(caller);
        }
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::invalid("the token is too long"));
        }
        if token.split('.').count() != 3 {
            return Err(TokenError::invalid(
                "the token is not a JWS compact serialization",
            ));
        }
        let header = jsonwebtoken::decode_header(token).map_err(|e| match e.kind() {
            ErrorKind::Json(_) | ErrorKind::Utf8(_) | ErrorKind::Base64(_) => {
                TokenError::invalid("the token's header is malformed or names an unknown algorithm")
            }
            _ => TokenError::invalid("the token's header is malformed"),
        })?;
        if !inner.algorithms.contains(&header.alg) {
            return Err(TokenError::invalid(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        let (found, removed) = inner.keys.find(header.kid.as_deref(), header.alg).await;
        if removed {
            inner.cache.clear();
        }
        let keys = match found {
            Found::Keys(keys) => keys,
            Found::Unknown => {
                return Err(TokenError::invalid(
                    "the token was signed by a key this server does not know",
                ));
            }
            Found::Unavailable(e) => return Err(TokenError::unavailable(e)),
        };
        let mut validation = inner.validation.clone();
        validation.algorithms = vec![header.alg];
        let mut last = TokenError::invalid("the token's signature does not verify");
        for key in keys {
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation) {
                Ok(data) => {
                    let claims = data.claims;
                    let exp = claims.get("exp").and_then(Value::as_u64).unwrap_or(now);
                    let caller = Arc::new(caller_of(claims)?);
                    inner.cache.insert(
                        token,
                        caller.clone(),
                        exp.saturating_add(inner.leeway),
                        now,
                    );
                    return Ok(caller);
                }
                Err(e) => {
                    last = describe(e.kind());
                    if !matches!(e.kind(), ErrorKind::InvalidSignature) {
                        break;
                    }
                }
            }
        }
        Err(last)
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Arc<Caller>, TokenError>> {
        Box::pin(self.verify_token(token))
    }
}

/// What the client is told of a token that failed (never the token).
fn describe(kind: &ErrorKind) -> TokenError {
    TokenError::invalid(match kind {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
        ErrorKind::InvalidAudience => "the token was not issued for this server (aud)".to_owned(),
        ErrorKind::InvalidIssuer => "the token's issuer is not trusted (iss)".to_owned(),
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::MissingRequiredClaim(c) => format!("the token has no `{c}` claim"),
        ErrorKind::InvalidClaimFormat(c) => format!("the token's `{c}` claim is malformed"),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit its key".to_owned(),
        _ => "the token is malformed".to_owned(),
    })
}

/// The caller a verified token stands for.
fn caller_of(claims: Map<String, Value>) -> Result<Caller, TokenError> {
    let Some(subject) = claims.get("sub").and_then(Value::as_str) else {
        return Err(TokenError::invalid(
            "the token's `sub` claim is not a string",
        ));
    };
    let mut caller = Caller::new(subject);
    if let Some(iss) = claims.get("iss").and_then(Value::as_str) {
        caller.issuer = Some(iss.to_owned());
    }
    let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) | (None, Some(Value::String(s))) => {
            s.split_ascii_whitespace().map(str::to_owned).collect()
        }
        (None, Some(Value::Array(list))) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    caller.scopes = scopes;
    caller.claims = claims;
    Ok(caller)
}

impl JwtVerifierBuilder {
    /// Trusts tokens from this issuer (`iss`); once any is set, `iss` is required and must be
    /// one of them.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuers.push(issuer.into());
        self
    }
    /// Accepts one more audience (another canonical URI of this server).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }
    /// The keys, as a JWKS document (never fetched again).
    pub fn jwks_json(mut self, json: impl Into<String>) -> Self {
        self.source = Some(Source::Inline(json.into()));
        self
    }
    /// The keys, from a JWKS file (read at build, and again on refresh).
    pub fn jwks_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.source = Some(Source::File(path.into()));
        self
    }
    /// The keys, from a JWKS URL (`https`, or `http` on a loopback host), fetched on the first
    /// token and again when they are old or a token names an unknown key.
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.source = Some(Source::Url(url.into()));
        self
    }
    /// The accepted signature algorithms (HMAC is refused at build: the keys are public).
    pub fn algorithms<I: IntoIterator<Item = Algorithm>>(mut self, algorithms: I) -> Self {
        self.algorithms = algorithms.into_iter().collect();
        self
    }
    /// Clock skew tolerated on `exp` and `nbf` (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }
    /// Least time between two fetches of the JWKS (default 30 s).
    pub fn refetch_floor(mut self, floor: Duration) -> Self {
        self.floor = floor;
        self
    }
    /// Keys older than this are fetched again (default 1 h).
    pub fn max_key_age(mut self, age: Duration) -> Self {
        self.max_age = age;
        self
    }
    /// Most verified tokens kept (default 10 000, about 2 KB each with their claims; 0 turns
    /// the cache off). When full, expired tokens are dropped, then all.
    pub fn cache_capacity(mut self, entries: usize) -> Self {
        self.cache = entries;
        self
    }

    /// Checks the settings (and loads inline and file keys).
    pub fn build(self) -> Result<JwtVerifier, BuildError> {
        fn setting(name: &str, reason: impl Into<String>) -> BuildError {
            BuildError::setting(name, reason)
        }
        if self.audiences.iter().any(|a| a.trim().is_empty()) {
            return Err(setting(
                "audience",
                "the audience must be this server's canonical URI",
            ));
        }
        if self.algorithms.is_empty() {
            return Err(setting("algorithms", "allow at least one algorithm"));
        }
        if let Some(a) = self
            .algorithms
            .iter()
            .find(|a| a.family() == jsonwebtoken::AlgorithmFamily::Hmac)
        {
            return Err(setting(
                "algorithms",
                format!("{a:?} is an HMAC algorithm: a verifier of public keys never accepts one"),
            ));
        }
        let Some(source) = self.source else {
            return Err(setting(
                "jwks",
                "say where the keys are: jwks_url, jwks_file or jwks_json",
            ));
        };
        if let Source::Url(url) = &source {
            check_url(url).map_err(|r| setting("jwks_url", r))?;
        }
        let mut validation = Validation::new(self.algorithms[0]);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.validate_aud = true;
        validation.set_audience(&self.audiences);
        let mut required = vec!["exp", "aud", "sub"];
        if !self.issuers.is_empty() {
            validation.set_issuer(&self.issuers);
            required.push("iss");
        }
        validation.set_required_spec_claims(&required);
        let keys = KeyStore::new(
            source.clone(),
            self.algorithms.clone(),
            self.floor,
            self.max_age,
        );
        match &source {
            Source::Inline(text) => {
                keys.load_now(text.as_bytes())
                    .map_err(|r| setting("jwks", r))?;
            }
            Source::File(path) => {
                let text = std::fs::read(path).map_err(|e| {
                    setting("jwks_file", format!("cannot read {}: {e}", path.display()))
                })?;
                keys.load_now(&text).map_err(|r| setting("jwks_file", r))?;
            }
            Source::Url(_) => {}
        }
        Ok(JwtVerifier {
            inner: Arc::new(Inner {
                validation,
                algorithms: self.algorithms,
                leeway: self.leeway.as_secs(),
                keys,
                cache: TokenCache::new(self.cache),
            }),
        })
    }
}

/// A JWKS URL must be `https`, or `http` on a loopback host.
fn check_url(url: &str) -> Result<(), String> {
    let parsed: http::Uri = url
        .parse()
        .map_err(|e| format!("`{url}` is not a URL: {e}"))?;
    let host = parsed.host().unwrap_or_default();
    match parsed.scheme_str() {
        Some("https") if !host.is_empty() => Ok(()),
        Some("http")
            if crate::net::is_loopback(host)
                || host
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback()) =>
        {
            Ok(())
        }
        _ => Err(format!(
            "`{url}` must be an https URL (plain http only on a loopback host)"
        )),
    }
}
