//! DPoP (RFC 9449): access tokens bound to a key the client holds (feature `jwt`).
//!
//! With [`ResourceServer::dpop`](super::ResourceServer::dpop), a request may present its token
//! as `Authorization: DPoP <token>` with a `DPoP` header: a proof, signed by the client's key,
//! that it made this very request. A stolen token is then worth nothing without the key. The
//! checks (RFC 9449 §4.3):
//!
//! - exactly one `DPoP` header, at most 8 KiB, holding a JWS whose `typ` is `dpop+jwt` and
//!   whose `alg` is an asymmetric algorithm of the allow-list (never `none`, never HMAC);
//! - its `jwk` a public key (no private member: `d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`)
//!   that fits `alg` and verifies the signature (RSA: 2048 to 4096 bits);
//! - `jti` (1 to 256 bytes), `htm` the request's method, `htu` the endpoint's public URL (the
//!   resource URI unless [`Dpop::public_url`] says otherwise, so a reverse proxy in front
//!   changes nothing; compared normalized, without query and fragment), `iat` within the window
//!   (±5 minutes by default), `ath` the base64url SHA-256 of the token;
//! - the token valid as any token is, and bound to that key: its `cnf.jkt` is the key's RFC
//!   7638 thumbprint ([`jwk_thumbprint`]). A token without `cnf.jkt` is refused as DPoP;
//! - with [`Dpop::nonce`], a `nonce` this server made lately (stateless: sealed with the given
//!   keys); with [`Dpop::replay_cache`], a `jti` not seen before.
//!
//! A token bound to a key (`cnf.jkt`) sent as `Authorization: Bearer` is refused (RFC 9449
//! §7.2), DPoP or not; with [`Dpop::required`] every Bearer token is. Refusals are 401 with a
//! `WWW-Authenticate: DPoP error="invalid_dpop_proof" | "invalid_token" | "use_dpop_nonce",
//! error_description="…", algs="…"` challenge (beside the Bearer one when Bearer tokens are
//! accepted), and a `DPoP-Nonce` header when nonces are on. The protected resource metadata
//! names the algorithms (`dpop_signing_alg_values_supported`) and, when required,
//! `dpop_bound_access_tokens_required: true`.
//!
//! ```
//! use mcp_runtime::auth::{ResourceServer, dpop::Dpop};
//! use mcp_runtime::testing::TestIssuer;
//! let issuer = TestIssuer::new("https://auth.example.com", "https://mcp.example.com/mcp");
//! let rs = ResourceServer::new("https://mcp.example.com/mcp", issuer.issuer(), issuer.verifier())
//!     .unwrap()
//!     .dpop(Dpop::allowed().replay_cache(100_000))
//!     .unwrap();
//! assert_eq!(rs.metadata().dpop_signing_alg_values_supported[0], "ES256");
//! ```

mod htu;
mod key;
mod nonce;
mod proof;
mod replay;
#[cfg(test)]
mod tests;

pub use key::jwk_thumbprint;

use crate::context::Caller;
use crate::error::BuildError;
use crate::registry::BoxFuture;
use crate::seal::KeyRing;
use jsonwebtoken::{Algorithm, AlgorithmFamily};
use nonce::Nonces;
use replay::{ReplayCache, replay_key};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// The algorithms accepted unless told otherwise: every asymmetric one, ES256 first.
const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
];

/// How far a proof's `iat` may be from this server's time, unless told otherwise.
const DEFAULT_IAT_WINDOW: Duration = Duration::from_secs(300);

/// The widest `iat` window allowed.
const MAX_IAT_WINDOW: Duration = Duration::from_secs(600);

/// How long a nonce this server made is accepted, unless told otherwise.
const DEFAULT_NONCE_LIFETIME: Duration = Duration::from_secs(300);

