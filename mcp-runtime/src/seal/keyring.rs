//! The key ring: AES-256-GCM-SIV keys (RFC 8452) that seal and open tokens.
//!
//! Token form: `v2.` + base64url(key id (4 bytes) ‖ nonce (12 bytes) ‖ ciphertext+tag).
//!
//! Why GCM-SIV: with a random nonce per token it stays safe far past any realistic number of
//! tokens under one key (and a repeated nonce reveals only that two plaintexts were equal, not
//! the key), and with the CPU's AES and carry-less multiply instructions a seal and an open of
//! an MRTR state cost about a quarter of what XChaCha20-Poly1305 (tokens `v1.`, until 2026-12)
//! cost (BENCHMARKS.md, "The state's cipher").

use super::bounds::MAX_STATE_BYTES;
use crate::error::McpError;
use aes_gcm_siv::aead::{AeadInPlace, KeyInit};
use aes_gcm_siv::{Aes256GcmSiv, Nonce, Tag};
use base64::Engine as _;
use sha2::{Digest, Sha256};

const PREFIX: &str = "v2.";
/// The XChaCha20-Poly1305 tokens of earlier versions: named in the error, not opened.
const OLD_PREFIX: &str = "v1.";
const AAD: &[u8] = b"mcp-runtime requestState v2";
/// Bytes of the nonce: random for every token.
const NONCE: usize = 12;
/// Bytes before the ciphertext: key id (4) and nonce.
pub(super) const HEADER: usize = 4 + NONCE;
/// Bytes of the authentication tag after the ciphertext.
pub(super) const TAG: usize = 16;

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
    keys: Vec<([u8; 4], Aes256GcmSiv)>,
    /// Largest token sealed or opened (default [`MAX_STATE_BYTES`]).
    max_bytes: usize,
    /// Made by [`KeyRing::random`] in this process: no other instance holds its key.
    generated: bool,
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
    /// Sets the largest token sealed or opened.
    pub(crate) fn set_max_bytes(&mut self, max: usize) {
        self.max_bytes = max;
    }

    /// A ring from raw 32-byte keys, the sealing key first.
    pub fn new(keys: &[[u8; 32]]) -> Result<Self, String> {
        if keys.is_empty() {
            return Err("a key ring needs at least one key".into());
        }
        Ok(KeyRing {
            max_bytes: MAX_STATE_BYTES,
            generated: false,
            keys: keys
                .iter()
                .map(|k| (key_id(k), Aes256GcmSiv::new(k.into())))
                .collect(),
        })
    }

    /// A ring with one fresh key from the operating system's random source; an error when the
    /// system has none (a key derived from anything guessable would let clients forge states).
    ///
    /// ```
    /// let ring = mcp_runtime::mrtr::KeyRing::random().expect("OS randomness");
    /// assert_eq!(ring.len(), 1);
    /// ```
    pub fn random() -> Result<Self, String> {
        let mut key = [0u8; 32];
        getrandom::getrandom(&mut key).map_err(|e| {
            format!("no requestState key is configured and the operating system gave no random bytes for one ({e}); set MCP_STATE_KEY")
        })?;
        let mut ring = KeyRing::new(&[key])?;
        ring.generated = true;
        Ok(ring)
    }

    /// Whether the ring was made by [`random`](Self::random) in this process, so that only
    /// this instance opens what it seals (what a serverless target refuses for a server whose
    /// requests take several rounds).
    pub(crate) fn is_generated(&self) -> bool {
        self.generated
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

    /// Seals `plaintext` with the first key under a random nonce: an opaque `v2.` token (the
    /// key's id, the nonce, the ciphertext and its tag, in base64url) that a ring holding that
    /// key opens (authenticated: any change makes [`open`](Self::open) fail). `-32603` when the
    /// token would exceed the ring's size limit or the system gives no random bytes. Also useful
    /// for your own opaque handles.
    ///
    /// ```
    /// use mcp_runtime::mrtr::KeyRing;
    /// let ring = KeyRing::new(&[[7; 32]]).unwrap();
    /// let token = ring.seal(b"cart-41").unwrap();
    /// assert_eq!(ring.open(&token).unwrap(), b"cart-41");
    /// assert!(ring.open(&format!("{token}x")).is_err());
    /// ```
    pub fn seal(&self, plaintext: &[u8]) -> Result<String, McpError> {
        let mut buf = Vec::with_capacity(HEADER + plaintext.len() + TAG);
        buf.extend_from_slice(&[0; HEADER]);
        buf.extend_from_slice(plaintext);
        self.seal_buffer(buf)
    }

    /// Seals `buf[HEADER..]` in place (the first [`HEADER`] bytes are room for the key id and
    /// the nonce) and encodes the token.
    pub(super) fn seal_buffer(&self, mut buf: Vec<u8>) -> Result<String, McpError> {
        let (id, cipher) = &self.keys[0];
        let token_len = base64::encoded_len(buf.len() + TAG, false)
            .map_or(usize::MAX, |n| n.saturating_add(PREFIX.len()));
        let max = self.max_bytes;
        if token_len > max {
            return Err(McpError::internal(format!(
                "the requestState would be {token_len} bytes, over the {max}-byte limit"
            )));
        }
        let mut nonce = [0u8; NONCE];
        getrandom::getrandom(&mut nonce)
            .map_err(|_| McpError::internal("no randomness available to seal requestState"))?;
        buf[..4].copy_from_slice(id);
        buf[4..HEADER].copy_from_slice(&nonce);
        let tag = cipher
            .encrypt_in_place_detached(Nonce::from_slice(&nonce), AAD, &mut buf[HEADER..])
            .map_err(|_| McpError::internal("sealing requestState failed"))?;
        buf.extend_from_slice(&tag);
        let mut token = String::with_capacity(token_len);
        token.push_str(PREFIX);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode_string(&buf, &mut token);
        Ok(token)
    }

    /// Opens a token sealed by any key of the ring; `-32602` when it was altered, forged, or
    /// sealed with another key.
    pub fn open(&self, token: &str) -> Result<Vec<u8>, McpError> {
        let (mut raw, plain) = self.open_in_place(token)?;
        raw.truncate(plain.end);
        raw.drain(..plain.start);
        Ok(raw)
    }

    /// Opens a token into its decoded buffer: the plaintext is `buffer[range]`.
    pub(super) fn open_in_place(
        &self,
        token: &str,
    ) -> Result<(Vec<u8>, std::ops::Range<usize>), McpError> {
        let invalid =
            |why: &str| McpError::invalid_params(format!("Invalid params: requestState {why}"));
        if token.len() > self.max_bytes {
            return Err(invalid("is too large"));
        }
        let Some(body) = token.strip_prefix(PREFIX) else {
            return Err(invalid(if token.starts_with(OLD_PREFIX) {
                "was sealed by an earlier version of this server (v1 tokens are no longer opened); send the request again without it"
            } else {
                "has an unknown format or version"
            }));
        };
        let mut raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| invalid("is not valid (it was altered or truncated)"))?;
        if raw.len() < HEADER + TAG {
            return Err(invalid("is not valid (it was altered or truncated)"));
        }
        let end = raw.len() - TAG;
        let (head, rest) = raw.split_at_mut(HEADER);
        let (sealed, tag) = rest.split_at_mut(end - HEADER);
        let (id, nonce) = head.split_at(4);
        let cipher = self
            .keys
            .iter()
            .find(|(k, _)| k.as_slice() == id)
            .map(|(_, c)| c)
            .ok_or_else(|| invalid("was sealed with a key this server does not have"))?;
        cipher
            .decrypt_in_place_detached(Nonce::from_slice(nonce), AAD, sealed, Tag::from_slice(tag))
            .map_err(|_| invalid("failed verification (it was altered or forged)"))?;
        Ok((raw, HEADER..end))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_seal_and_open_are_inverse() {
        let ring = KeyRing::new(&[[9; 32]]).unwrap();
        for plain in [&b""[..], b"x", &[0u8; 300]] {
            assert_eq!(ring.open(&ring.seal(plain).unwrap()).unwrap(), plain);
        }
    }

    #[test]
    fn tokens_are_v2_with_fresh_nonces_and_v1_is_named() {
        let ring = KeyRing::new(&[[9; 32]]).unwrap();
        let (a, b) = (ring.seal(b"same").unwrap(), ring.seal(b"same").unwrap());
        assert!(a.starts_with("v2.") && b.starts_with("v2."));
        assert_ne!(a, b, "every token has its own nonce");
        // key id 4 + nonce 12 + plaintext 4 + tag 16 = 36 bytes, 48 characters of base64url.
        assert_eq!(a.len(), 3 + 48);
        let old = ring.open(&format!("v1.{}", &a[3..])).unwrap_err();
        assert!(
            old.message().contains("earlier version"),
            "{}",
            old.message()
        );
        let other = KeyRing::new(&[[8; 32]]).unwrap();
        assert!(
            other
                .open(&a)
                .unwrap_err()
                .message()
                .contains("key this server")
        );
        // Any flipped bit fails verification.
        let mut raw = a.into_bytes();
        let last = raw.len() - 1;
        raw[last] = if raw[last] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(raw).unwrap();
        assert!(
            ring.open(&flipped)
                .unwrap_err()
                .message()
                .contains("verification")
        );
    }
}
