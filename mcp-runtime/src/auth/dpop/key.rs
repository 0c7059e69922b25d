//! The public key of a DPoP proof (its `jwk` header): checked to be a public key that fits the
//! proof's algorithm, turned into a verification key, and its RFC 7638 thumbprint.

use base64::Engine as _;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Members of a JWK that belong to a private (or a symmetric) key (RFC 7518 §6.2.2, §6.3.2,
/// §6.4.1, RFC 8037 §2).
const PRIVATE_MEMBERS: [&str; 8] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/// Bounds of an RSA modulus, in bits: below 2048 is too weak (RFC 7518 §3.3), above 4096 costs
/// too much to check for every request.
const RSA_BITS: std::ops::RangeInclusive<usize> = 2048..=4096;

/// The verification key of a proof and its thumbprint.
pub(super) struct ProofKey {
    pub(super) decoding: DecodingKey,
    /// The RFC 7638 SHA-256 thumbprint, base64url: what a bound token's `cnf.jkt` names.
    pub(super) thumbprint: String,
}

fn b64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The bytes of a base64url member (no padding, canonical), or why not.
fn member(jwk: &Map<String, Value>, name: &str) -> Result<Vec<u8>, String> {
    let text = jwk
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the proof's jwk has no `{name}` string"))?;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|_| format!("the proof's jwk member `{name}` is not base64url"))
}

/// The text of a member: what the thumbprint is made of.
fn text<'a>(jwk: &'a Map<String, Value>, name: &str) -> &'a str {
    jwk.get(name).and_then(Value::as_str).unwrap_or_default()
}

/// The key of a proof signed with `alg`: a public JWK of the algorithm's family and curve.
pub(super) fn proof_key(jwk: &Value, alg: Algorithm) -> Result<ProofKey, String> {
    let Value::Object(jwk) = jwk else {
        return Err("the proof's jwk is not a JSON object".to_owned());
    };
    if let Some(private) = PRIVATE_MEMBERS.iter().find(|m| jwk.contains_key(**m)) {
        return Err(format!(
            "the proof's jwk holds a private key member (`{private}`): it must be the public key \
             only"
        ));
    }
    if let Some(declared) = jwk.get("alg")
        && declared.as_str() != Some(name(alg).as_str())
    {
        return Err("the proof's jwk declares another algorithm than the proof's `alg`".to_owned());
    }
    let kty = jwk.get("kty").and_then(Value::as_str).unwrap_or_default();
    let (decoding, canonical) = match (kty, alg.family()) {
        ("EC", AlgorithmFamily::Ec) => ec_key(jwk, alg)?,
        ("RSA", AlgorithmFamily::Rsa) => rsa_key(jwk)?,
        ("OKP", AlgorithmFamily::Ed) => ed_key(jwk)?,
        ("EC" | "RSA" | "OKP", _) => {
            return Err(format!(
                "the proof's jwk is an {kty} key, which cannot verify {}",
                name(alg)
            ));
        }
        _ => {
            return Err(
                "the proof's jwk has no supported key type (`kty`: EC, RSA or OKP)".to_owned(),
            );
        }
    };
    Ok(ProofKey {
        decoding,
        thumbprint: b64url(&Sha256::digest(canonical.as_bytes())),
    })
}

/// The JWA name of an algorithm (`ES256`, …).
pub(super) fn name(alg: Algorithm) -> String {
    match serde_json::to_value(alg) {
        Ok(Value::String(s)) => s,
        _ => format!("{alg:?}"),
    }
}

/// The members of the RFC 7638 thumbprint, in lexicographic order, as one JSON object without
/// whitespace (every value a base64url or a fixed string: nothing to escape, but each is still
/// written as JSON).
fn canonical(members: &[(&str, &str)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::from(*k).to_string());
        out.push(':');
        out.push_str(&Value::from(*v).to_string());
    }
    out.push('}');
    out
}

fn ec_key(jwk: &Map<String, Value>, alg: Algorithm) -> Result<(DecodingKey, String), String> {
    let crv = text(jwk, "crv");
    let size = match (crv, alg) {
        ("P-256", Algorithm::ES256) => 32,
        ("P-384", Algorithm::ES384) => 48,
        _ => {
            return Err(format!(
                "the proof's jwk curve does not fit {} (P-256 for ES256, P-384 for ES384)",
                name(alg)
            ));
        }
    };
    let (x, y) = (member(jwk, "x")?, member(jwk, "y")?);
    if x.len() != size || y.len() != size {
        return Err("the proof's jwk coordinates have the wrong length for its curve".to_owned());
    }
    let mut point = Vec::with_capacity(1 + 2 * size);
    point.push(0x04);
    point.extend_from_slice(&x);
    point.extend_from_slice(&y);
    let canonical = canonical(&[
        ("crv", crv),
        ("kty", "EC"),
        ("x", text(jwk, "x")),
        ("y", text(jwk, "y")),
    ]);
    Ok((DecodingKey::from_ec_der(&point), canonical))
}

fn rsa_key(jwk: &Map<String, Value>) -> Result<(DecodingKey, String), String> {
    let (n, e) = (member(jwk, "n")?, member(jwk, "e")?);
    let n_trimmed = &n[n.iter().take_while(|&&b| b == 0).count()..];
    let bits = n_trimmed
        .first()
        .map_or(0, |b| n_trimmed.len() * 8 - b.leading_zeros() as usize);
    if !RSA_BITS.contains(&bits) {
        return Err(format!(
            "the proof's RSA key has {bits} bits; {} to {} are accepted",
            RSA_BITS.start(),
            RSA_BITS.end()
        ));
    }
    // A public exponent is small (65537 in practice): a long one would make every check slow.
    let e_trimmed = &e[e.iter().take_while(|&&b| b == 0).count()..];
    if e_trimmed.is_empty() || e_trimmed.len() > 4 || e_trimmed[e_trimmed.len() - 1] & 1 == 0 {
        return Err("the proof's RSA public exponent is not a small odd number".to_owned());
    }
    let canonical = canonical(&[("e", text(jwk, "e")), ("kty", "RSA"), ("n", text(jwk, "n"))]);
    Ok((
        DecodingKey::from_rsa_raw_components(n_trimmed, e_trimmed),
        canonical,
    ))
}

