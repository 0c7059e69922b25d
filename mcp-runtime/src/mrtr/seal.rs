//! Sealing of `requestState`: XChaCha20-Poly1305 with a key ring, a version prefix, an expiry,
//! and a binding to the request it belongs to.
//!
//! Wire form: `v1.` + base64url(key id (4 bytes) ‖ nonce (24 bytes) ‖ ciphertext+tag). The
//! plaintext is a compact binary record (see [`SealedOut`]): the binding (method, name,
//! canonical arguments, caller), the expiry, the round number, the answers collected so far and
//! the handler's own data. Nothing in it is readable or changeable by the client.

use super::input::Responses;
use crate::McpError;
use base64::Engine as _;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{Tag, XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const PREFIX: &str = "v1.";
const AAD: &[u8] = b"mcp-runtime requestState v1";
/// Bytes before the ciphertext: key id (4) and nonce (24).
const HEADER: usize = 4 + 24;
/// Bytes of the authentication tag after the ciphertext.
const TAG: usize = 16;

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
        let mut buf = Vec::with_capacity(HEADER + plaintext.len() + TAG);
        buf.extend_from_slice(&[0; HEADER]);
        buf.extend_from_slice(plaintext);
        self.seal_buffer(buf)
    }

    /// Seals `buf[HEADER..]` in place (the first [`HEADER`] bytes are room for the key id and
    /// the nonce) and encodes the token.
    fn seal_buffer(&self, mut buf: Vec<u8>) -> Result<String, McpError> {
        let (id, cipher) = &self.keys[0];
        let token_len = base64::encoded_len(buf.len() + TAG, false)
            .map_or(usize::MAX, |n| n.saturating_add(PREFIX.len()));
        if token_len > MAX_STATE_BYTES {
            return Err(McpError::internal(format!(
                "the requestState would be {token_len} bytes, over the {MAX_STATE_BYTES}-byte limit"
            )));
        }
        let mut nonce = [0u8; 24];
        getrandom::getrandom(&mut nonce)
            .map_err(|_| McpError::internal("no randomness available to seal requestState"))?;
        buf[..4].copy_from_slice(id);
        buf[4..HEADER].copy_from_slice(&nonce);
        let tag = cipher
            .encrypt_in_place_detached(XNonce::from_slice(&nonce), AAD, &mut buf[HEADER..])
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
    fn open_in_place(&self, token: &str) -> Result<(Vec<u8>, std::ops::Range<usize>), McpError> {
        let invalid =
            |why: &str| McpError::invalid_params(format!("Invalid params: requestState {why}"));
        if token.len() > MAX_STATE_BYTES {
            return Err(invalid("is too large"));
        }
        let body = token
            .strip_prefix(PREFIX)
            .ok_or_else(|| invalid("has an unknown format or version"))?;
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
            .decrypt_in_place_detached(XNonce::from_slice(nonce), AAD, sealed, Tag::from_slice(tag))
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

/// Longest text a [`Fingerprint`] keeps as is; longer text is replaced by its SHA-256.
const INLINE_MAX: usize = 32;
/// `Fingerprint::len` of a SHA-256 digest.
const HASHED: u8 = u8::MAX;

/// What identifies a text in a binding: the text itself when it is no longer than a digest
/// ([`INLINE_MAX`] bytes), else its SHA-256. Either way the sealed state never grows past a
/// digest per fingerprint, and short texts (the usual arguments) need no hashing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    /// Bytes of inline text, or [`HASHED`].
    len: u8,
    bytes: [u8; INLINE_MAX],
}

impl std::fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.len {
            HASHED => f.write_str("Fingerprint(sha256)"),
            n => write!(f, "Fingerprint({} bytes)", n),
        }
    }
}

impl Fingerprint {
    fn of(text: &[u8]) -> Fingerprint {
        let mut w = FingerprintWriter::new();
        w.push(text);
        w.finish()
    }
    fn as_bytes(&self) -> &[u8] {
        match self.len {
            HASHED => &self.bytes,
            n => &self.bytes[..usize::from(n)],
        }
    }
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.len);
        out.extend_from_slice(self.as_bytes());
    }
    fn decode(r: &mut Reader<'_>) -> Option<Fingerprint> {
        let len = r.byte()?;
        let n = match len {
            HASHED => INLINE_MAX,
            n if usize::from(n) <= INLINE_MAX => usize::from(n),
            _ => return None,
        };
        let mut bytes = [0; INLINE_MAX];
        bytes[..n].copy_from_slice(r.take(n)?);
        Some(Fingerprint { len, bytes })
    }
}

