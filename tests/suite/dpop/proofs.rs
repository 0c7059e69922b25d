//! Refused proofs: the cases of the conformance suite's DPoP server scenario, each a 401
//! with a `DPoP` challenge.

use super::support::*;

#[tokio::test]
async fn a_tampered_signature_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let proof = s.proof(&token);
    let (signed, signature) = proof.rsplit_once('.').unwrap();
    // Another valid base64url signature of the same length: one character changed.
    let mut bytes = signature.as_bytes().to_vec();
    bytes[10] = if bytes[10] == b'A' { b'B' } else { b'A' };
    let tampered = format!("{signed}.{}", String::from_utf8(bytes).unwrap());
    refused_proof(&s, &token, &tampered, "signature").await;
    // A claim changed after signing: the signature no longer covers it.
    let other_claims = b64(json!({"jti": "x", "htm": "POST", "htu": s.url,
        "iat": now(), "ath": ath(&token)})
    .to_string());
    let mut parts: Vec<&str> = proof.split('.').collect();
    parts[1] = &other_claims;
    refused_proof(&s, &token, &parts.join("."), "signature").await;
}

#[tokio::test]
async fn a_proof_without_jti_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let proof = s.draft(&token).claim("jti", Value::Null).signed_by(&s.key);
    refused_proof(&s, &token, &proof, "jti").await;
    let long = s
        .draft(&token)
        .claim("jti", json!("j".repeat(300)))
        .signed_by(&s.key);
    refused_proof(&s, &token, &long, "jti").await;
}

#[tokio::test]
async fn a_proof_of_another_typ_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    for typ in [json!("JWT"), json!("at+jwt"), Value::Null] {
        let proof = s.draft(&token).header("typ", typ).signed_by(&s.key);
        refused_proof(&s, &token, &proof, "typ").await;
    }
}

#[tokio::test]
async fn a_proof_for_another_url_is_refused_and_the_url_is_compared_normalized() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let other = format!("{}/other", s.base);
    for htu in [other.as_str(), "https://evil.example.com/mcp"] {
        let proof = s.draft(&token).claim("htu", json!(htu)).signed_by(&s.key);
        refused_proof(&s, &token, &proof, "htu").await;
    }
    // The query and the fragment are not compared, nor the host's case.
    let normalized = format!("{}?session=1#top", s.url.replace("http://", "HTTP://"));
    let proof = s
        .draft(&token)
        .claim("htu", json!(normalized))
        .signed_by(&s.key);
    let resp = call_dpop(&s, &token, &[&proof]).await;
    assert_eq!(resp.status, StatusCode::OK);
}

#[tokio::test]
async fn a_proof_for_another_method_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    for htm in ["GET", "post", "DELETE"] {
        let proof = s.draft(&token).claim("htm", json!(htm)).signed_by(&s.key);
        refused_proof(&s, &token, &proof, "htm").await;
    }
}

#[tokio::test]
async fn a_private_key_in_jwk_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let mut jwk = s.key.jwk.clone();
    // Any value: the member alone is refused (no private key is ever sent anywhere).
    jwk["d"] = json!(b64([7u8; 32]));
    let proof = s.draft(&token).header("jwk", jwk).signed_by(&s.key);
    refused_proof(&s, &token, &proof, "private").await;
}

#[tokio::test]
async fn a_wrong_or_absent_ath_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let wrong = s
        .draft(&token)
        .claim("ath", json!(ath("another token")))
        .signed_by(&s.key);
    refused_proof(&s, &token, &wrong, "ath").await;
    let absent = s.draft(&token).claim("ath", Value::Null).signed_by(&s.key);
    refused_proof(&s, &token, &absent, "ath").await;
}

#[tokio::test]
async fn a_proof_missing_htm_htu_iat_or_jwk_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    for claim in ["htm", "htu", "iat"] {
        let proof = s.draft(&token).claim(claim, Value::Null).signed_by(&s.key);
        refused_proof(&s, &token, &proof, claim).await;
    }
    let proof = s.draft(&token).header("jwk", Value::Null).signed_by(&s.key);
    refused_proof(&s, &token, &proof, "jwk").await;
}

#[tokio::test]
async fn two_dpop_headers_or_none_are_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let (a, b) = (s.proof(&token), s.proof(&token));
    let resp = call_dpop(&s, &token, &[&a, &b]).await;
    let why = assert_refused(&s, &resp, "invalid_dpop_proof", &[&token, &a, &b]);
    assert!(why.contains("exactly one"), "{why}");
    let resp = call_dpop(&s, &token, &[]).await;
    assert_refused(&s, &resp, "invalid_dpop_proof", &[&token]);
}

#[tokio::test]
async fn a_proof_that_is_no_jwt_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    for junk in ["not-a-jwt", "a.b", "a.b.c.d", "e30.e30.", "!!!.???.###"] {
        refused_proof(&s, &token, junk, "proof").await;
    }
    // Longer than 8 KiB: refused before anything is decoded.
    let big = s
        .draft(&token)
        .claim("pad", json!("p".repeat(9000)))
        .signed_by(&s.key);
    refused_proof(&s, &token, &big, "longer").await;
}

