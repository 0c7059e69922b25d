//! The proof checks end to end, with Ed25519 proofs made here: what passes, what each broken
//! proof is told, the binding to the token, the nonce and the replay cache.

use super::proof::token_hash;
use super::*;
use base64::Engine as _;
use http::{HeaderMap, HeaderValue};
use jsonwebtoken::EncodingKey;
use jsonwebtoken::jwk::Jwk;
use serde_json::json;

const URL: &str = "https://mcp.example.com/mcp";
const TOKEN: &str = "a.b.c";

/// The PKCS#8 (v1) wrapping of an Ed25519 seed.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// A change made to a valid proof's header and claims before it is signed.
type Edit = Box<dyn FnOnce(&mut Value, &mut Value)>;

struct Key {
    key: EncodingKey,
    jwk: Value,
}

fn key(seed: u8) -> Key {
    let mut pkcs8 = ED25519_PKCS8_PREFIX.to_vec();
    pkcs8.extend_from_slice(&[seed; 32]);
    let key = EncodingKey::from_ed_der(&pkcs8);
    let mut jwk =
        serde_json::to_value(Jwk::from_encoding_key(&key, Algorithm::EdDSA).unwrap()).unwrap();
    jwk.as_object_mut().unwrap().remove("alg");
    Key { key, jwk }
}

fn b64(bytes: impl AsRef<[u8]>) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn sign(key: &Key, header: &Value, claims: &Value) -> String {
    let input = format!("{}.{}", b64(header.to_string()), b64(claims.to_string()));
    let signature = jsonwebtoken::crypto::sign(input.as_bytes(), &key.key, Algorithm::EdDSA);
    format!("{input}.{}", signature.unwrap())
}

/// A valid proof's header and claims, changed by `edit`, signed by `key`.
fn proof(key: &Key, edit: impl FnOnce(&mut Value, &mut Value)) -> String {
    let mut header = json!({"typ": "dpop+jwt", "alg": "EdDSA", "jwk": key.jwk});
    let mut claims = json!({
        "jti": "j-1", "htm": "POST", "htu": URL, "iat": now(), "ath": token_hash(TOKEN),
    });
    edit(&mut header, &mut claims);
    sign(key, &header, &claims)
}

fn headers(proofs: &[&str]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for p in proofs {
        h.append("dpop", HeaderValue::from_str(p).unwrap());
    }
    h
}

fn check(dpop: &DpopCheck, proof: &str) -> Result<Proof, DpopRefusal> {
    dpop.check_proof(&headers(&[proof]), "POST", TOKEN)
}

fn refusal(dpop: &DpopCheck, proof: &str) -> (DpopError, String) {
    match check(dpop, proof) {
        Ok(_) => panic!("accepted"),
        Err(r) => (r.error, r.description),
    }
}

fn bound(jkt: &str) -> Caller {
    Caller::new("alice").with_claim("cnf", json!({ "jkt": jkt }))
}

#[tokio::test]
async fn a_valid_proof_passes_and_each_broken_one_is_told_why() {
    let dpop = Dpop::allowed().build(URL).unwrap();
    let k = key(1);
    let jkt = jwk_thumbprint(&k.jwk).unwrap();
    let ok = check(&dpop, &proof(&k, |_, _| {})).unwrap();
    assert_eq!(ok.0.jkt, jkt);
    dpop.accept(ok, &bound(&jkt)).await.unwrap();
    let cases: Vec<(&str, Edit)> = vec![
        ("typ", Box::new(|h, _| h["typ"] = json!("JWT"))),
        ("none", Box::new(|h, _| h["alg"] = json!("none"))),
        ("symmetric", Box::new(|h, _| h["alg"] = json!("HS256"))),
        ("not accepted", Box::new(|h, _| h["alg"] = json!("ES512"))),
        ("crit", Box::new(|h, _| h["crit"] = json!(["exp"]))),
        ("private", Box::new(|h, _| h["jwk"]["d"] = json!("AAAA"))),
        ("jwk", Box::new(|h, _| h["jwk"] = json!(null))),
        ("jti", Box::new(|_, c| c["jti"] = json!(7))),
        ("jti", Box::new(|_, c| c["jti"] = json!(""))),
        ("htm", Box::new(|_, c| c["htm"] = json!("GET"))),
        (
            "htu",
            Box::new(|_, c| c["htu"] = json!("https://mcp.example.com/other")),
        ),
        ("iat", Box::new(|_, c| c["iat"] = json!(now() + 301))),
        ("iat", Box::new(|_, c| c["iat"] = json!(now() - 301))),
        (
            "ath",
            Box::new(|_, c| c["ath"] = json!(token_hash("other"))),
        ),
        ("nonce", Box::new(|_, c| c["nonce"] = json!(1))),
    ];
    for (mention, edit) in cases {
        let (error, why) = refusal(&dpop, &proof(&k, edit));
        assert_eq!(error, DpopError::InvalidProof, "{why}");
        assert!(why.contains(mention), "`{mention}` not in: {why}");
    }
    // At the edge of the window: accepted.
    let edge = proof(&k, |_, c| c["iat"] = json!(now() - 299));
    assert!(check(&dpop, &edge).is_ok());
    // Another key's proof for this token.
    let other = check(&dpop, &proof(&key(2), |_, _| {})).unwrap();
    let Err(r) = dpop.accept(other, &bound(&jkt)).await else {
        panic!("another key passed");
    };
    assert_eq!(r.error, DpopError::InvalidProof);
    // A token bound to nothing.
    let unbound = check(&dpop, &proof(&k, |_, _| {})).unwrap();
    let Err(r) = dpop.accept(unbound, &Caller::new("alice")).await else {
        panic!("an unbound token passed");
    };
    assert_eq!(r.error, DpopError::InvalidToken);
}

