//! One DPoP proof (RFC 9449 §4.2) read and checked (§4.3), but for what needs the access
//! token's claims (`cnf.jkt`), the server's nonce and the replay cache.

use super::key::{name, proof_key};
use base64::Engine as _;
use jsonwebtoken::{Algorithm, AlgorithmFamily};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Longest `DPoP` header read.
pub(super) const MAX_PROOF_BYTES: usize = 8 * 1024;

/// Longest `jti` taken (RFC 9449 asks for 96 random bits at least: 16 base64url characters).
const MAX_JTI_BYTES: usize = 256;

/// What the request a proof came with is: the method, the normalized public URL of the
/// endpoint, the access token, and the time.
pub(super) struct Expected<'a> {
    pub(super) method: &'a str,
    pub(super) htu: &'a str,
    pub(super) token: &'a str,
    pub(super) now: u64,
    /// Seconds `iat` may be away from `now`.
    pub(super) window: u64,
}

/// A proof whose signature and claims passed.
pub(super) struct Checked {
    /// The thumbprint of the proof's key.
    pub(super) jkt: String,
    pub(super) jti: String,
    pub(super) iat: u64,
    pub(super) nonce: Option<String>,
}

fn decode_part(part: &str, what: &str) -> Result<Map<String, Value>, String> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| format!("the proof's {what} is not base64url"))?;
    match crate::json::from_bytes(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(format!("the proof's {what} is not a JSON object")),
    }
}

/// A string claim, required.
fn string<'a>(claims: &'a Map<String, Value>, name: &str) -> Result<&'a str, String> {
    match claims.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(format!("the proof's `{name}` claim is not a string")),
        None => Err(format!("the proof has no `{name}` claim")),
    }
}

/// The algorithm the proof's header names, when it is one of `allowed`.
fn algorithm(header: &Map<String, Value>, allowed: &[Algorithm]) -> Result<Algorithm, String> {
    let alg = match header.get("alg") {
        Some(Value::String(alg)) => alg.as_str(),
        Some(_) => return Err("the proof's `alg` is not a string".to_owned()),
        None => return Err("the proof's header has no `alg`".to_owned()),
    };
    if alg.eq_ignore_ascii_case("none") {
        return Err("an unsigned proof (`alg: none`) is not accepted".to_owned());
    }
    let parsed: Option<Algorithm> = alg.parse().ok();
    if parsed.is_some_and(|a| a.family() == AlgorithmFamily::Hmac) || alg.starts_with("HS") {
        return Err(
            "a proof signed with a symmetric algorithm (HMAC) is not accepted: DPoP needs an \
             asymmetric one"
                .to_owned(),
        );
    }
    match parsed {
        Some(a) if allowed.contains(&a) => Ok(a),
        _ => Err(format!(
            "the proof's algorithm is not accepted (accepted: {})",
            allowed
                .iter()
                .map(|a| name(*a))
                .collect::<Vec<_>>()
                .join(" ")
        )),
    }
}

/// base64url(SHA-256(token)): a proof's `ath` for `token`.
pub(super) fn token_hash(token: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// Checks `proof` (the `DPoP` header's value) for the request `expected` describes: its form,
/// header (`typ`, `alg` among `allowed`, a public `jwk`), signature, and claims (`jti`, `htm`,
/// `htu`, `iat`, `ath`). Never quotes the proof in what it says.
pub(super) fn check(
    proof: &str,
    allowed: &[Algorithm],
    expected: &Expected<'_>,
) -> Result<Checked, String> {
    if proof.len() > MAX_PROOF_BYTES {
        return Err(format!(
            "the DPoP proof is longer than {MAX_PROOF_BYTES} bytes"
        ));
    }
    let mut parts = proof.split('.');
    let (Some(head), Some(body), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("the DPoP proof is not a JWT (three base64url parts)".to_owned());
    };
    let header = decode_part(head, "header")?;
    match header.get("typ").and_then(Value::as_str) {
        Some(typ)
            if typ.eq_ignore_ascii_case("dpop+jwt")
                || typ.eq_ignore_ascii_case("application/dpop+jwt") => {}
        Some(_) => return Err("the proof's `typ` is not `dpop+jwt`".to_owned()),
        None => return Err("the proof's header has no `typ` (`dpop+jwt`)".to_owned()),
    }
    let alg = algorithm(&header, allowed)?;
    if header.contains_key("crit") {
        return Err(
            "the proof names critical header parameters (`crit`) this server does not \
                    know"
                .to_owned(),
        );
    }
    let Some(jwk) = header.get("jwk") else {
        return Err("the proof's header has no `jwk` (the public key)".to_owned());
    };
    let key = proof_key(jwk, alg)?;
    let signed = &proof[..head.len() + 1 + body.len()];
    match jsonwebtoken::crypto::verify(signature, signed.as_bytes(), &key.decoding, alg) {
        Ok(true) => {}
        _ => return Err("the proof's signature does not verify with its jwk".to_owned()),
    }
    let claims = decode_part(body, "payload")?;
    let jti = string(&claims, "jti")?;
    if jti.is_empty() || jti.len() > MAX_JTI_BYTES {
        return Err(format!(
            "the proof's `jti` must have 1 to {MAX_JTI_BYTES} bytes"
        ));
    }
    if string(&claims, "htm")? != expected.method {
        return Err(format!(
            "the proof's `htm` is not this request's method ({})",
            expected.method
        ));
    }
    let htu = string(&claims, "htu")?;
    if super::htu::normalize(htu).as_deref() != Some(expected.htu) {
        return Err(format!(
            "the proof's `htu` is not this endpoint's URL ({})",
            expected.htu
        ));
    }
    let iat = match claims.get("iat") {
        Some(Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
            (Some(secs), _) => secs,
            (None, Some(secs)) if secs >= 0.0 => secs as u64,
            _ => return Err("the proof's `iat` is not a time".to_owned()),
        },
        Some(_) => return Err("the proof's `iat` is not a number".to_owned()),
        None => return Err("the proof has no `iat` claim".to_owned()),
    };
    if iat.abs_diff(expected.now) > expected.window {
        return Err(format!(
            "the proof's `iat` is more than {} s away from this server's time",
            expected.window
        ));
    }
    if string(&claims, "ath")? != token_hash(expected.token) {
        return Err(
            "the proof's `ath` is not the hash of the access token sent with it".to_owned(),
        );
    }
    let nonce = match claims.get("nonce") {
        None => None,
        Some(Value::String(n)) => Some(n.clone()),
        Some(_) => return Err("the proof's `nonce` claim is not a string".to_owned()),
    };
    Ok(Checked {
        jkt: key.thumbprint,
        jti: jti.to_owned(),
        iat,
        nonce,
    })
}