/// How DPoP-bound tokens are taken: whether Bearer tokens still are, the proofs' algorithms,
/// the `iat` window, the server nonce and the replay cache. Give it to
/// [`ResourceServer::dpop`](super::ResourceServer::dpop).
///
/// ```
/// use mcp_runtime::auth::dpop::Dpop;
/// use mcp_runtime::auth::jwt::JwtAlgorithm;
/// use mcp_runtime::KeyRing;
/// use std::time::Duration;
/// let dpop = Dpop::required()
///     .algorithms([JwtAlgorithm::ES256, JwtAlgorithm::EdDSA])
///     .iat_window(Duration::from_secs(120))
///     .nonce(KeyRing::new(&[[7; 32]]).unwrap())
///     .replay_cache(50_000);
/// ```
#[derive(Clone)]
#[must_use]
pub struct Dpop {
    required: bool,
    algorithms: Vec<Algorithm>,
    iat_window: Duration,
    nonce: Option<KeyRing>,
    nonce_lifetime: Duration,
    replay: Option<usize>,
    shared_replay: Option<Arc<dyn SharedReplayCache>>,
    public_url: Option<String>,
}

/// A `jti` replay cache shared by the instances of a server (with the `redis` feature:
/// `redis::Redis::dpop_replay_cache`), asked after this instance's own cache, if any. Proofs
/// are keyed by 128 bits of SHA-256 over the key's thumbprint and the `jti` (no client text is
/// stored), each kept until its `iat` window has passed. A store that cannot answer is passed
/// over (with a warning): the `iat` window, `htm`, `htu` and `ath` still bound what a replayed
/// proof can do, and an outage of the store must not refuse every caller.
///
/// ```
/// use mcp_runtime::auth::dpop::SharedReplayCache;
/// use mcp_runtime::handler::BoxFuture;
/// use std::time::Duration;
///
/// /// A store that has seen nothing, ever.
/// struct Forgetful;
/// impl SharedReplayCache for Forgetful {
///     fn first_use(&self, _key: [u8; 16], _ttl: Duration) -> BoxFuture<'_, Option<bool>> {
///         Box::pin(async { Some(true) })
///     }
/// }
/// ```
pub trait SharedReplayCache: Send + Sync + 'static {
    /// Records the proof `key` for `ttl`: `Some(true)` when it was not recorded before,
    /// `Some(false)` for a replay, `None` when the store cannot tell.
    fn first_use(&self, key: [u8; 16], ttl: Duration) -> BoxFuture<'_, Option<bool>>;
}

impl std::fmt::Debug for Dpop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dpop")
            .field("required", &self.required)
            .field("algorithms", &self.algorithms)
            .field("iat_window", &self.iat_window)
            .field("nonce", &self.nonce.is_some())
            .field("replay_cache", &self.replay)
            .field("shared_replay_cache", &self.shared_replay.is_some())
            .field("public_url", &self.public_url)
            .finish()
    }
}

impl Dpop {
    fn new(required: bool) -> Dpop {
        Dpop {
            required,
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            iat_window: DEFAULT_IAT_WINDOW,
            nonce: None,
            nonce_lifetime: DEFAULT_NONCE_LIFETIME,
            replay: None,
            shared_replay: None,
            public_url: None,
        }
    }

    /// DPoP-bound tokens are taken beside Bearer tokens (a token bound to a key is still
    /// refused as Bearer).
    ///
    /// ```
    /// let dpop = mcp_runtime::auth::dpop::Dpop::allowed();
    /// ```
    pub fn allowed() -> Dpop {
        Dpop::new(false)
    }

    /// Only DPoP-bound tokens are taken: a Bearer token is refused, and the metadata says
    /// `dpop_bound_access_tokens_required: true`.
    ///
    /// ```
    /// let dpop = mcp_runtime::auth::dpop::Dpop::required();
    /// ```
    pub fn required() -> Dpop {
        Dpop::new(true)
    }

    /// The algorithms a proof may be signed with (default ES256, ES384, EdDSA, PS256, PS384,
    /// PS512, RS256, RS384, RS512). An HMAC algorithm, or an empty list, is refused when the
    /// resource server takes this.
    ///
    /// ```
    /// use mcp_runtime::auth::{dpop::Dpop, jwt::JwtAlgorithm};
    /// let dpop = Dpop::allowed().algorithms([JwtAlgorithm::ES256]);
    /// ```
    pub fn algorithms<I: IntoIterator<Item = Algorithm>>(mut self, algorithms: I) -> Self {
        self.algorithms.clear();
        for a in algorithms {
            if !self.algorithms.contains(&a) {
                self.algorithms.push(a);
            }
        }
        self
    }

