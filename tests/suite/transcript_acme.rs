//! Seed 002, the Acme Knowledge laboratory page: its 14 exact envelopes replayed in order
//! against the `acme-knowledge` example over real HTTP on 127.0.0.1. Every server→client
//! envelope must be JSON-equal to the seed's and valid against the 2026-07-28 schema.

use crate::common;
use crate::examples::acme;
use common::{call, request, shared_path, spawn_http};
use serde_json::{Value, json};

/// The envelopes of the page, in order: every JSON object that has a `direction`.
fn envelopes() -> Option<Vec<Value>> {
    let path = shared_path("seeds/002_7fdfb62d18770322.txt")?;
    let text = std::fs::read_to_string(path).expect("seed 002 is readable");
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("{\n  \"direction\"") {
        let mut stream = serde_json::Deserializer::from_str(&rest[start..]).into_iter::<Value>();
        let value = stream.next().expect("an envelope").expect("valid JSON");
        let used = stream.byte_offset();
        out.push(value);
        rest = &rest[start + used..];
    }
    Some(out)
}

#[tokio::test]
async fn all_fourteen_envelopes_replay_exactly() {
    let Some(envelopes) = envelopes() else { return };
    assert_eq!(envelopes.len(), 14, "the page holds 14 envelopes");
    let http = spawn_http(acme::build().expect("acme builds")).await;
    for pair in envelopes.chunks(2) {
        let (mut sent, mut expected) = (pair[0].clone(), pair[1].clone());
        assert_eq!(sent["direction"], "client→server");
        assert_eq!(expected["direction"], "server→client");
        sent.as_object_mut().unwrap().remove("direction");
        expected.as_object_mut().unwrap().remove("direction");
        let resp = call(&http.url(), &sent).await;
        assert_eq!(resp.status, 200, "{}", sent["method"]);
        assert_eq!(
            resp.json(),
            expected,
            "answer to {} differs from seed 002",
            sent["method"]
        );
    }
}

#[tokio::test]
async fn one_broken_path_leaves_the_others_working() {
    let http = spawn_http(acme::build().unwrap()).await;
    let url = http.url();
    // An unknown document is a tool error the model can read, not a crash or protocol error.
    let resp = call(
        &url,
        &request(
            1,
            "tools/call",
            json!({"name": "get_document", "arguments": {"documentId": "doc_missing"}}),
        ),
    )
    .await
    .json();
    assert_eq!(resp["result"]["isError"], true);
    // A schema violation names the field and the constraint.
    let resp = call(
        &url,
        &request(
            2,
            "tools/call",
            json!({"name": "get_document", "arguments": {"documentId": "nope"}}),
        ),
    )
    .await
    .json();
    assert_eq!(resp["result"]["isError"], true);
    let text = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("documentId") && text.contains("^doc_"),
        "{text}"
    );
    // A denied resource path (unknown URI) is -32602 with data.uri ...
    let resp = call(
        &url,
        &request(
            3,
            "resources/read",
            json!({"uri": "acme-knowledge://secret"}),
        ),
    )
    .await
    .json();
    assert_eq!(resp["error"]["code"], -32602);
    assert_eq!(resp["error"]["data"]["uri"], "acme-knowledge://secret");
    // ... and everything else keeps answering.
    let resp = call(
        &url,
        &request(
            4,
            "tools/call",
            json!({"name": "get_document", "arguments": {"documentId": "doc_policy_17"}}),
        ),
    )
    .await
    .json();
    assert_eq!(resp["result"]["isError"], Value::Null);
    let resp = call(
        &url,
        &request(
            5,
            "prompts/get",
            json!({"name": "draft_policy_brief", "arguments": {"audience": "legal"}}),
        ),
    )
    .await
    .json();
    assert!(
        resp["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("for legal.")
    );
    // The search really searches.
    let resp = call(
        &url,
        &request(6, "tools/call", json!({"name": "search_private_docs", "arguments": {"query": "onboarding agents", "limit": 5}})),
    )
    .await
    .json();
    assert_eq!(
        resp["result"]["structuredContent"]["matches"][0]["documentId"],
        "doc_guide_03"
    );
    assert_eq!(
        resp["result"]["content"][0]["text"],
        "Found 1 authorized passage."
    );
}