fn ed_key(jwk: &Map<String, Value>) -> Result<(DecodingKey, String), String> {
    if text(jwk, "crv") != "Ed25519" {
        return Err("the proof's OKP key is not an Ed25519 key".to_owned());
    }
    let x = member(jwk, "x")?;
    if x.len() != 32 {
        return Err("the proof's Ed25519 key is not 32 bytes".to_owned());
    }
    let canonical = canonical(&[("crv", "Ed25519"), ("kty", "OKP"), ("x", text(jwk, "x"))]);
    Ok((DecodingKey::from_ed_der(&x), canonical))
}

/// The RFC 7638 SHA-256 thumbprint of a public JWK (EC P-256 or P-384, RSA, or Ed25519), in
/// base64url: what a DPoP-bound access token names in `cnf.jkt`, and what an authorization
/// server computes from the proof its client sent. Private members and other key types are
/// refused.
///
/// ```
/// use mcp_runtime::auth::dpop::jwk_thumbprint;
/// use serde_json::json;
/// // The example key of RFC 7638 §3.1.
/// let jwk = json!({
///     "kty": "RSA",
///     "e": "AQAB",
///     "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
/// });
/// assert_eq!(
///     jwk_thumbprint(&jwk).unwrap(),
///     "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
/// );
/// assert!(jwk_thumbprint(&json!({"kty": "oct", "k": "c2VjcmV0"})).is_err());
/// ```
pub fn jwk_thumbprint(jwk: &Value) -> Result<String, String> {
    let alg = match (
        jwk.get("kty").and_then(Value::as_str),
        jwk.get("crv").and_then(Value::as_str),
    ) {
        (Some("EC"), Some("P-384")) => Algorithm::ES384,
        (Some("EC"), _) => Algorithm::ES256,
        (Some("OKP"), _) => Algorithm::EdDSA,
        (Some("RSA"), _) => Algorithm::RS256,
        _ => return Err("not a public EC, RSA or OKP key".to_owned()),
    };
    let mut public = jwk.clone();
    if let Value::Object(m) = &mut public {
        // The key's own `alg` does not enter the thumbprint, nor is it checked here.
        m.remove("alg");
    }
    proof_key(&public, alg).map(|k| k.thumbprint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ec(extra: Value) -> Value {
        let mut jwk = json!({
            "kty": "EC", "crv": "P-256",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
        });
        for (k, v) in extra.as_object().unwrap() {
            jwk[k] = v.clone();
        }
        jwk
    }

    #[test]
    fn public_keys_only_of_the_proofs_algorithm() {
        let key = proof_key(&ec(json!({})), Algorithm::ES256).unwrap();
        // The thumbprint of RFC 7638's canonical form, computed independently.
        let expected = b64url(&Sha256::digest(
            br#"{"crv":"P-256","kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#,
        ));
        assert_eq!(key.thumbprint, expected);
        // Extra members change nothing.
        let with_kid = proof_key(&ec(json!({"kid": "k", "use": "sig"})), Algorithm::ES256);
        assert_eq!(with_kid.unwrap().thumbprint, expected);
        for member in PRIVATE_MEMBERS {
            let Err(why) = proof_key(&ec(json!({ member: "AAAA" })), Algorithm::ES256) else {
                panic!("`{member}` accepted");
            };
            assert!(why.contains("private"), "{why}");
        }
        let refused = [
            (ec(json!({})), Algorithm::ES384),
            (ec(json!({})), Algorithm::RS256),
            (ec(json!({"alg": "ES384"})), Algorithm::ES256),
            (ec(json!({"x": "AAAA"})), Algorithm::ES256),
            (
                ec(json!({"x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU="})),
                Algorithm::ES256,
            ),
            (ec(json!({"kty": "oct"})), Algorithm::ES256),
            (json!("a string"), Algorithm::ES256),
            (
                json!({"kty": "OKP", "crv": "X25519", "x": b64url(&[1; 32])}),
                Algorithm::EdDSA,
            ),
            (
                json!({"kty": "RSA", "n": b64url(&[0xff; 128]), "e": "AQAB"}),
                Algorithm::RS256,
            ),
            (
                json!({"kty": "RSA", "n": b64url(&[0xff; 1024]), "e": "AQAB"}),
                Algorithm::RS256,
            ),
            (
                json!({"kty": "RSA", "n": b64url(&[0xff; 256]), "e": b64url(&[1; 64])}),
                Algorithm::RS256,
            ),
            (
                json!({"kty": "RSA", "n": b64url(&[0xff; 256]), "e": "AQAA"}),
                Algorithm::RS256,
            ),
        ];
        for (jwk, alg) in refused {
            assert!(proof_key(&jwk, alg).is_err(), "{jwk} {alg:?}");
        }
        assert!(
            proof_key(
                &json!({"kty": "RSA", "n": b64url(&[0xff; 256]), "e": "AQAB"}),
                Algorithm::PS256
            )
            .is_ok()
        );
        assert!(
            proof_key(
                &json!({"kty": "OKP", "crv": "Ed25519", "x": b64url(&[1; 32])}),
                Algorithm::EdDSA
            )
            .is_ok()
        );
    }
}
