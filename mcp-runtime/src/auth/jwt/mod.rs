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
//!   set), and a `sub`;
//! - `iss`, when present, a single string (RFC 7519 §4.1.1: a StringOrURI): a list is refused,
//!   even one naming a trusted issuer, since the caller's identity is qualified by exactly one.
//!
//! The caller's scopes come from `scope` (separated by spaces, %x20 only) or `scp` (a list, or
//! one such string); a token that is no RFC 6749 §3.3 scope-token (empty, or holding a tab, a
//! newline, a `"`, a `\` or anything outside %x21-7E) is dropped, so `"docs:read\tadmin"`
//! grants neither. Every claim is kept in [`Caller::claims`](crate::Caller::claims). A token
//! that names an unknown `kid` makes the verifier fetch the JWKS again (at most once per
//! floor, default 30 s), so a key rotation is picked up at once. Verified tokens are cached
//! until they expire.

pub(in crate::auth) mod cache;
pub(in crate::auth) mod fetch;
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
    /// The trusted issuers (none: any), checked here rather than by `jsonwebtoken`, which
    /// accepts an `iss` list with one trusted member (see [`issuer_of`]).
    issuers: Vec<String>,
    algorithms: Vec<Algorithm>,
    leeway: u64,
    keys: KeyStore,
    cache: TokenCache,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("audience", &self.inner.validation.aud)
            .field("issuers", &self.inner.issuers)
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
        match self.with_keys(token, &keys, &validation, now) {
            Err(Signature) => {}
            done => return done.map_err(Refusal::into_error),
        }
        // Every key of that id refused the signature: the server may have put a new key under
        // the same id. Fetched again (within the floor, shared by every request), and tried
        // once more with what came.
        let (again, removed) = inner
            .keys
            .refetched(header.kid.as_deref(), header.alg)
            .await;
        if removed {
            inner.cache.clear();
        }
        match again {
            Some(keys) => self
                .with_keys(token, &keys, &validation, now)
                .map_err(Refusal::into_error),
            None => Err(Signature.into_error()),
        }
    }

    /// The caller of `token`, verified with one of `keys`.
    fn with_keys(
        &self,
        token: &str,
        keys: &[Arc<keys::Key>],
        validation: &Validation,
        now: u64,
    ) -> Result<Arc<Caller>, Refusal> {
        let inner = &*self.inner;
        for key in keys {
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, validation) {
                Ok(data) => {
                    let claims = data.claims;
                    let exp = claims.get("exp").and_then(Value::as_u64).unwrap_or(now);
                    let caller = Arc::new(caller_of(claims, &inner.issuers).map_err(Other)?);
                    inner.cache.insert(
                        token,
                        caller.clone(),
                        exp.saturating_add(inner.leeway),
                        now,
                    );
                    return Ok(caller);
                }
                Err(e) if matches!(e.kind(), ErrorKind::InvalidSignature) => {}
                Err(e) => return Err(Other(describe(e.kind()))),
            }
        }
        Err(Signature)
    }
}

/// Why the keys tried refused a token.
enum Refusal {
    /// Every key refused its signature.
    Signature,
    /// Something else (a claim, the algorithm): no other key would do.
    Other(TokenError),
}
use Refusal::{Other, Signature};

impl Refusal {
    fn into_error(self) -> TokenError {
        match self {
            Signature => describe(&ErrorKind::InvalidSignature),
            Other(e) => e,
        }
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

/// The caller a verified token stands for; `issuers`: the trusted ones (none: any).
pub(in crate::auth) fn caller_of(
    claims: Map<String, Value>,
    issuers: &[String],
) -> Result<Caller, TokenError> {
    let Some(subject) = claims.get("sub").and_then(Value::as_str) else {
        return Err(TokenError::invalid(
            "the token's `sub` claim is not a string",
        ));
    };
    let mut caller = Caller::new(subject);
    caller.issuer = issuer_of(&claims, issuers)?.map(str::to_owned);
    caller.scopes = scopes_of(&claims);
    caller.claims = claims;
    Ok(caller)
}

/// The token's issuer: `iss` is one string (RFC 7519 §4.1.1, a StringOrURI), one of `issuers`
/// when any is set (then it is required). `jsonwebtoken` is not asked: its validation takes an
/// `iss` list when any member is trusted (and then the caller's issuer, which qualifies its
/// identity for tasks and `requestState`, would be lost or ambiguous), and reports an `iss`
/// of another type as missing.
fn issuer_of<'a>(
    claims: &'a Map<String, Value>,
    issuers: &[String],
) -> Result<Option<&'a str>, TokenError> {
    match claims.get("iss") {
        None if issuers.is_empty() => Ok(None),
        None => Err(TokenError::invalid("the token has no `iss` claim")),
        Some(Value::String(iss)) if issuers.is_empty() || issuers.iter().any(|t| t == iss) => {
            Ok(Some(iss))
        }
        Some(Value::String(_)) => Err(TokenError::invalid(
            "the token's issuer is not trusted (iss)",
        )),
        Some(_) => Err(TokenError::invalid(
            "the token's `iss` claim is not a string (RFC 7519: one StringOrURI, not a list)",
        )),
    }
}

