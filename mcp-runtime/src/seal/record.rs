//! The sealed record: what a `requestState` carries (binding, expiry, round, answers so far, the
//! handler's data), its compact binary form, and the [`Sealer`] that seals and opens it.

use super::binding::{Binding, Fingerprint, HASHED, INLINE_MAX, canonical_fingerprint};
use super::keyring::{HEADER, KeyRing, TAG};
use super::responses::Responses;
use crate::error::McpError;
use serde_json::value::RawValue;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
        put_fingerprint(out, &self.binding.arguments);
        match &self.binding.caller {
            None => out.push(0),
            Some(c) => {
                out.push(1);
                put_fingerprint(out, c);
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

/// A fingerprint: its length byte (`0..=32` bytes of text, or 255 for a SHA-256) and its bytes.
fn put_fingerprint(out: &mut Vec<u8>, f: &Fingerprint) {
    out.push(f.len);
    out.extend_from_slice(f.as_bytes());
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
        std::str::from_utf8(self.bytes()?).ok()
    }
    /// A string's bytes, not checked as UTF-8: for text only compared with known text.
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.len()?;
        self.take(n)
    }
    fn raw(&mut self) -> Option<Box<RawValue>> {
        RawValue::from_string(self.str()?.to_owned()).ok()
    }
    fn fingerprint(&mut self) -> Option<Fingerprint> {
        let len = self.byte()?;
        let n = match len {
            HASHED => INLINE_MAX,
            n if usize::from(n) <= INLINE_MAX => usize::from(n),
            _ => return None,
        };
        let mut bytes = [0; INLINE_MAX];
        bytes[..n].copy_from_slice(self.take(n)?);
        Some(Fingerprint { len, bytes })
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
    /// Most rounds of client input one request may take.
    pub(crate) max_rounds: u32,
    /// Whether anything served asks the client for input (so that states are sealed at all).
    pub(crate) asks_input: bool,
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
            // Compared as bytes (the known method and name are text), not checked as UTF-8
            // first (BENCHMARKS.md, "The sealed record").
            let method = r.bytes()?;
            let name = r.bytes()?;
            let arguments = r.fingerprint()?;
            let caller = match r.byte()? {
                0 => None,
                1 => Some(r.fingerprint()?),
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
        if method != expected.method.as_bytes() || name != expected.name.as_bytes() {
            return Err(McpError::invalid_params(format!(
                "Invalid params: requestState belongs to another request ({} `{}`), not {} `{}`",
                String::from_utf8_lossy(method),
                String::from_utf8_lossy(name),
                expected.method,
                expected.name
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
    use crate::seal::bounds::{DEFAULT_STATE_TTL, MAX_ROUNDS};

    /// Opens with a binding built by `Binding::new` (already canonical: no text to fall back on).
    fn open_as(s: &Sealer, token: &str, b: &Binding) -> Result<Sealed, McpError> {
        s.open(token, &mut b.clone(), "")
    }

    #[test]
    fn arguments_are_compared_as_sent_then_canonically() {
        let s = Sealer {
            ring: KeyRing::new(&[[3; 32]]).unwrap(),
            ttl: DEFAULT_STATE_TTL,
            max_rounds: MAX_ROUNDS,
            asks_input: true,
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
            max_rounds: MAX_ROUNDS,
            asks_input: true,
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
        assert!(token.starts_with("v2."));
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
            max_rounds: MAX_ROUNDS,
            asks_input: true,
        };
        assert!(open_as(&rotated, &token, &b).is_ok());
        let bob = Binding::new("prompts/get", "p", "null", Some("bob"));
        assert!(open_as(&rotated, &token, &bob).is_err());
        let anonymous = Binding::new("prompts/get", "p", "null", None);
        assert!(open_as(&rotated, &token, &anonymous).is_err());
    }
}