    /// How far a proof's `iat` may be from this server's time, either way (default 5 minutes;
    /// 1 second to 10 minutes, whole seconds).
    ///
    /// ```
    /// use std::time::Duration;
    /// let dpop = mcp_runtime::auth::dpop::Dpop::allowed().iat_window(Duration::from_secs(60));
    /// ```
    pub fn iat_window(mut self, window: Duration) -> Self {
        self.iat_window = window;
        self
    }

    /// Requires a server nonce in every proof (RFC 9449 §9): a proof without one, or with one
    /// that is not this server's or is too old, is answered 401 `error="use_dpop_nonce"` with
    /// a fresh nonce in the `DPoP-Nonce` header, for the client to retry with. Nonces are kept
    /// nowhere: each is the time it was made, sealed with `keys` (AES-256-GCM-SIV, the ring
    /// that seals `requestState`; instances sharing the ring accept each other's nonces).
    ///
    /// ```
    /// use mcp_runtime::{auth::dpop::Dpop, KeyRing};
    /// let dpop = Dpop::allowed().nonce(KeyRing::random().unwrap());
    /// ```
    pub fn nonce(mut self, keys: KeyRing) -> Self {
        self.nonce = Some(keys);
        self
    }

    /// How long a nonce is accepted after it was made (default 5 minutes, at least 1 second).
    ///
    /// ```
    /// use mcp_runtime::{auth::dpop::Dpop, KeyRing};
    /// use std::time::Duration;
    /// let dpop = Dpop::allowed()
    ///     .nonce(KeyRing::random().unwrap())
    ///     .nonce_lifetime(Duration::from_secs(120));
    /// ```
    pub fn nonce_lifetime(mut self, lifetime: Duration) -> Self {
        self.nonce_lifetime = lifetime;
        self
    }

    /// Refuses a proof whose `jti` was seen already, remembering at most `capacity` proofs in
    /// memory (a 16-byte key and its expiry each: BENCHMARKS.md, "DPoP: what a server keeps"),
    /// each until its `iat` window has passed. When full, the proof nearest the end of its
    /// window is forgotten first. Each instance has its own cache: behind a load balancer,
    /// share one ([`shared_replay_cache`](Self::shared_replay_cache)), or pair it with
    /// [`nonce`](Self::nonce) or sticky sessions.
    ///
    /// ```
    /// let dpop = mcp_runtime::auth::dpop::Dpop::allowed().replay_cache(100_000);
    /// ```
    pub fn replay_cache(mut self, capacity: usize) -> Self {
        self.replay = Some(capacity);
        self
    }

    /// Also records proofs in `cache`, shared by the instances, so that a proof accepted by one
    /// is refused by the others ([`SharedReplayCache`]).
    ///
    /// With the `redis` feature, `redis.dpop_replay_cache()` is one; any store will do:
    ///
    /// ```
    /// use mcp_runtime::auth::dpop::{Dpop, SharedReplayCache};
    /// use mcp_runtime::handler::BoxFuture;
    /// use std::collections::HashSet;
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    ///
    /// /// Every proof ever seen, in this process (a real store forgets after `ttl`).
    /// #[derive(Default)]
    /// struct Seen(Mutex<HashSet<[u8; 16]>>);
    /// impl SharedReplayCache for Seen {
    ///     fn first_use(&self, key: [u8; 16], _ttl: Duration) -> BoxFuture<'_, Option<bool>> {
    ///         let first = self.0.lock().unwrap().insert(key);
    ///         Box::pin(async move { Some(first) })
    ///     }
    /// }
    /// let dpop = Dpop::allowed().shared_replay_cache(Seen::default());
    /// ```
    pub fn shared_replay_cache(mut self, cache: impl SharedReplayCache) -> Self {
        self.shared_replay = Some(Arc::new(cache));
        self
    }

