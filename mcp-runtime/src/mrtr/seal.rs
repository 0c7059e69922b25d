//! Sealing of `requestState`: XChaCha20-Poly1305 with a key ring, a version prefix, an expiry,
//! and a binding to the request it belongs to.
//!
//! Wire form: `v1.` + base64url(key id (4 bytes) ‖ nonce (24 bytes) ‖ ciphertext+tag). The
//! plaintext is JSON: the binding (method, name, arguments digest, caller digest), the expiry,
//! the round number, the answers collected so far and the handler's own data. Nothing in it is
//! readable or changeable by the client.

use crate::McpError;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const PREFIX: &str = "v1.";
const AAD: &[u8] = b"mcp-runtime requestState v1";

/// Default lifetime of a `requestState`.
pub const DEFAULT_STATE_TTL: Duration = Duration::from_secs(5 * 60);
/// Largest accepted `requestState`, in bytes of its wire form.
pub const MAX_STATE_BYTES: usize = 64 * 1024;
/// Most rounds one request may take before the server refuses to ask again.
pub const MAX_ROUNDS: u32 = 16;

/// Keys that seal and open `requestState`. The first key seals; every key opens, so a key can
/// be rotated in without breaking exchanges already in flight.
///
/// ```
/// use mcp_runtime::mrtr::KeyRing;
/// let ring = KeyRing::from_env_value("MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE").unwrap();
/// assert_eq!(ring.len(), 1);
/// assert!(KeyRing::from_env_value("short").is_err());
/// ```
#[derive(Clone)]
pub struct KeyRing {
    keys: Vec<([u8; 4], XChaCha20Poly1305)>,
}

impl std::fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyRing")
            .field("keys", &self.keys.len())
            .finish()
    }
}

fn key_id(key: &[u8; 32]) -> [u8; 4] {
    let digest = Sha256::digest(key);
    [digest[0], digest[1], digest[2], digest[3]]
}

impl KeyRing {
    /// A ring from raw 32-byte keys, the sealing key first.
    pub fn new(keys: &[[u8; 32]]) -> Result<Self, String> {
        if keys.is_empty() {
            return Err("a key ring needs at least one key".into());
        }
        Ok(KeyRing {
            keys: keys
                .iter()
                .map(|k| (key_id(k), XChaCha20Poly1305::new(k.into())))
                .collect(),
        })
    }

    /// A ring with one fresh random key.
    pub fn random() -> Self {
        let mut key = [0u8; 32];
        if getrandom::getrandom(&mut key).is_err() {
            // No OS randomness: derive from the clock and address space (never reached on
            // supported platforms); the key still differs per process.
            let seed = format!("{:?}{:p}", SystemTime::now(), &key);
            key.copy_from_slice(&Sha256::digest(seed.as_bytes()));
        }
        KeyRing {
            keys: vec![(key_id(&key), XChaCha20Poly1305::new((&key).into()))],
        }
    }