#[test]
fn the_dpop_header_is_one_bounded_jws() {
    let dpop = Dpop::allowed().build(URL).unwrap();
    let k = key(1);
    let p = proof(&k, |_, _| {});
    let two = dpop.check_proof(&headers(&[&p, &p]), "POST", TOKEN);
    assert!(two.is_err_and(|r| r.description.contains("exactly one")));
    let none = dpop.check_proof(&HeaderMap::new(), "POST", TOKEN);
    assert!(none.is_err_and(|r| r.description.contains("`DPoP` header")));
    let big = proof(&k, |_, c| c["pad"] = json!("x".repeat(8 * 1024)));
    assert!(refusal(&dpop, &big).1.contains("longer"));
    for junk in ["x", "x.y", "x.y.z.w", "e30.e30.e30", "..", "%%.%%.%%"] {
        assert_eq!(refusal(&dpop, junk).0, DpopError::InvalidProof, "{junk}");
    }
    // The signature covers the header and the claims.
    let (signed, _) = p.rsplit_once('.').unwrap();
    let resigned = proof(&k, |_, c| c["jti"] = json!("j-2"));
    let swapped = format!("{signed}.{}", resigned.rsplit('.').next().unwrap());
    assert!(refusal(&dpop, &swapped).1.contains("signature"));
}

#[tokio::test]
async fn nonces_and_the_replay_cache() {
    let keys = KeyRing::new(&[[3; 32]]).unwrap();
    let dpop = Dpop::allowed()
        .nonce(keys)
        .replay_cache(10)
        .build(URL)
        .unwrap();
    let k = key(1);
    let jkt = jwk_thumbprint(&k.jwk).unwrap();
    let (error, _) = refusal(&dpop, &proof(&k, |_, _| {}));
    assert_eq!(error, DpopError::UseNonce);
    let (error, _) = refusal(&dpop, &proof(&k, |_, c| c["nonce"] = json!("stale")));
    assert_eq!(error, DpopError::UseNonce);
    let nonce = dpop.fresh_nonce().unwrap();
    let with_nonce = proof(&k, |_, c| c["nonce"] = json!(nonce));
    let first = check(&dpop, &with_nonce).unwrap();
    dpop.accept(first, &bound(&jkt)).await.unwrap();
    let again = check(&dpop, &with_nonce).unwrap();
    let Err(r) = dpop.accept(again, &bound(&jkt)).await else {
        panic!("a replay passed");
    };
    assert!(r.description.contains("used already"), "{}", r.description);
}

#[test]
fn settings_are_checked_when_built() {
    assert!(
        Dpop::allowed()
            .algorithms([Algorithm::HS256])
            .build(URL)
            .is_err()
    );
    assert!(Dpop::allowed().algorithms([]).build(URL).is_err());
    assert!(
        Dpop::allowed()
            .iat_window(Duration::from_millis(500))
            .build(URL)
            .is_err()
    );
    assert!(
        Dpop::allowed()
            .iat_window(Duration::from_secs(601))
            .build(URL)
            .is_err()
    );
    assert!(
        Dpop::allowed()
            .public_url("ftp://x/mcp")
            .build(URL)
            .is_err()
    );
    let d = Dpop::required()
        .algorithms([
            Algorithm::ES256,
            Algorithm::ES256,
            Algorithm::EdDSA,
            Algorithm::ES256,
        ])
        .public_url("https://EDGE.example.com:443/mcp")
        .build(URL)
        .unwrap();
    assert!(d.required);
    assert_eq!(d.algs, "ES256 EdDSA");
    assert_eq!(d.htu, "https://edge.example.com/mcp");
}