    /// The URL clients reach the endpoint at, which proofs name in `htu` (default: the
    /// resource server's canonical URI). Absolute `https` (or `http` on a loopback host).
    ///
    /// ```
    /// let dpop = mcp_runtime::auth::dpop::Dpop::allowed()
    ///     .public_url("https://mcp.example.com/v2/mcp");
    /// ```
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// The checks of these settings for a resource server at `resource`.
    pub(crate) fn build(self, resource: &str) -> Result<DpopCheck, BuildError> {
        let setting = |name: &str, reason: String| BuildError::setting(name, reason);
        if self.algorithms.is_empty() {
            return Err(setting(
                "dpop algorithms",
                "allow at least one algorithm".into(),
            ));
        }
        if let Some(a) = self
            .algorithms
            .iter()
            .find(|a| a.family() == AlgorithmFamily::Hmac)
        {
            return Err(setting(
                "dpop algorithms",
                format!("{a:?} is an HMAC algorithm: a DPoP proof is signed with a public key"),
            ));
        }
        let window = self.iat_window.as_secs();
        if window == 0 || self.iat_window > MAX_IAT_WINDOW {
            return Err(setting(
                "dpop iat window",
                format!(
                    "{:?} is not between 1 s and {} s",
                    self.iat_window,
                    MAX_IAT_WINDOW.as_secs()
                ),
            ));
        }
        let url = self.public_url.as_deref().unwrap_or(resource);
        super::metadata::ResourceUri::parse(url).map_err(|why| setting("dpop public url", why))?;
        let htu = htu::normalize(url).ok_or_else(|| {
            setting(
                "dpop public url",
                format!("`{url}` is not a URL a proof can name"),
            )
        })?;
        let lifetime = self.nonce_lifetime.as_secs();
        if self.nonce.is_some() && lifetime == 0 {
            return Err(setting(
                "dpop nonce lifetime",
                "a nonce must live at least 1 s".into(),
            ));
        }
        Ok(DpopCheck {
            required: self.required,
            algs: self
                .algorithms
                .iter()
                .map(|a| key::name(*a))
                .collect::<Vec<_>>()
                .join(" "),
            algorithms: self.algorithms,
            window,
            htu,
            nonces: self.nonce.map(|keys| Nonces::new(keys, lifetime)),
            replay: self.replay.map(ReplayCache::new),
            shared_replay: self.shared_replay,
        })
    }
}

/// The error code of a DPoP refusal (RFC 9449 §7.1, §12.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DpopError {
    /// The proof is missing, malformed or does not fit the request or the token.
    InvalidProof,
    /// The proof lacks this server's nonce, or carries a stale one.
    UseNonce,
    /// The token itself is refused.
    InvalidToken,
}

impl DpopError {
    /// The `error` parameter of the challenge.
    pub(crate) fn code(self) -> &'static str {
        match self {
            DpopError::InvalidProof => "invalid_dpop_proof",
            DpopError::UseNonce => "use_dpop_nonce",
            DpopError::InvalidToken => "invalid_token",
        }
    }
}

/// Why a request presenting a DPoP-bound token was refused (never quoting the token or the
/// proof).
#[derive(Debug, Clone)]
pub(crate) struct DpopRefusal {
    pub(crate) error: DpopError,
    pub(crate) description: String,
}

impl DpopRefusal {
    fn new(error: DpopError, description: impl Into<String>) -> DpopRefusal {
        DpopRefusal {
            error,
            description: description.into(),
        }
    }
    /// The token, presented with a proof, was refused by the verifier.
    pub(crate) fn token(description: impl Into<String>) -> DpopRefusal {
        DpopRefusal::new(DpopError::InvalidToken, description)
    }
}

/// A proof that passed every check but those needing the token's claims.
pub(crate) struct Proof(proof::Checked);

/// The DPoP settings of a resource server, checked and ready.
pub(crate) struct DpopCheck {
    /// Bearer tokens are refused.
    pub(crate) required: bool,
    /// The algorithms, as the challenge and the metadata name them (separated by spaces).
    pub(crate) algs: String,
    algorithms: Vec<Algorithm>,
    window: u64,
    /// The normalized public URL.
    htu: String,
    nonces: Option<Nonces>,
    replay: Option<ReplayCache>,
    shared_replay: Option<Arc<dyn SharedReplayCache>>,
}

impl std::fmt::Debug for DpopCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopCheck")
            .field("required", &self.required)
            .field("algs", &self.algs)
            .field("htu", &self.htu)
            .finish_non_exhaustive()
    }
}

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

