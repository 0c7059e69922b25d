//! Interop with a widely used client library: oauth4webapi (pinned in
//! `.ci/oauth/package-lock.json`, by the author of oidc-provider) makes the key, gets the
//! DPoP-bound token from oidc-provider and makes every proof (`.ci/oauth/dpop-client.mjs`): no
//! proof, thumbprint or `ath` here is computed by this crate's code. The server, with its
//! nonces on, takes the token with the library's proofs (after the library follows the
//! `use_dpop_nonce` challenge) and refuses it as Bearer.
//!
//! Needs Node and `npm ci --prefix .ci/oauth`; `MCP_SKIP_OAUTH=1` skips the test.

use super::authority::{node, oauth_dir, serve, start};
use super::support::*;
use std::process::Stdio;
use std::time::Duration;

/// Bound of the whole client run (its every request has a timeout of its own).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(40);

#[tokio::test]
async fn oauth4webapi_s_token_and_proofs_are_taken_and_its_token_as_bearer_is_not() {
    let Some(authority) = start().await else {
        return;
    };
    let dir = oauth_dir();
    prerequisite(
        dir.join("node_modules/oauth4webapi/package.json").exists(),
        "oauth4webapi is not installed",
        "npm ci --prefix .ci/oauth",
        "MCP_SKIP_OAUTH",
    );
    let (url, task) = serve(&authority).await;

    let node = node();
    let run = tokio::process::Command::new(&node)
        .arg(dir.join("dpop-client.mjs"))
        .args([&authority.issuer, "app", "app-secret", &url])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = match tokio::time::timeout(CLIENT_TIMEOUT, run).await {
        Ok(output) => output
            .unwrap_or_else(|e| panic!("cannot start {} dpop-client.mjs: {e}", node.display())),
        Err(_) => panic!("dpop-client.mjs did not end within {CLIENT_TIMEOUT:?}"),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "dpop-client.mjs: {}\nstdout: {stdout}\nstderr: {stderr}",
        output.status
    );
    let line = stdout.lines().last().unwrap_or_default();
    eprintln!("dpop-client.mjs: {line}");
    let got: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("dpop-client.mjs printed `{stdout}`, not JSON: {e}"));

    // oidc-provider bound the token to the library's key.
    assert_eq!(got["token_type"], "DPoP", "{got}");
    assert!(got["key_jkt"].is_string(), "{got}");
    assert_eq!(got["token_jkt"], got["key_jkt"], "{got}");

    // The library's first proof lacked this server's nonce; it kept the one of the challenge,
    // and the retry's proof (with `ath`) was taken.
    assert_eq!(got["nonce_retry"], true, "{got}");
    assert_eq!(got["dpop_status"], 200, "{got}");
    assert_eq!(got["dpop_challenges"], json!([]), "{got}");
    let answer = &got["dpop_body"];
    assert_eq!(answer["id"], 1, "{got}");
    assert_ne!(answer["result"]["isError"], true, "{got}");
    assert_eq!(
        answer["result"]["content"][0]["text"], "app",
        "client credentials: the client is the caller: {got}"
    );

    // The same token as Bearer, without a proof: refused.
    assert_eq!(got["bearer_status"], 401, "{got}");
    let bearer = got["bearer_challenges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["scheme"] == "bearer")
        .unwrap_or_else(|| panic!("a Bearer challenge: {got}"));
    assert_eq!(bearer["parameters"]["error"], "invalid_token", "{got}");
    let header = got["bearer_challenge"].as_str().unwrap();
    assert!(
        header.contains("error=\"invalid_token\""),
        "WWW-Authenticate: {header}"
    );
    task.abort();
}
