//! The protected servers' settings: the benchmark's token issuer and its JWTs (`call-auth`,
//! `call-auth-first`), and an introspection verifier over a local endpoint (`call-introspect`).

use mcp_runtime::HttpOptions;
use mcp_runtime::auth::ResourceServer;
use mcp_runtime::testing::TestIssuer;
use serde_json::json;

/// Seed of the benchmark's token issuer: the server (its JWKS) and the client (its tokens)
/// make the same key from it.
pub const AUTH_SEED: [u8; 32] = [11; 32];
/// Issuer of the benchmark's tokens.
pub const AUTH_ISSUER: &str = "https://auth.bench.example";
/// Audience of the benchmark's tokens (the protected server's canonical URI).
pub const AUTH_AUDIENCE: &str = "https://mcp.bench.example/mcp";

/// The benchmark's token issuer.
pub fn issuer() -> TestIssuer {
    TestIssuer::with_seed(AUTH_ISSUER, AUTH_AUDIENCE, AUTH_SEED)
}

/// The HTTP options of the protected server (`--observe auth`): an OAuth resource server
/// checking the issuer's JWTs (keys inline).
pub fn auth_options() -> Result<HttpOptions, mcp_runtime::BuildError> {
    let rs = ResourceServer::new(AUTH_AUDIENCE, AUTH_ISSUER, issuer().verifier())?
        .scopes_supported(["calc"]);
    Ok(HttpOptions::default().auth(rs))
}

/// The opaque token the `call-introspect` case sends.
pub const OPAQUE_TOKEN: &str = "opaque-bench-token-7f3a9c2e41d8b6a05e19";

/// The protected server's options with opaque tokens checked by RFC 7662 introspection, its
/// cache on (the `call-introspect` case: after the first request, every check is a cache hit).
/// The introspection endpoint is served here, on a loopback port, answering every token active
/// for `calc`: the benchmark measures the server's side, not an authorization server.
pub async fn introspect_options() -> Result<HttpOptions, mcp_runtime::Error> {
    use mcp_runtime::auth::introspect::IntrospectionVerifier;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let endpoint = format!("http://{}/introspect", listener.local_addr()?);
    let answer = axum::routing::post(|| async {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let body = json!({"active": true, "sub": "bench-0", "scope": "calc",
            "aud": AUTH_AUDIENCE, "iss": AUTH_ISSUER, "exp": now + 3600});
        ([("content-type", "application/json")], body.to_string())
    });
    let app = axum::Router::new().route("/introspect", answer);
    tokio::spawn(async move { axum::serve(listener, app).await });
    let verifier = IntrospectionVerifier::builder(AUTH_AUDIENCE)
        .endpoint(endpoint)
        .issuer(AUTH_ISSUER)
        .client_secret_basic("bench", "bench-secret")
        .cache(10_000, std::time::Duration::from_secs(600))
        .build()?;
    let rs = ResourceServer::new(AUTH_AUDIENCE, AUTH_ISSUER, verifier)?.scopes_supported(["calc"]);
    Ok(HttpOptions::default().auth(rs))
}

/// A token granting `calc` (the scope `add` needs on the protected server); `n` makes it
/// distinct from the others (`jti`).
pub fn calc_token(n: usize) -> String {
    issuer().token_with(json!({"sub": format!("bench-{}", n % 64), "scope": "calc", "jti": n}))
}
