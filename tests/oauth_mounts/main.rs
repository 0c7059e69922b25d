//! Remote mounts authenticated by a real authorization server: oidc-provider (an OpenID
//! Certified implementation, pinned in `.ci/oauth/package-lock.json`) started by
//! `.ci/oauth/as.mjs`, issuing JWT access tokens per resource (RFC 8707, RFC 9068). A gateway
//! mounts a backend that verifies them with `JwtVerifier`, first with a token of its own (client
//! credentials, RFC 6749 §4.4), then with each caller's token exchanged (RFC 8693), and with a
//! wrong secret.
//!
//! Needs Node and `npm ci --prefix .ci/oauth`; `MCP_SKIP_OAUTH=1` skips the tests.

#[path = "../common/mod.rs"]
mod common;

use common::authority::*;

use common::recorded::serve_on;
use common::within;
use mcp_runtime::client::{Client, Credentials, OAuthClient};
use mcp_runtime::{Caller, FromContext, HttpOptions, McpError, NoArguments, Server, Tool};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

/// The claims of a JWT (not verified: the backend did that).
fn claims_of(token: &str) -> Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).expect("a JWS");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Servers
// ---------------------------------------------------------------------------------------------

/// Everything logged (the gateway reports a failed fetch of a mount's lists there).
fn logs() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = buf.clone();
        let _ = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .with_writer(move || Sink(sink.clone()))
            .try_init();
        buf
    })
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logged() -> String {
    String::from_utf8_lossy(&logs().lock().unwrap()).into_owned()
}

/// The backend: `whoami` needs a caller and answers with its token's claims; `hello` needs
/// none.
fn backend() -> Server {
    Server::builder()
        .name("notes")
        .tool(
            Tool::new("whoami")
                .description("The caller's token, as this server verified it.")
                .handler(
                    |_: NoArguments, cx: mcp_runtime::RequestContext| async move {
                        let caller = Caller::from_context(&cx)?;
                        Ok::<_, McpError>(Value::Object(caller.claims).to_string())
                    },
                ),
        )
        .tool(Tool::new("hello").handler(|_: NoArguments, _cx| async { "hello" }))
        .build()
        .unwrap()
}

/// A gateway mounting `remote` under `kb`.
fn gateway(remote: Client) -> Server {
    Server::builder()
        .name("gateway")
        .mount("kb", remote)
        .build()
        .unwrap()
}

async fn listener() -> (tokio::net::TcpListener, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    (listener, url)
}

/// What a call answered: its text, or its error's.
async fn outcome(client: &Client, tool: &str) -> Result<String, String> {
    match within(
        &format!("calling {tool}"),
        client.call_tool(tool, json!({})),
    )
    .await
    {
        Ok(result) if result.is_error == Some(true) => Err(result.text()),
        Ok(result) => Ok(result.text()),
        Err(e) => Err(e.to_string()),
    }
}