impl DpopCheck {
    /// The algorithms' names, for the metadata.
    pub(crate) fn algorithm_names(&self) -> Vec<String> {
        self.algorithms.iter().map(|a| key::name(*a)).collect()
    }

    /// A fresh nonce for a `DPoP-Nonce` header, when nonces are on.
    pub(crate) fn fresh_nonce(&self) -> Option<String> {
        self.nonces.as_ref().and_then(|n| n.issue(now()))
    }

    /// Checks the `DPoP` header of a request made with `method` that presents `token` as
    /// DPoP-bound: one proof, valid for this request (and bearing a fresh nonce of this
    /// server's, when nonces are on).
    pub(crate) fn check_proof(
        &self,
        headers: &http::HeaderMap,
        method: &str,
        token: &str,
    ) -> Result<Proof, DpopRefusal> {
        let invalid = |why: String| DpopRefusal::new(DpopError::InvalidProof, why);
        let mut values = headers.get_all("dpop").iter();
        let value = match (values.next(), values.next()) {
            (None, _) => {
                return Err(invalid(
                    "a DPoP-bound token needs a `DPoP` header holding a proof".to_owned(),
                ));
            }
            (Some(_), Some(_)) => {
                return Err(invalid("send exactly one `DPoP` header".to_owned()));
            }
            (Some(value), None) => value,
        };
        let proof = value
            .to_str()
            .map_err(|_| invalid("the DPoP proof is not ASCII text".to_owned()))?;
        let now = now();
        let expected = proof::Expected {
            method,
            htu: &self.htu,
            token,
            now,
            window: self.window,
        };
        let checked = proof::check(proof.trim(), &self.algorithms, &expected).map_err(invalid)?;
        if let Some(nonces) = &self.nonces {
            let why = match checked.nonce.as_deref() {
                None => Some(
                    "this server requires a nonce in DPoP proofs: retry with the one of the \
                     `DPoP-Nonce` header",
                ),
                Some(n) if !nonces.is_valid(n, now) => Some(
                    "the proof's nonce is not one this server made lately: retry with the one \
                     of the `DPoP-Nonce` header",
                ),
                Some(_) => None,
            };
            if let Some(why) = why {
                return Err(DpopRefusal::new(DpopError::UseNonce, why));
            }
        }
        Ok(Proof(checked))
    }

    /// Accepts a checked proof for the caller its token stands for: the token must be bound
    /// to the proof's key (`cnf.jkt`), and the proof not seen before (with the replay cache).
    pub(crate) async fn accept(&self, proof: Proof, caller: &Caller) -> Result<(), DpopRefusal> {
        let proof = proof.0;
        let bound = caller
            .claims
            .get("cnf")
            .and_then(|c| c.get("jkt"))
            .and_then(Value::as_str);
        match bound {
            None => {
                return Err(DpopRefusal::token(
                    "the access token is not bound to a key (it has no `cnf.jkt` claim): it \
                     cannot be used with DPoP",
                ));
            }
            Some(jkt) if jkt != proof.jkt => {
                return Err(DpopRefusal::new(
                    DpopError::InvalidProof,
                    "the proof is signed by another key than the one the access token is \
                     bound to (`cnf.jkt`)",
                ));
            }
            Some(_) => {}
        }
        let replayed = || {
            DpopRefusal::new(
                DpopError::InvalidProof,
                "this proof was used already (its `jti` was seen): make a new proof for every \
                 request",
            )
        };
        let expires = proof.iat.saturating_add(self.window);
        let key = replay_key(&proof.jkt, &proof.jti);
        if let Some(cache) = &self.replay
            && !cache.first_use(key, expires, now())
        {
            return Err(replayed());
        }
        if let Some(shared) = &self.shared_replay {
            let ttl = Duration::from_secs(expires.saturating_sub(now()).max(1));
            match shared.first_use(key, ttl).await {
                Some(true) => {}
                Some(false) => return Err(replayed()),
                None => tracing::warn!(
                    "the shared DPoP replay cache did not answer: the proof was taken unchecked"
                ),
            }
        }
        Ok(())
    }
}