/// Builds a [`Fingerprint`] from text written in pieces: kept inline until it outgrows
/// [`INLINE_MAX`], hashed from then on (nothing is allocated either way).
struct FingerprintWriter {
    buf: [u8; INLINE_MAX],
    len: usize,
    hasher: Option<Sha256>,
}

impl FingerprintWriter {
    fn new() -> Self {
        FingerprintWriter {
            buf: [0; INLINE_MAX],
            len: 0,
            hasher: None,
        }
    }
    fn push(&mut self, data: &[u8]) {
        if let Some(h) = &mut self.hasher {
            h.update(data);
        } else if self.len + data.len() <= INLINE_MAX {
            self.buf[self.len..self.len + data.len()].copy_from_slice(data);
            self.len += data.len();
        } else {
            let mut h = Sha256::new();
            h.update(&self.buf[..self.len]);
            h.update(data);
            self.hasher = Some(h);
        }
    }
    fn finish(self) -> Fingerprint {
        match self.hasher {
            Some(h) => Fingerprint {
                len: HASHED,
                bytes: h.finalize().into(),
            },
            None => Fingerprint {
                // At most INLINE_MAX (32): fits.
                len: self.len as u8,
                bytes: self.buf,
            },
        }
    }
}

impl std::io::Write for FingerprintWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.push(buf);
        Ok(buf.len())
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.push(buf);
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a `requestState` is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    /// Method.
    pub(crate) method: &'static str,
    /// Tool or prompt name, or the resource URI.
    pub(crate) name: String,
    /// The canonical JSON of the arguments.
    pub(crate) arguments: Fingerprint,
    /// The caller's subject, when authenticated.
    pub(crate) caller: Option<Fingerprint>,
}

impl Binding {
    /// The binding of a request. `arguments` is the arguments' JSON text as sent: it is bound in
    /// its canonical form (keys sorted, no whitespace), so spacing and key order do not matter.
    pub(crate) fn new(
        method: &'static str,
        name: &str,
        arguments: &str,
        caller: Option<&str>,
    ) -> Self {
        Binding {
            method,
            name: name.to_owned(),
            arguments: canonical_fingerprint(arguments),
            caller: caller.map(|c| Fingerprint::of(c.as_bytes())),
        }
    }

    /// The binding of a request whose state is about to be opened, with the arguments taken as
    /// sent: [`Sealer::open`] compares that first and canonicalizes only when it differs (a
    /// client usually sends the same text, already compact and sorted, on every round).
    pub(crate) fn as_sent(
        method: &'static str,
        name: &str,
        arguments: &str,
        caller: Option<&str>,
    ) -> Self {
        Binding {
            method,
            name: name.to_owned(),
            arguments: Fingerprint::of(arguments.as_bytes()),
            caller: caller.map(|c| Fingerprint::of(c.as_bytes())),
        }
    }
}

/// The fingerprint of the canonical JSON of `text` (keys sorted, no whitespace; numbers and
/// strings as `serde_json` writes them). Text that is not JSON is taken as is.
fn canonical_fingerprint(text: &str) -> Fingerprint {
    let mut w = FingerprintWriter::new();
    match serde_json::from_str::<Canonical<'_>>(text) {
        Ok(value) => {
            // Writing into a fingerprint cannot fail.
            let _ = serde_json::to_writer(&mut w, &value);
        }
        Err(_) => w.push(text.as_bytes()),
    }
    w.finish()
}

/// A JSON value borrowed from its text, serialized canonically: object members sorted by key
/// (the last of duplicate keys wins, as when parsing into a `serde_json::Value`).
enum Canonical<'a> {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(Cow<'a, str>),
    Array(Vec<Canonical<'a>>),
    Object(Vec<(Cow<'a, str>, Canonical<'a>)>),
}

impl Serialize for Canonical<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Canonical::Null => s.serialize_unit(),
            Canonical::Bool(b) => s.serialize_bool(*b),
            Canonical::Number(n) => n.serialize(s),
            Canonical::String(t) => s.serialize_str(t),
            Canonical::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Canonical::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k.as_ref(), v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Canonical<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CanonicalVisitor)
    }
}