/// The names of the tools `server` serves.
async fn tool_names(server: &Server) -> Vec<String> {
    let client = mcp_runtime::testing::TestClient::new(server.clone());
    within("the gateway's tools", client.list_tools())
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

/// (a) The gateway's own token: asked for once with client credentials, for the backend only,
/// and sent on every request until it nears its expiry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_from_oidc_provider() {
    logs();
    let Some(authority) = Authority::start(None).await else {
        return;
    };
    let (backend_listener, backend_url) = listener().await;
    let revoked = Revoked::default();
    let (_backend, _stop_backend, backend_saw) = serve_on(
        backend_listener,
        backend(),
        HttpOptions::default().auth(authority.verifier(&backend_url, &revoked)),
    );
    let credentials = Credentials::ClientCredentials(
        OAuthClient::new(&authority.token_endpoint, GATEWAY, GATEWAY_SECRET)
            .scope(SCOPE)
            .resource(&backend_url),
    );
    let remote = Client::http(&backend_url)
        .credentials(credentials)
        .connect()
        .unwrap();
    let gateway = gateway(remote);
    within("the mount's lists", gateway.refresh_mounts()).await;
    assert_eq!(tool_names(&gateway).await, ["kb_whoami", "kb_hello"]);

    let (front_listener, front_url) = listener().await;
    let (_front, _stop_front, _) = serve_on(front_listener, gateway, HttpOptions::default());
    let caller = Client::http(&front_url).connect().unwrap();
    let mut seen_claims = Vec::new();
    for _ in 0..3 {
        let text = outcome(&caller, "kb_whoami").await.unwrap();
        seen_claims.push(serde_json::from_str::<Value>(&text).unwrap());
    }
    assert_eq!(outcome(&caller, "kb_hello").await.unwrap(), "hello");

    let claims = &seen_claims[0];
    assert_eq!(claims["aud"], backend_url.as_str(), "{claims}");
    assert_eq!(claims["iss"], authority.issuer.as_str(), "{claims}");
    assert_eq!(claims["client_id"], GATEWAY, "{claims}");
    assert_eq!(claims["sub"], GATEWAY, "{claims}");
    assert_eq!(claims["scope"], SCOPE, "{claims}");
    assert!(
        seen_claims.iter().all(|c| c["jti"] == claims["jti"]),
        "one token for every call: {seen_claims:?}"
    );
    // The lists, the calls: every request the backend got carried that one token.
    let saw = backend_saw.lock().unwrap().clone();
    assert!(saw.len() >= 5, "{saw:?}");
    assert!(saw.iter().all(|a| *a == saw[0]), "{saw:?}");
    let token = saw[0].strip_prefix("Bearer ").expect("a bearer token");
    assert_eq!(claims_of(token)["jti"], claims["jti"]);
    authority
        .assert_issued("client_credentials", GATEWAY, 1)
        .await;

    // The backend no longer takes it (revoked): a 401, and the gateway asks for another.
    revoked
        .lock()
        .unwrap()
        .insert(claims["jti"].as_str().unwrap().to_owned());
    let text = outcome(&caller, "kb_whoami").await.unwrap();
    let renewed: Value = serde_json::from_str(&text).unwrap();
    assert_ne!(renewed["jti"], claims["jti"], "{renewed}");
    assert_eq!(renewed["aud"], backend_url.as_str(), "{renewed}");
    authority
        .assert_issued("client_credentials", GATEWAY, 2)
        .await;
    let log = logged();
    assert!(!log.contains(token), "the gateway's token reached the logs");
    assert!(!log.contains(GATEWAY_SECRET), "the secret reached the logs");
}

