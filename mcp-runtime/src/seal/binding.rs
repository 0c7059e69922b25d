//! What a `requestState` is bound to: the method, the name, the arguments (in canonical form)
//! and the caller, each kept as a short [`Fingerprint`].

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Longest text a [`Fingerprint`] keeps as is; longer text is replaced by its SHA-256.
pub(super) const INLINE_MAX: usize = 32;
/// `Fingerprint::len` of a SHA-256 digest.
pub(super) const HASHED: u8 = u8::MAX;

/// What identifies a text in a binding: the text itself when it is no longer than a digest
/// ([`INLINE_MAX`] bytes), else its SHA-256. Either way the sealed state never grows past a
/// digest per fingerprint, and short texts (the usual arguments) need no hashing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    /// Bytes of inline text, or [`HASHED`].
    pub(super) len: u8,
    pub(super) bytes: [u8; INLINE_MAX],
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
    pub(super) fn as_bytes(&self) -> &[u8] {
        match self.len {
            HASHED => &self.bytes,
            n => &self.bytes[..usize::from(n)],
        }
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
    /// Tool or prompt name, or the resource URI (shared with the request, not copied).
    pub(crate) name: Arc<str>,
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
        name: impl Into<Arc<str>>,
        arguments: &str,
        caller: Option<&str>,
    ) -> Self {
        Binding {
            method,
            name: name.into(),
            arguments: canonical_fingerprint(arguments),
            caller: caller.map(|c| Fingerprint::of(c.as_bytes())),
        }
    }

    /// The binding of a request whose state is about to be opened, with the arguments taken as
    /// sent: [`Sealer::open`](super::Sealer::open) compares that first and canonicalizes only
    /// when it differs (a client usually sends the same text, already compact and sorted, on
    /// every round).
    pub(crate) fn as_sent(
        method: &'static str,
        name: impl Into<Arc<str>>,
        arguments: &str,
        caller: Option<&str>,
    ) -> Self {
        Binding {
            method,
            name: name.into(),
            arguments: Fingerprint::of(arguments.as_bytes()),
            caller: caller.map(|c| Fingerprint::of(c.as_bytes())),
        }
    }
}

/// The fingerprint of the canonical JSON of `text` (keys sorted, no whitespace; numbers and
/// strings as `serde_json` writes them). Text that is not JSON is taken as is.
pub(super) fn canonical_fingerprint(text: &str) -> Fingerprint {
    // Clients usually send arguments compact and sorted already: checking that is a fraction of
    // parsing and rewriting them (BENCHMARKS.md, "Canonical arguments").
    if already_canonical(text.as_bytes()) {
        return Fingerprint::of(text.as_bytes());
    }
    rewritten_fingerprint(text)
}

/// The general path of [`canonical_fingerprint`]: `text` parsed, its members sorted and written
/// again (as is when it is not JSON).
fn rewritten_fingerprint(text: &str) -> Fingerprint {
    let mut w = FingerprintWriter::new();
    match serde_json::from_str::<Value>(text) {
        // Writing into a fingerprint cannot fail.
        Ok(value) => {
            let _ = write_canonical(&value, &mut w);
        }
        Err(_) => w.push(text.as_bytes()),
    }
    w.finish()
}

/// Deepest nesting [`already_canonical`] follows; deeper text takes the general path.
const SCAN_DEPTH: usize = 16;