/// The example's auth mode (`--jwks FILE --audience URI --issuer URL`), built the way its
/// `main` builds it: `search_private_docs` needs `docs:read`, the rest needs only a valid
/// token; with a token granting everything, the seed replays exactly.
#[tokio::test]
async fn the_auth_mode_guards_search_only_and_still_replays_the_seed() {
    use common::{HttpResponse, headers_for, post, response_of};
    use mcp_runtime::auth::ResourceServer;
    use mcp_runtime::auth::jwt::JwtVerifier;
    use mcp_runtime::testing::TestIssuer;

    let issuer_url = "https://auth.acme.example";
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let audience = format!("http://{}/mcp", listener.local_addr().unwrap());
    let issuer = TestIssuer::new(issuer_url, audience.clone());
    let jwks = std::env::temp_dir().join(format!("acme-jwks-{}.json", std::process::id()));
    std::fs::write(&jwks, issuer.jwks_json()).unwrap();
    let verifier = JwtVerifier::builder(&audience)
        .issuer(issuer_url)
        .jwks_file(&jwks)
        .build()
        .unwrap();
    let rs = ResourceServer::new(&audience, issuer_url, verifier)
        .unwrap()
        .scopes_supported(["docs:read"]);
    let server = acme::build_protected().unwrap();
    let task = tokio::spawn(server.serve(listener, mcp_runtime::HttpOptions::default().auth(rs)));

    let send = |token: Option<String>, body: Value| {
        let audience = audience.clone();
        async move {
            let mut headers = headers_for(&body);
            if let Some(t) = token {
                headers.push(("Authorization".into(), format!("Bearer {t}")));
            }
            let resp: HttpResponse =
                post(&audience, &headers, serde_json::to_vec(&body).unwrap()).await;
            resp
        }
    };
    let search = request(
        1,
        "tools/call",
        json!({"name": "search_private_docs", "arguments": {"query": "retention"}}),
    );
    let resp = send(None, search.clone()).await;
    assert_eq!(resp.status, 401);
    assert!(
        resp.header("www-authenticate")
            .unwrap()
            .contains("scope=\"docs:read\"")
    );

    let plain = issuer.token("viewer", &[]);
    let resp = send(Some(plain.clone()), search.clone()).await;
    assert_eq!(resp.status, 403);
    let get = request(
        2,
        "tools/call",
        json!({"name": "get_document", "arguments": {"documentId": "doc_policy_17"}}),
    );
    let resp = send(Some(plain.clone()), get).await;
    assert_eq!(resp.status, 200, "{}", String::from_utf8_lossy(&resp.body));
    assert!(
        response_of(&resp)["result"]["content"].is_array(),
        "the document is read"
    );
    let read = request(
        3,
        "resources/read",
        json!({"uri": "acme-knowledge://policies/support-retention"}),
    );
    let resp = send(Some(plain.clone()), read).await;
    assert_eq!(resp.status, 200);
    assert!(response_of(&resp)["result"]["contents"][0]["text"].is_string());
    let list = send(Some(plain.clone()), request(4, "tools/list", json!({}))).await;
    let tools = response_of(&list)["result"]["tools"].clone();
    assert_eq!(
        tools.as_array().unwrap().len(),
        1,
        "search is hidden: {tools}"
    );

    // With `docs:read`, every envelope of the seed comes back exactly.
    if let Some(envelopes) = envelopes() {
        let reader = issuer.token("reader", &["docs:read"]);
        for pair in envelopes.chunks(2) {
            let (mut sent, mut expected) = (pair[0].clone(), pair[1].clone());
            sent.as_object_mut().unwrap().remove("direction");
            expected.as_object_mut().unwrap().remove("direction");
            let resp = send(Some(reader.clone()), sent.clone()).await;
            assert_eq!(resp.status, 200, "{}", sent["method"]);
            assert_eq!(response_of(&resp), expected, "{}", sent["method"]);
        }
    }
    task.abort();
    let _ = std::fs::remove_file(jwks);
}