    /// Parses `MCP_STATE_KEY`: comma-separated keys, each 32 bytes in base64 (standard or
    /// URL-safe, padding optional) or 64 hex digits; the first one seals.
    pub fn from_env_value(value: &str) -> Result<Self, String> {
        let mut keys = Vec::new();
        for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            keys.push(parse_key(part)?);
        }
        KeyRing::new(&keys)
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the ring is empty (never true for a constructed ring).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Seals `plaintext` with the first key: an opaque `v1.` token only a server holding one of
    /// the ring's keys can open (authenticated: any change makes [`open`](Self::open) fail). Also
    /// useful for your own opaque handles.
    ///
    /// ```
    /// use mcp_runtime::mrtr::KeyRing;
    /// let ring = KeyRing::new(&[[7; 32]]).unwrap();
    /// let token = ring.seal(b"cart-41").unwrap();
    /// assert_eq!(ring.open(&token).unwrap(), b"cart-41");
    /// assert!(ring.open(&format!("{token}x")).is_err());
    /// ```
    pub fn seal(&self, plaintext: &[u8]) -> Result<String, McpError> {
        let (id, cipher) = &self.keys[0];
        let mut nonce = [0u8; 24];
        getrandom::getrandom(&mut nonce)
            .map_err(|_| McpError::internal("no randomness available to seal requestState"))?;
        let sealed = cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: plaintext,
                    aad: AAD,
                },
            )
            .map_err(|_| McpError::internal("sealing requestState failed"))?;
        let mut raw = Vec::with_capacity(4 + 24 + sealed.len());
        raw.extend_from_slice(id);
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(&sealed);
        let token = format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
        );
        if token.len() > MAX_STATE_BYTES {
            return Err(McpError::internal(format!(
                "the requestState would be {} bytes, over the {MAX_STATE_BYTES}-byte limit",
                token.len()
            )));
        }
        Ok(token)
    }

    /// Opens a token sealed by any key of the ring; `-32602` when it was altered, forged, or
    /// sealed with another key.
    pub fn open(&self, token: &str) -> Result<Vec<u8>, McpError> {
        let invalid =
            |why: &str| McpError::invalid_params(format!("Invalid params: requestState {why}"));
        if token.len() > MAX_STATE_BYTES {
            return Err(invalid("is too large"));
        }
        let body = token
            .strip_prefix(PREFIX)
            .ok_or_else(|| invalid("has an unknown format or version"))?;
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| invalid("is not valid (it was altered or truncated)"))?;
        if raw.len() < 4 + 24 + 16 {
            return Err(invalid("is not valid (it was altered or truncated)"));
        }
        let (id, rest) = raw.split_at(4);
        let (nonce, sealed) = rest.split_at(24);
        let cipher = self
            .keys
            .iter()
            .find(|(k, _)| k.as_slice() == id)
            .map(|(_, c)| c)
            .ok_or_else(|| invalid("was sealed with a key this server does not have"))?;
        cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: AAD,
                },
            )
            .map_err(|_| invalid("failed verification (it was altered or forged)"))
    }
}

fn parse_key(text: &str) -> Result<[u8; 32], String> {
    let bytes = if text.len() == 64 && text.chars().all(|c| c.is_ascii_hexdigit()) {
        (0..32)
            .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|e| e.to_string()))
            .collect::<Result<Vec<u8>, String>>()?
    } else {
        let trimmed = text.trim_end_matches('=');
        base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(trimmed)
            .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(trimmed))
            .map_err(|_| "a state key must be 32 bytes as base64 or 64 hex digits".to_owned())?
    };
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| format!("a state key must be 32 bytes, this one has {}", b.len()))
}

/// What a `requestState` is bound to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Binding {
    /// Method.
    #[serde(rename = "m")]
    pub(crate) method: String,
    /// Tool or prompt name, or the resource URI.
    #[serde(rename = "n")]
    pub(crate) name: String,
    /// SHA-256 of the canonical JSON of the arguments (base64url).
    #[serde(rename = "d")]
    pub(crate) digest: String,
    /// SHA-256 of the caller's subject, when authenticated.
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub(crate) caller: Option<String>,
}

impl Binding {
    pub(crate) fn new(method: &str, name: &str, arguments: &Value, caller: Option<&str>) -> Self {
        let digest = |bytes: &[u8]| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(bytes))
        };
        // serde_json's default map is ordered by key, so this serialization is canonical.
        let canonical = serde_json::to_vec(arguments).unwrap_or_default();
        Binding {
            method: method.to_owned(),
            name: name.to_owned(),
            digest: digest(&canonical),
            caller: caller.map(|c| digest(c.as_bytes())),
        }
    }
}

/// The sealed payload.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Sealed {
    #[serde(rename = "b")]
    pub(crate) binding: Binding,
    /// Expiry, milliseconds since the Unix epoch.
    #[serde(rename = "e")]
    pub(crate) expires_ms: u64,
    /// Rounds completed before the one this state is echoed in.
    #[serde(rename = "r")]
    pub(crate) round: u32,
    /// Answers collected in earlier rounds, by input key.
    #[serde(rename = "a", default, skip_serializing_if = "Map::is_empty")]
    pub(crate) answers: Map<String, Value>,
    /// The handler's own continuation data.
    #[serde(rename = "s", default, skip_serializing_if = "Value::is_null")]
    pub(crate) data: Value,
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Seals and opens states for one server.
#[derive(Debug, Clone)]
pub(crate) struct Sealer {
    pub(crate) ring: KeyRing,
    pub(crate) ttl: Duration,
}

