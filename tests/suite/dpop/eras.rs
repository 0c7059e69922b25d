//! A valid proof accepted, in both eras and with every kind of key.

use super::support::*;

#[tokio::test]
async fn a_valid_proof_is_accepted_in_the_2026_era() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let resp = call_dpop(&s, &token, &[&s.proof(&token)]).await;
    assert_eq!(
        resp.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&resp.body)
    );
    assert_eq!(text_of(&resp), "alice");
    // A scope the token grants works too; the scheme name is case-insensitive.
    let search = request(2, "tools/call", json!({"name": "search", "arguments": {}}));
    let resp = post_with(&s.url, &search, "dpop", &token, &[&s.proof(&token)]).await;
    assert_eq!(text_of(&resp), "found");
}

#[tokio::test]
async fn proofs_of_rsa_and_ed25519_keys_are_accepted() {
    let s = setup(Dpop::allowed()).await;
    for key in [
        ClientKey::rsa(Algorithm::PS256),
        ClientKey::rsa(Algorithm::RS256),
        ClientKey::rsa(Algorithm::PS512),
        ClientKey::ed25519(),
    ] {
        let token = s.issuer.bound_token("carol", &[], &key.jkt);
        let proof = s.draft_for(&key, &token).signed_by(&key);
        let resp = call_dpop(&s, &token, &[&proof]).await;
        assert_eq!(
            resp.status,
            StatusCode::OK,
            "{:?}: {}",
            key.alg,
            String::from_utf8_lossy(&resp.body)
        );
        assert_eq!(text_of(&resp), "carol");
        // The same key named with another algorithm's family is refused.
        let wrong = s
            .draft_for(&key, &token)
            .header("alg", json!("ES256"))
            .signed_by(&key);
        refused_proof(&s, &token, &wrong, "jwk").await;
    }
}

/// POSTs `body` as a 2025-11-25 client does, on `session` when given.
async fn legacy_post(
    s: &Setup,
    body: &Value,
    session: Option<&str>,
    token: &str,
    proofs: &[&str],
) -> HttpResponse {
    let mut headers = post_headers();
    headers.push(("Authorization".into(), format!("DPoP {token}")));
    for proof in proofs {
        headers.push(("DPoP".into(), (*proof).to_owned()));
    }
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id".into(), session.to_owned()));
        headers.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    }
    post(&s.url, &headers, serde_json::to_vec(body).unwrap()).await
}

#[tokio::test]
async fn a_valid_proof_is_accepted_in_the_2025_era_and_refusals_are_the_same() {
    let s = setup(Dpop::allowed()).await;
    let token = s.token();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let resp = legacy_post(&s, &init, None, &token, &[&s.proof(&token)]).await;
    assert_eq!(
        resp.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&resp.body)
    );
    let session = resp.header("mcp-session-id").unwrap().to_owned();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}});
    let resp = legacy_post(&s, &call, Some(&session), &token, &[&s.proof(&token)]).await;
    assert_eq!(text_of(&resp), "alice");
    // The same checks as in the 2026 era: the initialize without a proof, a call whose proof
    // names another method.
    let resp = legacy_post(&s, &init, None, &token, &[]).await;
    assert_refused(&s, &resp, "invalid_dpop_proof", &[&token]);
    let wrong = s.draft(&token).claim("htm", json!("GET")).signed_by(&s.key);
    let resp = legacy_post(&s, &call, Some(&session), &token, &[&wrong]).await;
    let why = assert_refused(&s, &resp, "invalid_dpop_proof", &[&token, &wrong]);
    assert!(why.contains("htm"), "{why}");
    // Ending the session is a DELETE: its proof names DELETE (one naming POST is refused).
    let url = s.url.clone();
    let end = |proof: String| {
        let headers = vec![
            ("Authorization".to_owned(), format!("DPoP {token}")),
            ("DPoP".to_owned(), proof),
            ("Mcp-Session-Id".to_owned(), session.clone()),
            ("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()),
        ];
        let url = url.clone();
        async move { super::common::send(http::Method::DELETE, &url, &headers, "").await }
    };
    let resp = end(s.proof(&token)).await;
    assert_refused(&s, &resp, "invalid_dpop_proof", &[&token]);
    let delete = s
        .draft(&token)
        .claim("htm", json!("DELETE"))
        .signed_by(&s.key);
    let resp = end(delete).await;
    assert!(
        resp.status.is_success(),
        "{}: {}",
        resp.status,
        String::from_utf8_lossy(&resp.body)
    );
}