/// (b) Each caller's token exchanged: the front verifies it (its audience: the front), the
/// gateway exchanges it for one whose audience is the backend, keeping the caller's subject;
/// the backend never sees the caller's own token. A caller without one reaches the backend
/// anonymously: only what the backend lets anonymous callers do works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_exchange_at_oidc_provider() {
    logs();
    let (front_listener, front_url) = listener().await;
    let Some(authority) = Authority::start(Some(&front_url)).await else {
        return;
    };
    let (backend_listener, backend_url) = listener().await;
    let (_backend, _stop_backend, backend_saw) = serve_on(
        backend_listener,
        backend(),
        HttpOptions::default().auth(
            authority
                .verifier(&backend_url, &Revoked::default())
                .allow_anonymous(),
        ),
    );
    let credentials = Credentials::TokenExchange(
        OAuthClient::new(&authority.token_endpoint, GATEWAY, GATEWAY_SECRET)
            .scope(SCOPE)
            .resource(&backend_url),
    );
    let remote = Client::http(&backend_url)
        .credentials(credentials)
        .connect()
        .unwrap();
    let gateway = gateway(remote);
    // The lists are fetched for every caller: anonymously, which this backend allows.
    within("the mount's lists", gateway.refresh_mounts()).await;
    assert_eq!(tool_names(&gateway).await, ["kb_whoami", "kb_hello"]);
    let (_front, _stop_front, _) = serve_on(
        front_listener,
        gateway,
        HttpOptions::default().auth(
            authority
                .verifier(&front_url, &Revoked::default())
                .allow_anonymous(),
        ),
    );

    let ada_token = authority.app_token(&front_url).await;
    assert_eq!(claims_of(&ada_token)["aud"], front_url.as_str());
    let ada = Client::http(&front_url)
        .bearer(&ada_token)
        .connect()
        .unwrap();
    let first: Value = serde_json::from_str(&outcome(&ada, "kb_whoami").await.unwrap()).unwrap();
    let again: Value = serde_json::from_str(&outcome(&ada, "kb_whoami").await.unwrap()).unwrap();
    assert_eq!(first["aud"], backend_url.as_str(), "{first}");
    assert_eq!(first["iss"], authority.issuer.as_str(), "{first}");
    assert_eq!(first["sub"], APP, "the caller's subject is kept: {first}");
    assert_eq!(first["client_id"], GATEWAY, "{first}");
    assert_eq!(first["act"]["sub"], GATEWAY, "{first}");
    assert_eq!(first["scope"], SCOPE, "{first}");
    assert_ne!(
        first["jti"],
        claims_of(&ada_token)["jti"],
        "not the caller's token"
    );
    assert_eq!(again["jti"], first["jti"], "the exchanged token is kept");
    authority.assert_issued(TOKEN_EXCHANGE, GATEWAY, 1).await;
    assert!(
        authority
            .answers("grant.success", "client_credentials", GATEWAY)
            .is_empty(),
        "no token of the gateway's own"
    );

    // Another token of a caller: exchanged on its own.
    let bob_token = authority.app_token(&front_url).await;
    let bob = Client::http(&front_url)
        .bearer(&bob_token)
        .connect()
        .unwrap();
    let bobs: Value = serde_json::from_str(&outcome(&bob, "kb_whoami").await.unwrap()).unwrap();
    assert_eq!(bobs["aud"], backend_url.as_str(), "{bobs}");
    assert_ne!(bobs["jti"], first["jti"]);
    authority.assert_issued(TOKEN_EXCHANGE, GATEWAY, 2).await;

    let saw = backend_saw.lock().unwrap().clone();
    assert!(!saw.is_empty());
    for authorization in &saw {
        let token = authorization
            .strip_prefix("Bearer ")
            .expect("a bearer token");
        assert!(
            token != ada_token && token != bob_token,
            "a caller's own token reached the backend"
        );
        assert_eq!(claims_of(token)["aud"], backend_url.as_str());
    }

    // No token: the backend's anonymous rules apply (a caller-free tool works, one that needs
    // a caller is refused), and the token endpoint is not asked.
    let anonymous = Client::http(&front_url).connect().unwrap();
    let before = backend_saw.lock().unwrap().len();
    assert_eq!(outcome(&anonymous, "kb_hello").await.unwrap(), "hello");
    let refused = outcome(&anonymous, "kb_whoami").await.unwrap_err();
    assert!(
        refused.contains("needs an authenticated caller"),
        "{refused}"
    );
    assert_eq!(
        backend_saw.lock().unwrap().len(),
        before,
        "an anonymous caller's requests carry no token"
    );
    authority.assert_issued(TOKEN_EXCHANGE, GATEWAY, 2).await;
    // A token for another audience is no caller's token at the front.
    let elsewhere = authority.app_token(&backend_url).await;
    let stranger = Client::http(&front_url)
        .bearer(&elsewhere)
        .connect()
        .unwrap();
    assert!(outcome(&stranger, "kb_hello").await.is_err());
    let log = logged();
    for token in [&ada_token, &bob_token] {
        assert!(
            !log.contains(token.as_str()),
            "a caller's token reached the logs"
        );
    }
}