/// Whether `text`, if it is JSON at all, is its own canonical form: no whitespace, no escape
/// in any string, integers only (no `-0`, at most 18 digits, so that serde_json reads them back
/// as integers), and the keys of every object strictly increasing. Text that is not JSON is
/// bound as is on either path, so a `true` for it changes nothing. A `false` only means the
/// general path decides.
fn already_canonical(text: &[u8]) -> bool {
    // Per open container: whether it is an object, and the last key read in it.
    let mut objects = [false; SCAN_DEPTH];
    let mut last_keys: [&[u8]; SCAN_DEPTH] = [&[]; SCAN_DEPTH];
    let mut has_key = [false; SCAN_DEPTH];
    let mut depth = 0;
    let mut expect_key = false;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                let start = i + 1;
                let Some(len) = text[start..].iter().position(|&b| b == b'"') else {
                    return false;
                };
                let s = &text[start..start + len];
                if s.iter().any(|&b| b == b'\\' || b < 0x20) {
                    return false;
                }
                if expect_key {
                    let top = depth - 1;
                    if has_key[top] && last_keys[top] >= s {
                        return false;
                    }
                    last_keys[top] = s;
                    has_key[top] = true;
                    expect_key = false;
                }
                i = start + len + 1;
            }
            open @ (b'{' | b'[') => {
                if depth == SCAN_DEPTH {
                    return false;
                }
                objects[depth] = open == b'{';
                has_key[depth] = false;
                depth += 1;
                expect_key = open == b'{';
                i += 1;
            }
            b'}' | b']' => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
                expect_key = false;
                i += 1;
            }
            b',' => {
                expect_key = depth > 0 && objects[depth - 1];
                i += 1;
            }
            b':' => i += 1,
            b'-' | b'0'..=b'9' => {
                let negative = text[i] == b'-';
                let digits_start = i + usize::from(negative);
                let digits = text[digits_start..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                let end = digits_start + digits;
                let zero_led = digits > 0 && text[digits_start] == b'0';
                if digits == 0
                    || digits > 18
                    || (zero_led && (negative || digits > 1))
                    || matches!(text.get(end), Some(b'.' | b'e' | b'E'))
                {
                    return false;
                }
                i = end;
            }
            b't' | b'f' | b'n' => {
                i += text[i..]
                    .iter()
                    .take_while(|b| b.is_ascii_lowercase())
                    .count();
            }
            _ => return false,
        }
    }
    true
}

/// Writes `value` with every object's members sorted by key and no whitespace. Sorted here, not
/// by the map type: a program that turns on serde_json's `preserve_order` keeps the same binding.
fn write_canonical<W: std::io::Write>(value: &Value, out: &mut W) -> serde_json::Result<()> {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.write_all(b"{").map_err(serde_json::Error::io)?;
            for (i, (key, member)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.write_all(b",").map_err(serde_json::Error::io)?;
                }
                serde_json::to_writer(&mut *out, key)?;
                out.write_all(b":").map_err(serde_json::Error::io)?;
                write_canonical(member, out)?;
            }
            out.write_all(b"}").map_err(serde_json::Error::io)
        }
        Value::Array(items) => {
            out.write_all(b"[").map_err(serde_json::Error::io)?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",").map_err(serde_json::Error::io)?;
                }
                write_canonical(item, out)?;
            }
            out.write_all(b"]").map_err(serde_json::Error::io)
        }
        scalar => serde_json::to_writer(out, scalar),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_canonical_shortcut_agrees_with_rewriting() {
        let texts = [
            r#"{"topic":"release safety"}"#,
            r#"{"a":1,"b":[true,false,null,{"c":-12,"d":"x"}],"e":{}}"#,
            r#"{}"#,
            r#"[]"#,
            r#""""#,
            r#"0"#,
            r#"{"a":0,"b":-1,"c":123456789012345678}"#,
            r#"{"é":"ü","z":"日本"}"#,
            // Each of these is JSON that rewriting changes: the shortcut must not take it.
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a": 1}"#,
            r#"{"a":"A"}"#,
            r#"{"a":"""}"#,
            r#"{"a":-0}"#,
            r#"{"a":1.0}"#,
            r#"{"a":1e2}"#,
            r#"{"a":1E2}"#,
            r#"{"a":1234567890123456789012}"#,
            r#"{"a":1234567890123456789}"#,
            r#"{"a":{"y":1,"x":2},"b":0}"#,
            r#"[{"b":1},{"a":1,"b":2,"a":3}]"#,
            r#"{"ab":1,"a":2}"#,
            // Not JSON: bound as is either way.
            r#"{"a":01}"#,
            r#"{"a":tru}"#,
            r#"{"a":1"#,
            r#"{"a" 1}"#,
            r#"{"a":1}}"#,
            r#""abc"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":-}"#,
            "",
        ];
        for text in texts {
            assert_eq!(
                canonical_fingerprint(text),
                rewritten_fingerprint(text),
                "{text}"
            );
        }
        assert!(already_canonical(br#"{"topic":"release safety"}"#));
        assert!(!already_canonical(br#"{"b":1,"a":2}"#));
        // Deeper than the scan follows: the general path, same answer.
        let deep = format!("{}1{}", "[".repeat(40), "]".repeat(40));
        assert!(!already_canonical(deep.as_bytes()));
        assert_eq!(canonical_fingerprint(&deep), rewritten_fingerprint(&deep));
    }
}
