//! The signing keys of the authorization server: read from a JWKS document (inline, a file, or
//! an HTTPS URL), kept, and fetched again when a token names a key not seen yet (never more often
//! than a floor allows) or when they are old.

use super::fetch;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// Where the JWKS document comes from.
#[derive(Debug, Clone)]
pub(super) enum Source {
    /// Given once; never fetched again.
    Inline(String),
    /// Read again on every refresh.
    File(PathBuf),
    /// Fetched again on every refresh.
    Url(String),
}

/// One verification key.
pub(super) struct Key {
    pub(super) decoding: DecodingKey,
    /// The only algorithm the key may verify, when the JWK or its curve says so.
    pub(super) alg: Option<Algorithm>,
    pub(super) family: AlgorithmFamily,
}

impl Key {
    /// Whether this key may verify a token signed with `alg`.
    pub(super) fn fits(&self, alg: Algorithm) -> bool {
        alg.family() == self.family && self.alg.is_none_or(|a| a == alg)
    }
}

#[derive(Default)]
struct KeySet {
    by_kid: HashMap<String, Arc<Key>>,
    /// Keys without a `kid`.
    unnamed: Vec<Arc<Key>>,
    loaded: Option<Instant>,
}

/// The keys, and when they were last (tried to be) fetched.
pub(super) struct KeyStore {
    source: Source,
    algorithms: Vec<Algorithm>,
    /// Least time between two fetches.
    floor: Duration,
    /// Keys older than this are fetched again.
    max_age: Duration,
    keys: RwLock<Arc<KeySet>>,
    /// Held while fetching (one fetch at a time); holds when the last fetch was tried.
    fetching: tokio::sync::Mutex<Option<Instant>>,
}

/// What finding a key for a token came to.
pub(super) enum Found {
    Keys(Vec<Arc<Key>>),
    /// The token names a key that does not exist, even after fetching again.
    Unknown,
    /// No keys could be loaded at all.
    Unavailable(String),
}

impl KeyStore {
    pub(super) fn new(
        source: Source,
        algorithms: Vec<Algorithm>,
        floor: Duration,
        max_age: Duration,
    ) -> Self {
        KeyStore {
            source,
            algorithms,
            floor,
            max_age,
            keys: RwLock::new(Arc::default()),
            fetching: tokio::sync::Mutex::new(None),
        }
    }