/// (c) A wrong secret: the token endpoint's refusal, named with its URL and error code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_secret_names_the_endpoint_and_its_error() {
    logs();
    let (front_listener, front_url) = listener().await;
    let Some(authority) = Authority::start(Some(&front_url)).await else {
        return;
    };
    let (backend_listener, backend_url) = listener().await;
    let (_backend, _stop_backend, _) = serve_on(
        backend_listener,
        backend(),
        HttpOptions::default().auth(
            authority
                .verifier(&backend_url, &Revoked::default())
                .allow_anonymous(),
        ),
    );
    let wrong = || {
        OAuthClient::new(&authority.token_endpoint, GATEWAY, "not the secret")
            .scope(SCOPE)
            .resource(&backend_url)
    };

    // A token exchange: the lists come anonymously, a caller's call fails with the reason.
    let remote = Client::http(&backend_url)
        .credentials(Credentials::TokenExchange(wrong()))
        .connect()
        .unwrap();
    let exchanging = gateway(remote);
    within("the mount's lists", exchanging.refresh_mounts()).await;
    let (_front, _stop_front, _) = serve_on(
        front_listener,
        exchanging,
        HttpOptions::default().auth(
            authority
                .verifier(&front_url, &Revoked::default())
                .allow_anonymous(),
        ),
    );
    let token = authority.app_token(&front_url).await;
    let caller = Client::http(&front_url).bearer(&token).connect().unwrap();
    let error = outcome(&caller, "kb_whoami").await.unwrap_err();
    assert!(error.contains(&authority.token_endpoint), "{error}");
    assert!(error.contains("invalid_client"), "{error}");
    assert!(!error.contains("not the secret"), "{error}");
    let refusals = authority.answers("grant.error", TOKEN_EXCHANGE, GATEWAY);
    assert!(
        !refusals.is_empty() && refusals.iter().all(|e| e["error"] == "invalid_client"),
        "{:?}",
        authority.events.lock().unwrap()
    );

    // Client credentials: the lists cannot be fetched; the gateway says why in its log, and
    // serves nothing of the mount.
    let remote = Client::http(&backend_url)
        .credentials(Credentials::ClientCredentials(wrong()))
        .connect()
        .unwrap();
    let own = gateway(remote);
    within("the mount's lists", own.refresh_mounts()).await;
    let listed = mcp_runtime::testing::TestClient::new(own.clone())
        .list_tools()
        .await;
    assert!(listed.as_ref().map_or(true, Vec::is_empty), "{listed:?}");
    let log = logged();
    let line = log
        .lines()
        .find(|l| l.contains("could not be fetched") && l.contains(&authority.token_endpoint))
        .unwrap_or_else(|| panic!("no log line names the token endpoint:\n{log}"));
    assert!(line.contains("invalid_client"), "{line}");
    assert!(
        !log.contains("not the secret"),
        "the secret reached the logs"
    );
    let client = mcp_runtime::testing::TestClient::new(own);
    let refused = within(
        "calling kb_whoami",
        client.call_tool("kb_whoami", json!({})),
    )
    .await;
    assert!(
        refused.as_ref().map_or(true, |r| r.is_error == Some(true)),
        "{refused:?}"
    );
}

/// A backend that refuses an exchanged token before it expires (revoked, say): the gateway
/// drops it and exchanges the caller's token again, as it asks for a fresh token of its own
/// after a `401` (the caller is not locked out until the refused token would have expired).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_exchanged_token_is_exchanged_again() {
    logs();
    let (front_listener, front_url) = listener().await;
    let Some(authority) = Authority::start(Some(&front_url)).await else {
        return;
    };
    let (backend_listener, backend_url) = listener().await;
    let revoked = Revoked::default();
    let (_backend, _stop_backend, _) = serve_on(
        backend_listener,
        backend(),
        HttpOptions::default().auth(authority.verifier(&backend_url, &revoked).allow_anonymous()),
    );
    let remote = Client::http(&backend_url)
        .credentials(Credentials::TokenExchange(
            OAuthClient::new(&authority.token_endpoint, GATEWAY, GATEWAY_SECRET)
                .scope(SCOPE)
                .resource(&backend_url),
        ))
        .connect()
        .unwrap();
    let gateway = gateway(remote);
    within("the mount's lists", gateway.refresh_mounts()).await;
    let (_front, _stop_front, _) = serve_on(
        front_listener,
        gateway,
        HttpOptions::default().auth(
            authority
                .verifier(&front_url, &Revoked::default())
                .allow_anonymous(),
        ),
    );
    let token = authority.app_token(&front_url).await;
    let ada = Client::http(&front_url).bearer(&token).connect().unwrap();
    let first: Value = serde_json::from_str(&outcome(&ada, "kb_whoami").await.unwrap()).unwrap();
    revoked
        .lock()
        .unwrap()
        .insert(first["jti"].as_str().unwrap().to_owned());
    let renewed = outcome(&ada, "kb_whoami").await;
    let renewed: Value = serde_json::from_str(
        &renewed.unwrap_or_else(|e| panic!("the refused exchanged token was sent again: {e}")),
    )
    .unwrap();
    assert_ne!(renewed["jti"], first["jti"]);
    assert_eq!(renewed["sub"], APP);
    authority.assert_issued(TOKEN_EXCHANGE, GATEWAY, 2).await;
}
