//! The settings: the server nonce, the replay cache, DPoP required, the metadata, and what
//! cannot be built.

use super::support::*;

#[tokio::test]
async fn with_nonces_a_proof_needs_the_servers_nonce() {
    let s = setup(Dpop::allowed().nonce(KeyRing::new(&[[9; 32]]).unwrap())).await;
    let token = s.token();
    // No nonce: use_dpop_nonce, and the nonce to use.
    let resp = call_dpop(&s, &token, &[&s.proof(&token)]).await;
    assert_refused(&s, &resp, "use_dpop_nonce", &[&token]);
    let nonce = resp
        .header("dpop-nonce")
        .expect("a DPoP-Nonce header")
        .to_owned();
    // The retry with it is accepted (and the nonce serves for a while).
    for _ in 0..2 {
        let proof = s
            .draft(&token)
            .claim("nonce", json!(nonce))
            .signed_by(&s.key);
        let resp = call_dpop(&s, &token, &[&proof]).await;
        assert_eq!(
            resp.status,
            StatusCode::OK,
            "{}",
            String::from_utf8_lossy(&resp.body)
        );
        assert_eq!(text_of(&resp), "alice");
    }
    // A wrong nonce, or another server's: refused, with a fresh one.
    let other = KeyRing::new(&[[8; 32]]).unwrap().seal(b"whatever").unwrap();
    for wrong in ["wrong-nonce", other.as_str()] {
        let proof = s
            .draft(&token)
            .claim("nonce", json!(wrong))
            .signed_by(&s.key);
        let resp = call_dpop(&s, &token, &[&proof]).await;
        assert_refused(&s, &resp, "use_dpop_nonce", &[&token, &proof]);
        assert!(resp.header("dpop-nonce").is_some());
    }
    // A request without any token learns the nonce at once.
    let resp = post(&s.url, &headers_for(&whoami()), whoami().to_string()).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert!(resp.header("dpop-nonce").is_some());
}

#[tokio::test]
async fn with_the_replay_cache_a_proof_serves_once() {
    let s = setup(Dpop::allowed().replay_cache(1_000)).await;
    let token = s.token();
    let proof = s.proof(&token);
    assert_eq!(
        call_dpop(&s, &token, &[&proof]).await.status,
        StatusCode::OK
    );
    let resp = call_dpop(&s, &token, &[&proof]).await;
    let why = assert_refused(&s, &resp, "invalid_dpop_proof", &[&token, &proof]);
    assert!(why.contains("used already"), "{why}");
    // A refused proof was not remembered: its jti may come again, in a valid proof.
    let jti = fresh_jti();
    let bad = s
        .draft(&token)
        .claim("jti", json!(jti))
        .claim("htm", json!("GET"))
        .signed_by(&s.key);
    assert_eq!(
        call_dpop(&s, &token, &[&bad]).await.status,
        StatusCode::UNAUTHORIZED
    );
    let good = s.draft(&token).claim("jti", json!(jti)).signed_by(&s.key);
    assert_eq!(call_dpop(&s, &token, &[&good]).await.status, StatusCode::OK);
}

/// Two instances behind one public URL, sharing a replay cache in Redis: a proof accepted by
/// one is refused by the other.
#[cfg(feature = "redis")]
#[tokio::test]
async fn instances_sharing_a_replay_cache_in_redis_take_a_proof_once() {
    use mcp_runtime::redis::Redis;
    let redis = super::common::engines::RedisServer::start();
    let shared = |r: Redis| Dpop::allowed().shared_replay_cache(r.dpop_replay_cache());
    let a = setup(shared(Redis::connect(&redis.url()).await.unwrap())).await;
    // The second instance: the same resource, the same public URL, another port.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let b_url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let dpop = shared(Redis::connect(&redis.url()).await.unwrap()).public_url(&a.url);
    let rs = ResourceServer::new(&a.url, ISSUER, a.issuer.verifier())
        .unwrap()
        .dpop(dpop)
        .unwrap();
    let b = tokio::spawn(server().serve(listener, HttpOptions::default().auth(rs)));
    let token = a.token();
    let proof = a.proof(&token);
    assert_eq!(
        call_dpop(&a, &token, &[&proof]).await.status,
        StatusCode::OK
    );
    let replayed = post_with(&b_url, &whoami(), "DPoP", &token, &[&proof]).await;
    let why = assert_refused(&a, &replayed, "invalid_dpop_proof", &[&token]);
    assert!(why.contains("used already"), "{why}");
    // A fresh proof passes on the other instance.
    let fresh = a.proof(&token);
    let resp = post_with(&b_url, &whoami(), "DPoP", &token, &[&fresh]).await;
    assert_eq!(text_of(&resp), "alice");
    b.abort();
}