    fn current(&self) -> Arc<KeySet> {
        self.keys.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Loads the keys now (inline and file sources at build time: a bad document is a startup
    /// error). Returns how many usable keys there are, and whether keys known before are gone.
    pub(super) fn load_now(&self, text: &[u8]) -> Result<(usize, bool), String> {
        let set = parse(text, &self.algorithms)?;
        let count = set.by_kid.len() + set.unnamed.len();
        if count == 0 {
            return Err("the JWKS holds no usable verification key".into());
        }
        let mut slot = self.keys.write().unwrap_or_else(|e| e.into_inner());
        let removed = slot.by_kid.keys().any(|k| !set.by_kid.contains_key(k));
        *slot = Arc::new(set);
        Ok((count, removed))
    }

    /// Reads the source.
    async fn read_source(&self) -> Result<Vec<u8>, String> {
        match &self.source {
            Source::Inline(text) => Ok(text.as_bytes().to_vec()),
            Source::File(path) => std::fs::read(path)
                .map_err(|e| format!("reading the JWKS file {} failed: {e}", path.display())),
            Source::Url(url) => fetch::get(url).await.map(|b| b.to_vec()),
        }
    }

    /// Fetches again unless the last fetch was tried within the floor (or is under way: then
    /// its outcome is waited for). Returns whether keys known before are gone.
    pub(super) async fn refresh(&self, force: bool) -> Result<bool, String> {
        if matches!(self.source, Source::Inline(_)) && self.current().loaded.is_some() {
            return Ok(false);
        }
        let mut last = self.fetching.lock().await;
        if let Some(at) = *last
            && at.elapsed() < self.floor
            && !force
        {
            return Ok(false);
        }
        *last = Some(Instant::now());
        let text = self.read_source().await?;
        let (_, removed) = self.load_now(&text)?;
        Ok(removed)
    }

    /// The keys that may verify a token with this `kid` and `alg`. Returns also whether keys
    /// known before are gone (fetched again meanwhile).
    pub(super) async fn find(&self, kid: Option<&str>, alg: Algorithm) -> (Found, bool) {
        let mut removed = false;
        let set = self.current();
        let stale = set.loaded.is_none_or(|t| t.elapsed() > self.max_age);
        if stale {
            match self.refresh(false).await {
                Ok(r) => removed |= r,
                Err(e) if set.loaded.is_none() && self.current().loaded.is_none() => {
                    return (Found::Unavailable(e), removed);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "refreshing the JWKS failed; keeping the keys known")
                }
            }
        }
        if let Some(keys) = lookup(&self.current(), kid, alg) {
            return (Found::Keys(keys), removed);
        }
        // A key not seen yet: the authorization server may have rotated its keys.
        if kid.is_some() {
            match self.refresh(false).await {
                Ok(r) => removed |= r,
                Err(e) => {
                    tracing::warn!(error = %e, "fetching the JWKS for an unknown key id failed")
                }
            }
            if let Some(keys) = lookup(&self.current(), kid, alg) {
                return (Found::Keys(keys), removed);
            }
        }
        if self.current().loaded.is_none() {
            return (
                Found::Unavailable("the JWKS could not be loaded yet".into()),
                removed,
            );
        }
        (Found::Unknown, removed)
    }
}

impl KeyStore {
    /// After every key for `kid` refused a signature: fetches again unless the last fetch is
    /// within the floor (so a forged token costs at most one fetch per floor), and returns the
    /// keys for `kid` if the fetch brought any. Also whether keys known before are gone.
    pub(super) async fn refetched(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> (Option<Vec<Arc<Key>>>, bool) {
        let before = self.current();
        let removed = match self.refresh(false).await {
            Ok(removed) => removed,
            Err(e) => {
                tracing::warn!(error = %e, "fetching the JWKS after a signature failed did not work");
                return (None, false);
            }
        };
        let after = self.current();
        if Arc::ptr_eq(&before, &after) {
            return (None, removed);
        }
        (lookup(&after, kid, alg), removed)
    }
}

fn lookup(set: &KeySet, kid: Option<&str>, alg: Algorithm) -> Option<Vec<Arc<Key>>> {
    let keys: Vec<Arc<Key>> = match kid {
        Some(kid) => set.by_kid.get(kid).into_iter().cloned().collect(),
        None => set
            .unnamed
            .iter()
            .chain(set.by_kid.values())
            .cloned()
            .collect(),
    };
    let keys: Vec<Arc<Key>> = keys.into_iter().filter(|k| k.fits(alg)).collect();
    (!keys.is_empty()).then_some(keys)
}

/// The usable verification keys of a JWKS document: asymmetric keys (RSA of at least 2048 bits,
/// P-256, P-384, Ed25519) for signing, whose algorithm (when named) is allowed. Symmetric
/// (`oct`) keys are never used: a verifier that holds public keys must not accept HMAC.
fn parse(text: &[u8], algorithms: &[Algorithm]) -> Result<KeySet, String> {
    let doc: Value =
        crate::json::from_bytes(text).map_err(|e| format!("the JWKS is not JSON: {e}"))?;
    let Some(list) = doc.get("keys").and_then(Value::as_array) else {
        return Err("the JWKS has no `keys` array".into());
    };
    let mut set = KeySet {
        loaded: Some(Instant::now()),
        ..KeySet::default()
    };
    for raw in list {
        let Ok(jwk) = serde_json::from_value::<Jwk>(raw.clone()) else {
            tracing::debug!("skipping a JWK this verifier cannot read");
            continue;
        };
        let named = raw.get("alg").and_then(Value::as_str);
        match key_of(&jwk, named, algorithms) {
            Ok(key) => {
                let key = Arc::new(key);
                match jwk.common.key_id {
                    Some(kid) => {
                        set.by_kid.insert(kid, key);
                    }
                    None => set.unnamed.push(key),
                }
            }
            Err(why) => tracing::debug!(kid = ?jwk.common.key_id, why, "skipping a JWK"),
        }
    }
    Ok(set)
}

fn key_of(jwk: &Jwk, named: Option<&str>, algorithms: &[Algorithm]) -> Result<Key, &'static str> {
    if jwk.common.public_key_use == Some(PublicKeyUse::Encryption) {
        return Err("an encryption key");
    }
    let named = match named {
        None => None,
        Some(a) => Some(
            a.parse::<Algorithm>()
                .map_err(|_| "an unsupported algorithm")?,
        ),
    };
    if let Some(a) = named
        && !algorithms.contains(&a)
    {
        return Err("an algorithm not in the allow-list");
    }
    let b64 = |s: &str| {
        base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, s)
            .map_err(|_| "bad base64url")
    };
    let (family, curve_alg) = match &jwk.algorithm {
        AlgorithmParameters::RSA(p) => {
            let n = b64(&p.n)?;
            let bits = n.iter().skip_while(|b| **b == 0).count() * 8;
            if bits < 2048 {
                return Err("an RSA key shorter than 2048 bits");
            }
            (AlgorithmFamily::Rsa, None)
        }
        AlgorithmParameters::EllipticCurve(p) => {
            let (len, alg) = match p.curve {
                EllipticCurve::P256 => (32, Algorithm::ES256),
                EllipticCurve::P384 => (48, Algorithm::ES384),
                _ => return Err("an unsupported curve"),
            };
            if b64(&p.x)?.len() != len || b64(&p.y)?.len() != len {
                return Err("EC coordinates of the wrong size");
            }
            (AlgorithmFamily::Ec, Some(alg))
        }
        AlgorithmParameters::OctetKeyPair(p) => {
            if p.curve != EllipticCurve::Ed25519 || b64(&p.x)?.len() != 32 {
                return Err("an OKP key that is not a 32-byte Ed25519 key");
            }
            (AlgorithmFamily::Ed, Some(Algorithm::EdDSA))
        }
        AlgorithmParameters::OctetKey(_) => return Err("a symmetric key"),
        _ => return Err("an unsupported key type"),
    };
    if named.is_some_and(|a| a.family() != family)
        || (named.is_some() && curve_alg.is_some() && named != curve_alg)
    {
        return Err("an algorithm that does not fit the key");
    }
    let decoding = DecodingKey::from_jwk(jwk).map_err(|_| "an unreadable key")?;
    Ok(Key {
        decoding,
        alg: named.or(curve_alg),
        family,
    })
}