/// The scopes a token grants: `scope` (a string), else `scp` (a list of strings, or a string).
/// A string is split at spaces (%x20) only, RFC 6749 §3.3; whatever is not a valid scope-token
/// is dropped (see [`is_scope_token`]), the valid ones are kept.
fn scopes_of(claims: &Map<String, Value>) -> Vec<String> {
    let split = |s: &str| -> Vec<String> {
        s.split(' ')
            .filter(|t| is_scope_token(t))
            .map(str::to_owned)
            .collect()
    };
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) | (None, Some(Value::String(s))) => split(s),
        (None, Some(Value::Array(list))) => list
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| is_scope_token(t))
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`: printable ASCII but the
/// space, `"` and `\`. A tab or a newline inside one is no separator, and makes it no scope.
fn is_scope_token(token: &str) -> bool {
    !token.is_empty()
        && token
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5b | 0x5d..=0x7e))
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
        // `iss` is checked by `issuer_of`, not here: `jsonwebtoken` would take a list.
        validation.iss = None;
        validation.set_required_spec_claims(&["exp", "aud", "sub"]);
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
                issuers: self.issuers,
                algorithms: self.algorithms,
                leeway: self.leeway.as_secs(),
                keys,
                cache: TokenCache::new(self.cache),
            }),
        })
    }
}

/// A URL of the authorization server's (its JWKS, metadata or introspection endpoint) must be
/// `https`, or `http` on a loopback host.
pub(in crate::auth) fn check_url(url: &str) -> Result<(), String> {
    let parsed: http::Uri = url
        .parse()
        .map_err(|e| format!("`{url}` is not a URL: {e}"))?;
    let host = parsed.host().unwrap_or_default();
    match parsed.scheme_str() {
        Some("https") if !host.is_empty() => Ok(()),
        Some("http") if crate::net::is_loopback_host(host) => Ok(()),
        _ => Err(format!(
            "`{url}` must be an https URL (plain http only on a loopback host)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn scopes(v: Value) -> Vec<String> {
        scopes_of(&claims(v))
    }

    #[test]
    fn scopes_are_separated_by_spaces_only_and_invalid_tokens_are_dropped() {
        assert_eq!(
            scopes(json!({"scope": "docs:read admin"})),
            ["docs:read", "admin"]
        );
        // A tab, a newline, a CR, a form feed or a vertical tab separates nothing: the token
        // that holds one is no scope-token, and neither half is granted.
        for sep in ["\t", "\n", "\r", "\r\n", "\u{c}", "\u{b}"] {
            let s = format!("docs:read{sep}admin");
            assert!(scopes(json!({ "scope": s })).is_empty(), "{s:?}");
            let s = format!("tools docs:read{sep}admin files");
            assert_eq!(scopes(json!({ "scope": s })), ["tools", "files"], "{s:?}");
        }
        // Repeated or edge spaces make no empty scope; `"`, `\`, DEL and non-ASCII are no
        // scope-token characters.
        assert_eq!(scopes(json!({"scope": "  a   b "})), ["a", "b"]);
        assert_eq!(
            scopes(json!({"scope": "a\"b c\\d e\u{7f} ädmin ok"})),
            ["ok"]
        );
        assert!(scopes(json!({"scope": ""})).is_empty());
    }

    #[test]
    fn scp_follows_the_same_rule() {
        assert_eq!(
            scopes(json!({"scp": ["docs:read", "docs:read\tadmin", "", "a b", 7, "admin"]})),
            ["docs:read", "admin"]
        );
        assert_eq!(scopes(json!({"scp": "x\ny z"})), ["z"]);
        // `scope` wins over `scp`.
        assert_eq!(scopes(json!({"scope": "a", "scp": ["b"]})), ["a"]);
    }

    #[test]
    fn iss_must_be_one_string() {
        let trusted = ["https://auth.example.com".to_owned()];
        let ok = claims(json!({"iss": "https://auth.example.com"}));
        assert_eq!(
            issuer_of(&ok, &trusted).unwrap(),
            Some("https://auth.example.com")
        );
        for bad in [
            json!({"iss": ["https://auth.example.com"]}),
            json!({"iss": ["https://auth.example.com", "https://evil.example.com"]}),
            json!({"iss": 7}),
            json!({"iss": null}),
            json!({"iss": {"https://auth.example.com": true}}),
        ] {
            let Err(TokenError::Invalid(why)) = issuer_of(&claims(bad.clone()), &trusted) else {
                panic!("{bad} accepted");
            };
            assert!(why.contains("not a string"), "{bad}: {why}");
            // Without trusted issuers too: the caller's issuer is never dropped.
            assert!(issuer_of(&claims(bad.clone()), &[]).is_err(), "{bad}");
        }
        let other = claims(json!({"iss": "https://evil.example.com"}));
        assert!(issuer_of(&other, &trusted).is_err());
        assert_eq!(
            issuer_of(&other, &[]).unwrap(),
            Some("https://evil.example.com")
        );
        assert!(issuer_of(&Map::new(), &trusted).is_err(), "required");
        assert_eq!(issuer_of(&Map::new(), &[]).unwrap(), None);
    }
}