#[tokio::test]
async fn a_proof_of_another_key_than_the_tokens_is_refused() {
    let s = setup(Dpop::allowed()).await;
    // The token is bound to another key; the proof is signed (validly) by the client's own.
    let other = ClientKey::new();
    let token = s.issuer.bound_token("alice", &[], &other.jkt);
    let proof = s.proof(&token);
    refused_proof(&s, &token, &proof, "cnf.jkt").await;
    // The holder of the other key gets in.
    let theirs = s
        .draft(&token)
        .header("jwk", other.jwk.clone())
        .signed_by(&other);
    assert_eq!(
        call_dpop(&s, &token, &[&theirs]).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_bound_token_sent_as_bearer_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let resp = post_with(&s.url, &whoami(), "Bearer", &token, &[]).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    let bearer = challenge(&resp, "Bearer").unwrap();
    assert_eq!(bearer["error"], "invalid_token");
    assert!(bearer["error_description"].contains("DPoP"), "{bearer:?}");
    assert_says_nothing_of(&resp, &[&token]);
    // Even with a valid proof beside it: the scheme decides.
    let resp = post_with(&s.url, &whoami(), "Bearer", &token, &[&s.proof(&token)]).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    // An unbound token is still taken as Bearer (Bearer clients keep working) ...
    let plain = s.issuer.token("bob", &["docs:read"]);
    let resp = post_with(&s.url, &whoami(), "Bearer", &plain, &[]).await;
    assert_eq!(text_of(&resp), "bob");
    // ... and refused as DPoP: it is bound to no key.
    let resp = call_dpop(&s, &plain, &[&s.proof(&plain)]).await;
    let why = assert_refused(&s, &resp, "invalid_token", &[&plain]);
    assert!(why.contains("cnf.jkt"), "{why}");
}

#[tokio::test]
async fn iat_303_seconds_away_either_way_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    for offset in [303, -303, 100_000, -100_000] {
        let proof = s
            .draft(&token)
            .claim("iat", json!(now() + offset))
            .signed_by(&s.key);
        refused_proof(&s, &token, &proof, "iat").await;
    }
    for not_a_time in [json!("now"), json!(-5)] {
        let proof = s.draft(&token).claim("iat", not_a_time).signed_by(&s.key);
        refused_proof(&s, &token, &proof, "iat").await;
    }
    // Well inside the window: accepted.
    for offset in [-200, 200] {
        let proof = s
            .draft(&token)
            .claim("iat", json!(now() + offset))
            .signed_by(&s.key);
        assert_eq!(
            call_dpop(&s, &token, &[&proof]).await.status,
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn alg_none_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let draft = s.draft(&token).header("alg", json!("none"));
    let unsigned = format!(
        "{}.{}.",
        b64(draft.header.to_string()),
        b64(draft.claims.to_string())
    );
    refused_proof(&s, &token, &unsigned, "none").await;
}

#[tokio::test]
async fn a_symmetric_algorithm_is_refused() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    for alg in [Algorithm::HS256, Algorithm::HS512] {
        let name = format!("{alg:?}");
        let draft = s.draft(&token).header("alg", json!(name));
        let signing_input = format!(
            "{}.{}",
            b64(draft.header.to_string()),
            b64(draft.claims.to_string())
        );
        // Keyed with the public key's bytes, the classic confusion.
        let key = EncodingKey::from_secret(s.key.jwk.to_string().as_bytes()).unwrap();
        let signature = jsonwebtoken::crypto::sign(signing_input.as_bytes(), &key, alg).unwrap();
        let proof = format!("{signing_input}.{signature}");
        refused_proof(&s, &token, &proof, "symmetric").await;
    }
    // An algorithm that is not on the list: ES384 with a P-256 key.
    let proof = s
        .draft(&token)
        .header("alg", json!("ES384"))
        .signed_by(&s.key);
    refused_proof(&s, &token, &proof, "curve").await;
}

#[tokio::test]
async fn a_token_for_another_audience_is_refused_under_dpop() {
    let s = setup(Dpop::allowed()).await;
    let token = s.issuer.token_with(json!({
        "aud": "https://other.example.com/mcp",
        "cnf": {"jkt": s.key.jkt},
    }));
    let resp = call_dpop(&s, &token, &[&s.proof(&token)]).await;
    let why = assert_refused(&s, &resp, "invalid_token", &[&token]);
    assert!(why.contains("aud"), "{why}");
    // An expired one too.
    let old = s.issuer.token_with(json!({
        "iat": now() - 7200, "exp": now() - 3600, "cnf": {"jkt": s.key.jkt},
    }));
    let resp = call_dpop(&s, &old, &[&s.proof(&old)]).await;
    assert_refused(&s, &resp, "invalid_token", &[&old]);
}