struct CanonicalVisitor;

/// An object key, borrowed when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> serde::de::Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de> serde::de::Visitor<'de> for CanonicalVisitor {
    type Value = Canonical<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Canonical<'de>, E> {
        Ok(Canonical::Null)
    }
    fn visit_none<E>(self) -> Result<Canonical<'de>, E> {
        Ok(Canonical::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Canonical<'de>, E> {
        Ok(Canonical::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Canonical<'de>, E> {
        Ok(Canonical::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Canonical<'de>, E> {
        Ok(Canonical::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Canonical<'de>, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Canonical::Null, Canonical::Number))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Canonical<'de>, E> {
        Ok(Canonical::String(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Canonical<'de>, E> {
        Ok(Canonical::String(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Canonical<'de>, E> {
        Ok(Canonical::String(Cow::Owned(v)))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Canonical<'de>, A::Error> {
        let mut items = Vec::with_capacity(a.size_hint().unwrap_or(0));
        while let Some(item) = a.next_element()? {
            items.push(item);
        }
        Ok(Canonical::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Canonical<'de>, A::Error> {
        let mut members: Vec<(Cow<'de, str>, Canonical<'de>)> = Vec::new();
        while let Some((Key(k), v)) = a.next_entry::<Key<'de>, Canonical<'de>>()? {
            members.push((k, v));
        }
        // Stable: among equal keys the later stays after the earlier, and dedup keeps the last.
        members.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(Cow<'de, str>, Canonical<'de>)> = Vec::with_capacity(members.len());
        for m in members {
            match kept.last_mut() {
                Some(last) if last.0 == m.0 => *last = m,
                _ => kept.push(m),
            }
        }
        Ok(Canonical::Object(kept))
    }
}

/// First byte of the plaintext: the payload format.
const FORMAT: u8 = 1;

/// The sealed payload as written: borrows everything it seals.
///
/// Plaintext layout (lengths are LEB128 varints, integers little-endian): format byte, expiry
/// (u64 ms since the Unix epoch), round (u32), method, name, arguments fingerprint, caller
/// (0, or 1 and a fingerprint), answer count and each key and raw JSON answer, data (0, or 1
/// and raw JSON). A fingerprint is a length byte (`0..=32` bytes of text, or 255 for a SHA-256)
/// and its bytes.
pub(crate) struct SealedOut<'a> {
    pub(crate) binding: &'a Binding,
    /// Expiry, milliseconds since the Unix epoch.
    pub(crate) expires_ms: u64,
    /// Rounds completed before the one this state is echoed in.
    pub(crate) round: u32,
    /// Answers collected so far, by input key.
    pub(crate) answers: Answers<'a>,
    /// The handler's own continuation data.
    pub(crate) data: Option<&'a RawValue>,
}

impl SealedOut<'_> {
    /// Bytes [`encode`](Self::encode) writes, at most.
    fn size_hint(&self) -> usize {
        let b = self.binding;
        let answers: usize = self
            .answers
            .0
            .iter()
            .map(|(k, v)| k.len() + v.get().len() + 2 * VARINT_MAX)
            .sum();
        1 + 8
            + 4
            + 2 * VARINT_MAX
            + b.method.len()
            + b.name.len()
            + 2 * (2 + INLINE_MAX)
            + VARINT_MAX
            + answers
            + 1
            + VARINT_MAX
            + self.data.map_or(0, |d| d.get().len())
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.push(FORMAT);
        out.extend_from_slice(&self.expires_ms.to_le_bytes());
        out.extend_from_slice(&self.round.to_le_bytes());
        put_str(out, self.binding.method);
        put_str(out, &self.binding.name);
        self.binding.arguments.encode(out);
        match &self.binding.caller {
            None => out.push(0),
            Some(c) => {
                out.push(1);
                c.encode(out);
            }
        }
        put_len(out, self.answers.0.len());
        for (k, v) in &self.answers.0 {
            put_str(out, k);
            put_str(out, v.get());
        }
        match self.data {
            None => out.push(0),
            Some(d) => {
                out.push(1);
                put_str(out, d.get());
            }
        }
    }
}

/// Most bytes of a varint holding a `usize`.
const VARINT_MAX: usize = 10;

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// Reads a plaintext; `None` at anything out of place.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.rest.len() {
            return None;
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Some(head)
    }
    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
    fn len(&mut self) -> Option<usize> {
        let mut n: usize = 0;
        for shift in (0..usize::BITS).step_by(7) {
            let b = self.byte()?;
            n |= usize::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.len()?;
        std::str::from_utf8(self.take(n)?).ok()
    }
    fn raw(&mut self) -> Option<Box<RawValue>> {
        RawValue::from_string(self.str()?.to_owned()).ok()
    }
}

/// Answers to seal, by key (raw JSON, written as they came).
#[derive(Debug, Default)]
pub(crate) struct Answers<'a>(pub(crate) Vec<(&'a str, &'a RawValue)>);

/// What an opened state carries into the request.
#[derive(Debug)]
pub(crate) struct Sealed {
    /// Rounds completed before the one this state is echoed in.
    pub(crate) round: u32,
    /// Answers collected in earlier rounds, by input key.
    pub(crate) answers: Responses,
    /// The handler's own continuation data (never `null`).
    pub(crate) data: Option<Box<RawValue>>,
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
    pub(crate) fn seal(&self, payload: &SealedOut<'_>) -> Result<String, McpError> {
        let mut buf = Vec::with_capacity(HEADER + payload.size_hint() + TAG);
        buf.extend_from_slice(&[0; HEADER]);
        payload.encode(&mut buf);
        self.ring.seal_buffer(buf)
    }

    /// Opens `token` for the request bound by `expected`, built with [`Binding::as_sent`] from
    /// `arguments` (the text as sent). On success `expected` holds the canonical binding.
    pub(crate) fn open(
        &self,
        token: &str,
        expected: &mut Binding,
        sent_arguments: &str,
    ) -> Result<Sealed, McpError> {
        let (buf, plain) = self.ring.open_in_place(token)?;
        let invalid = || McpError::invalid_params("Invalid params: requestState is not valid");
        let mut r = Reader { rest: &buf[plain] };
        if r.byte() != Some(FORMAT) {
            return Err(invalid());
        }
        let head = (|| {
            let expires_ms = u64::from_le_bytes(r.array()?);
            let round = u32::from_le_bytes(r.array()?);
            let method = r.str()?;
            let name = r.str()?;
            let arguments = Fingerprint::decode(&mut r)?;
            let caller = match r.byte()? {
                0 => None,
                1 => Some(Fingerprint::decode(&mut r)?),
                _ => return None,
            };
            Some((expires_ms, round, method, name, arguments, caller))
        })();
        let (expires_ms, round, method, name, arguments, caller) = head.ok_or_else(invalid)?;
        if expires_ms < now_ms() {
            return Err(McpError::invalid_params(
                "Invalid params: requestState has expired; send the request again without it",
            ));
        }
        if method != expected.method || name != expected.name {
            return Err(McpError::invalid_params(format!(
                "Invalid params: requestState belongs to another request ({method} `{name}`), not {} `{}`",
                expected.method, expected.name
            )));
        }
        if arguments != expected.arguments {
            // The text as sent is not the canonical text the state was sealed with: compare
            // canonical forms.
            let canonical = canonical_fingerprint(sent_arguments);
            if arguments != canonical {
                return Err(McpError::invalid_params(
                    "Invalid params: requestState was issued for different arguments",
                ));
            }
            expected.arguments = canonical;
        }
        if caller != expected.caller {
            return Err(McpError::invalid_params(
                "Invalid params: requestState was issued to another caller",
            ));
        }
        let rest = (|| {
            let mut answers = Responses::default();
            for _ in 0..r.len()? {
                let key = r.str()?.to_owned();
                answers.push(key, r.raw()?);
            }
            let data = match r.byte()? {
                0 => None,
                1 => Some(r.raw()?).filter(|d| d.get() != "null"),
                _ => return None,
            };
            r.rest.is_empty().then_some((answers, data))
        })();
        let (answers, data) = rest.ok_or_else(invalid)?;
        Ok(Sealed {
            round,
            answers,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opens with a binding built by `Binding::new` (already canonical: no text to fall back on).
    fn open_as(s: &Sealer, token: &str, b: &Binding) -> Result<Sealed, McpError> {
        s.open(token, &mut b.clone(), "")
    }

    #[test]
    fn arguments_are_compared_as_sent_then_canonically() {
        let s = Sealer {
            ring: KeyRing::new(&[[3; 32]]).unwrap(),
            ttl: DEFAULT_STATE_TTL,
        };
        let sealed = Binding::new("tools/call", "t", r#"{"b":1,"a":[2, 3]}"#, None);
        let token = s.seal(&payload(&sealed, now_ms() + 60_000)).unwrap();
        // The same text as canonical: no canonicalization needed.
        let mut same = Binding::as_sent("tools/call", "t", r#"{"a":[2,3],"b":1}"#, None);
        assert!(s.open(&token, &mut same, r#"{"a":[2,3],"b":1}"#).is_ok());
        assert_eq!(same, sealed);
        // Spaced and reordered: equal once canonical, and the binding becomes canonical.
        let text = r#" { "b" : 1 , "a" : [ 2 , 3 ] } "#;
        let mut spaced = Binding::as_sent("tools/call", "t", text, None);
        assert_ne!(spaced, sealed);
        assert!(s.open(&token, &mut spaced, text).is_ok());
        assert_eq!(spaced, sealed);
        // Different arguments.
        let text = r#"{"a":[2,3],"b":2}"#;
        let mut other = Binding::as_sent("tools/call", "t", text, None);
        let err = s.open(&token, &mut other, text).unwrap_err();
        assert!(
            err.message().contains("different arguments"),
            "{}",
            err.message()
        );
    }

    fn sealer(key: u8) -> Sealer {
        Sealer {
            ring: KeyRing::new(&[[key; 32]]).unwrap(),
            ttl: DEFAULT_STATE_TTL,
        }
    }

    fn payload(binding: &Binding, expires_ms: u64) -> SealedOut<'_> {
        SealedOut {
            binding,
            expires_ms,
            round: 1,
            answers: Answers::default(),
            data: None,
        }
    }

    #[test]
    fn round_trip_and_failures() {
        let b = Binding::new("tools/call", "t", r#"{"x": 1}"#, None);
        let s = sealer(7);
        let token = s.seal(&payload(&b, now_ms() + 60_000)).unwrap();
        assert!(token.starts_with("v1."));
        assert_eq!(open_as(&s, &token, &b).unwrap().round, 1);
        // Tampered.
        assert_eq!(
            open_as(&s, &format!("{token}-TAMPERED"), &b)
                .unwrap_err()
                .code(),
            -32602
        );
        let mut chars: Vec<char> = token.chars().collect();
        let last = chars.len() - 3;
        chars[last] = if chars[last] == 'A' { 'B' } else { 'A' };
        let flipped: String = chars.into_iter().collect();
        assert!(open_as(&s, &flipped, &b).is_err());
        // Another key.
        assert!(open_as(&sealer(8), &token, &b).is_err());
        // Other arguments or tool.
        let other = Binding::new("tools/call", "t", r#"{"x":2}"#, None);
        assert!(open_as(&s, &token, &other).is_err());
        let other = Binding::new("tools/call", "u", r#"{"x":1}"#, None);
        assert!(open_as(&s, &token, &other).is_err());
        // Expired.
        let old = s.seal(&payload(&b, now_ms() - 1)).unwrap();
        assert!(
            open_as(&s, &old, &b)
                .unwrap_err()
                .message()
                .contains("expired")
        );
    }

    #[test]
    fn answers_and_data_round_trip() {
        let b = Binding::new("tools/call", "t\"q\u{e9}", "{}", Some("alice"));
        let s = sealer(3);
        let answer: Box<RawValue> = serde_json::from_str(r#"{"roots": [ ]}"#).unwrap();
        let data: Box<RawValue> = serde_json::from_str(r#"{"step":2}"#).unwrap();
        let token = s
            .seal(&SealedOut {
                binding: &b,
                expires_ms: now_ms() + 60_000,
                round: 3,
                answers: Answers(vec![("k\u{e9}y", &answer)]),
                data: Some(&data),
            })
            .unwrap();
        let opened = open_as(&s, &token, &b).unwrap();
        assert_eq!(opened.round, 3);
        assert_eq!(
            opened.answers.get("k\u{e9}y").unwrap().get(),
            r#"{"roots": [ ]}"#
        );
        assert_eq!(opened.data.unwrap().get(), r#"{"step":2}"#);
    }

    #[test]
    fn binding_ignores_whitespace_and_key_order() {
        let a = Binding::new(
            "tools/call",
            "t",
            r#"{"b": [1, 2.5, {"z": null, "y": "\u0041"}], "a": true}"#,
            None,
        );
        let b = Binding::new(
            "tools/call",
            "t",
            "{\n  \"a\" : true ,\"b\":[1,2.5,{\"y\":\"A\",\"z\":null}]\n}",
            None,
        );
        assert_eq!(a, b);
        // The canonical form is the one serde_json writes for a parsed `Value`: kept as is when
        // short, hashed when longer than a digest.
        let short = r#"{ "b":1, "a":{ "c":"x" } }"#;
        let v: serde_json::Value = serde_json::from_str(short).unwrap();
        let text = serde_json::to_vec(&v).unwrap();
        assert!(text.len() <= INLINE_MAX);
        assert_eq!(canonical_fingerprint(short).as_bytes(), &text[..]);
        let long = r#"{ "b":1, "a":{ "d":[ ], "c":"a longer text than a digest" } }"#;
        let v: serde_json::Value = serde_json::from_str(long).unwrap();
        let text = serde_json::to_vec(&v).unwrap();
        let digest: [u8; 32] = Sha256::digest(&text).into();
        let f = canonical_fingerprint(long);
        assert_eq!(f.len, HASHED);
        assert_eq!(f.as_bytes(), &digest[..]);
        // Exactly a digest's length stays inline; one more byte is hashed.
        assert_eq!(Fingerprint::of(&[b'x'; INLINE_MAX]).len, INLINE_MAX as u8);
        assert_eq!(Fingerprint::of(&[b'x'; INLINE_MAX + 1]).len, HASHED);
        // Duplicate keys: the last wins, as in a parsed `Value`.
        assert_eq!(
            canonical_fingerprint(r#"{"a":1,"b":0,"a":2}"#),
            canonical_fingerprint(r#"{"b":0,"a":2}"#)
        );
        assert_ne!(
            canonical_fingerprint(r#"{"a":1}"#),
            canonical_fingerprint(r#"{"a":2}"#)
        );
        let long_b = long.replace("longer", "bigger");
        assert_ne!(canonical_fingerprint(long), canonical_fingerprint(&long_b));
    }

    #[test]
    fn truncated_or_padded_plaintext_is_invalid() {
        let b = Binding::new("tools/call", "t", "{}", None);
        let s = sealer(5);
        let mut plain = Vec::new();
        payload(&b, now_ms() + 60_000).encode(&mut plain);
        let token = s.ring.seal(&plain).unwrap();
        assert!(open_as(&s, &token, &b).is_ok());
        for bad in [
            &plain[..plain.len() - 1],
            &[&plain[..], b"x"].concat()[..],
            b"",
            b"{}",
        ] {
            let token = s.ring.seal(bad).unwrap();
            assert_eq!(
                open_as(&s, &token, &b).unwrap_err().message(),
                "Invalid params: requestState is not valid"
            );
        }
    }

    #[test]
    fn rotation_keeps_old_states_valid() {
        let b = Binding::new("prompts/get", "p", "null", Some("alice"));
        let old = sealer(1);
        let token = old.seal(&payload(&b, now_ms() + 60_000)).unwrap();
        let rotated = Sealer {
            ring: KeyRing::new(&[[2; 32], [1; 32]]).unwrap(),
            ttl: DEFAULT_STATE_TTL,
        };
        assert!(open_as(&rotated, &token, &b).is_ok());
        let bob = Binding::new("prompts/get", "p", "null", Some("bob"));
        assert!(open_as(&rotated, &token, &bob).is_err());
        let anonymous = Binding::new("prompts/get", "p", "null", None);
        assert!(open_as(&rotated, &token, &anonymous).is_err());
    }

    #[test]
    fn ring_seal_and_open_are_inverse() {
        let ring = KeyRing::new(&[[9; 32]]).unwrap();
        for plain in [&b""[..], b"x", &[0u8; 300]] {
            assert_eq!(ring.open(&ring.seal(plain).unwrap()).unwrap(), plain);
        }
    }
}