impl Sealer {
    pub(crate) fn seal(&self, payload: &Sealed) -> Result<String, McpError> {
        let json = serde_json::to_vec(payload)
            .map_err(|e| McpError::internal(format!("requestState could not be encoded: {e}")))?;
        self.ring.seal(&json)
    }

    pub(crate) fn open(&self, token: &str, expected: &Binding) -> Result<Sealed, McpError> {
        let plain = self.ring.open(token)?;
        let sealed: Sealed = serde_json::from_slice(&plain)
            .map_err(|_| McpError::invalid_params("Invalid params: requestState is not valid"))?;
        if sealed.expires_ms < now_ms() {
            return Err(McpError::invalid_params(
                "Invalid params: requestState has expired; send the request again without it",
            ));
        }
        if sealed.binding.method != expected.method || sealed.binding.name != expected.name {
            return Err(McpError::invalid_params(format!(
                "Invalid params: requestState belongs to another request ({} `{}`), not {} `{}`",
                sealed.binding.method, sealed.binding.name, expected.method, expected.name
            )));
        }
        if sealed.binding.digest != expected.digest {
            return Err(McpError::invalid_params(
                "Invalid params: requestState was issued for different arguments",
            ));
        }
        if sealed.binding.caller != expected.caller {
            return Err(McpError::invalid_params(
                "Invalid params: requestState was issued to another caller",
            ));
        }
        Ok(sealed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer(key: u8) -> Sealer {
        Sealer {
            ring: KeyRing::new(&[[key; 32]]).unwrap(),
            ttl: DEFAULT_STATE_TTL,
        }
    }

    fn payload(binding: Binding, expires_ms: u64) -> Sealed {
        Sealed {
            binding,
            expires_ms,
            round: 1,
            answers: Map::new(),
            data: Value::Null,
        }
    }

    #[test]
    fn round_trip_and_failures() {
        let b = Binding::new("tools/call", "t", &serde_json::json!({"x": 1}), None);
        let s = sealer(7);
        let token = s.seal(&payload(b.clone(), now_ms() + 60_000)).unwrap();
        assert!(token.starts_with("v1."));
        assert_eq!(s.open(&token, &b).unwrap().round, 1);
        // Tampered.
        assert_eq!(
            s.open(&format!("{token}-TAMPERED"), &b).unwrap_err().code(),
            -32602
        );
        let mut chars: Vec<char> = token.chars().collect();
        let last = chars.len() - 3;
        chars[last] = if chars[last] == 'A' { 'B' } else { 'A' };
        let flipped: String = chars.into_iter().collect();
        assert!(s.open(&flipped, &b).is_err());
        // Another key.
        assert!(sealer(8).open(&token, &b).is_err());
        // Other arguments or tool.
        let other = Binding::new("tools/call", "t", &serde_json::json!({"x": 2}), None);
        assert!(s.open(&token, &other).is_err());
        let other = Binding::new("tools/call", "u", &serde_json::json!({"x": 1}), None);
        assert!(s.open(&token, &other).is_err());
        // Expired.
        let old = s.seal(&payload(b.clone(), now_ms() - 1)).unwrap();
        assert!(s.open(&old, &b).unwrap_err().message().contains("expired"));
    }

    #[test]
    fn rotation_keeps_old_states_valid() {
        let b = Binding::new("prompts/get", "p", &Value::Null, Some("alice"));
        let old = sealer(1);
        let token = old.seal(&payload(b.clone(), now_ms() + 60_000)).unwrap();
        let rotated = Sealer {
            ring: KeyRing::new(&[[2; 32], [1; 32]]).unwrap(),
            ttl: DEFAULT_STATE_TTL,
        };
        assert!(rotated.open(&token, &b).is_ok());
        let bob = Binding::new("prompts/get", "p", &Value::Null, Some("bob"));
        assert!(rotated.open(&token, &bob).is_err());
    }
}