#[tokio::test]
async fn required_dpop_refuses_every_bearer_token() {
    let s = setup(Dpop::required()).await;
    let plain = s.issuer.token("bob", &["docs:read"]);
    let resp = post_with(&s.url, &whoami(), "Bearer", &plain, &[]).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert!(challenge(&resp, "Bearer").is_none(), "no Bearer challenge");
    let dpop = challenge(&resp, "DPoP").unwrap();
    assert_eq!(dpop["error"], "invalid_token");
    assert_says_nothing_of(&resp, &[&plain]);
    // Without a token: the DPoP challenge alone, naming the metadata and the scopes.
    let resp = post(&s.url, &headers_for(&whoami()), whoami().to_string()).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(resp.headers.get_all("www-authenticate").iter().count(), 1);
    let dpop = challenge(&resp, "DPoP").unwrap();
    assert!(!dpop.contains_key("error"));
    assert_eq!(dpop["scope"], "docs:read");
    assert!(dpop["resource_metadata"].ends_with("/.well-known/oauth-protected-resource/mcp"));
    // A bound token with its proof gets in.
    let token = s.token();
    let resp = call_dpop(&s, &token, &[&s.proof(&token)]).await;
    assert_eq!(text_of(&resp), "alice");
}

#[tokio::test]
async fn bearer_clients_keep_their_challenge() {
    let s = setup(Dpop::allowed()).await;
    let resp = post(&s.url, &headers_for(&whoami()), whoami().to_string()).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    // The Bearer challenge comes first (a client reading one header finds it), the DPoP one
    // after it.
    let first = resp.header("www-authenticate").unwrap();
    assert!(first.starts_with("Bearer resource_metadata=\""), "{first}");
    let bearer = challenge(&resp, "Bearer").unwrap();
    let dpop = challenge(&resp, "DPoP").unwrap();
    assert_eq!(bearer["resource_metadata"], dpop["resource_metadata"]);
    assert_eq!(bearer["scope"], "docs:read");
    assert_eq!(
        dpop["algs"],
        "ES256 ES384 EdDSA PS256 PS384 PS512 RS256 RS384 RS512"
    );
}

#[tokio::test]
async fn the_metadata_names_the_algorithms_and_whether_dpop_is_required() {
    let allowed = setup(Dpop::allowed().algorithms([Algorithm::ES256, Algorithm::EdDSA])).await;
    let required = setup(Dpop::required()).await;
    for (s, is_required) in [(&allowed, false), (&required, true)] {
        let url = format!("{}/.well-known/oauth-protected-resource/mcp", s.base);
        let resp = send(Method::GET, &url, &[], Vec::new()).await;
        assert_eq!(resp.status, StatusCode::OK);
        let doc: Value = serde_json::from_slice(&resp.body).unwrap();
        assert_eq!(doc["resource"], s.url);
        let algs = doc["dpop_signing_alg_values_supported"].as_array().unwrap();
        assert!(algs.iter().any(|a| a == "ES256"), "{doc}");
        assert!(
            !algs
                .iter()
                .any(|a| a == "none" || a.as_str().unwrap().starts_with("HS"))
        );
        match is_required {
            true => assert_eq!(doc["dpop_bound_access_tokens_required"], true),
            false => assert!(
                doc.get("dpop_bound_access_tokens_required").is_none(),
                "{doc}"
            ),
        }
    }
    let url = format!("{}/.well-known/oauth-protected-resource/mcp", allowed.base);
    let doc: Value =
        serde_json::from_slice(&send(Method::GET, &url, &[], Vec::new()).await.body).unwrap();
    assert_eq!(
        doc["dpop_signing_alg_values_supported"],
        json!(["ES256", "EdDSA"])
    );
    // The challenge names the same list; a proof of an algorithm left out is refused.
    let token = allowed.token();
    let resp = call_dpop(&allowed, &token, &[]).await;
    assert_eq!(challenge(&resp, "DPoP").unwrap()["algs"], "ES256 EdDSA");
}

#[tokio::test]
async fn settings_that_cannot_work_are_refused_at_build() {
    let issuer = TestIssuer::new(ISSUER, "https://mcp.example.com/mcp");
    let rs =
        || ResourceServer::new("https://mcp.example.com/mcp", ISSUER, issuer.verifier()).unwrap();
    for bad in [
        Dpop::allowed().algorithms([Algorithm::HS256]),
        Dpop::allowed().algorithms([]),
        Dpop::allowed().iat_window(std::time::Duration::ZERO),
        Dpop::allowed().iat_window(std::time::Duration::from_secs(3600)),
        Dpop::allowed().public_url("http://mcp.example.com/mcp"),
        Dpop::allowed().public_url("not a url"),
        Dpop::required()
            .nonce(KeyRing::new(&[[1; 32]]).unwrap())
            .nonce_lifetime(std::time::Duration::ZERO),
    ] {
        let shown = format!("{bad:?}");
        assert!(rs().dpop(bad).is_err(), "{shown}");
    }
    // A public URL of its own: what proofs must name instead of the resource URI.
    assert!(
        rs().dpop(Dpop::allowed().public_url("https://edge.example.com/mcp"))
            .is_ok()
    );
}
