//! Identity providers as they are, against the certified authorization server oidc-provider
//! (`.ci/oauth/identity.mjs`, `npm ci --prefix .ci/oauth`; without it these tests fail, unless
//! `MCP_SKIP_OAUTH=1` asks to skip them): opaque access tokens checked by RFC 7662
//! introspection (discovered from its RFC 8414 metadata, both client authentications), refused
//! once revoked, or after the cache's lifetime when cached, one introspection for concurrent
//! checks of a token; JWTs and opaque tokens through one verifier; and JWKS that survive key
//! rotation (a new key, a retired key, a key replaced under the same `kid`).

use crate::common;
use crate::common::authority;

use authority::Authority;
use common::{call_with, headers_for, meta, request};
use http::StatusCode;
use mcp_runtime::auth::introspect::{IntrospectionVerifier, JwtOrOpaque};
use mcp_runtime::auth::jwt::JwtVerifier;
use mcp_runtime::auth::{ResourceServer, TokenError, TokenVerifier};
use mcp_runtime::{HttpOptions, NoArguments, RequestContext, Server, Tool};
use serde_json::{Value, json};
use std::time::Duration;

const APP_SECRET: &str = "app-secret";
const RS_SECRET: &str = "rs: s3cret/+&=";

/// A server whose `whoami` (scope `notes:read`) names its caller, served behind `verifier` (made
/// for the endpoint's URL) on a loopback port. Returns the endpoint's URL.
async fn serve<V: TokenVerifier>(
    issuer: &str,
    verifier: impl FnOnce(&str) -> V,
) -> (
    String,
    tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let whoami = Tool::new("whoami").scopes(["notes:read"]).handler(
        |_: NoArguments, cx: RequestContext| async move {
            cx.caller().map(|c| c.subject.clone()).unwrap_or_default()
        },
    );
    let server = Server::builder().tool(whoami).build().unwrap();
    let auth = ResourceServer::new(url.as_str(), issuer, verifier(&url)).unwrap();
    let task = tokio::spawn(server.serve(listener, HttpOptions::default().auth(auth)));
    (url, task)
}

/// A client-credentials token of `client` for `resource`.
async fn token(authority: &Authority, client: &str, resource: &str) -> String {
    authority.client_token(client, APP_SECRET, resource).await
}

/// Revokes `token` of `opaque-app` (RFC 7009).
async fn revoke(authority: &Authority, token: &str) {
    let basic = common::base64(format!("opaque-app:{APP_SECRET}").as_bytes());
    let endpoint = authority.ready["revocation_endpoint"].as_str().unwrap();
    let answer = common::post(
        endpoint,
        &[
            (
                "content-type".into(),
                "application/x-www-form-urlencoded".into(),
            ),
            ("authorization".into(), format!("Basic {basic}")),
        ],
        format!("token={token}"),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
}

/// How many introspections the authorization server was asked for so far (its log line is
/// written before it answers, and read here a moment later).
async fn introspections(authority: &Authority) -> usize {
    tokio::time::sleep(Duration::from_millis(150)).await;
    let events = authority.events.lock().unwrap();
    events
        .iter()
        .filter(|e| e["event"] == "introspection")
        .count()
}

/// `whoami` called with `token`, in the 2026-07-28 era: the HTTP status and the text.
async fn whoami(url: &str, token: &str) -> (StatusCode, String) {
    let body = request(
        1,
        "tools/call",
        json!({"name": "whoami", "arguments": {}, "_meta": meta()}),
    );
    let headers = common::with_header(
        headers_for(&body),
        "authorization",
        &format!("Bearer {token}"),
    );
    let answer = call_with(url, &body, headers).await;
    let text = match answer.status {
        StatusCode::OK => common::response_of(&answer)["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        _ => answer
            .header("www-authenticate")
            .unwrap_or_default()
            .to_owned(),
    };
    (answer.status, text)
}

fn introspection(
    audience: &str,
    issuer: &str,
) -> mcp_runtime::auth::introspect::IntrospectionVerifierBuilder {
    IntrospectionVerifier::builder(audience).discover(issuer)
}

#[tokio::test]
async fn an_opaque_token_is_accepted_through_introspection_and_refused_once_revoked() {
    let Some(authority) = Authority::run("identity.mjs", vec![]).await else {
        return;
    };
    let issuer = authority.issuer.clone();
    let (url, _server) = serve(&issuer, |url| {
        introspection(url, &issuer)
            .client_secret_basic("rs", RS_SECRET)
            .build()
            .unwrap()
    })
    .await;
    let opaque = token(&authority, "opaque-app", &url).await;
    assert_eq!(opaque.split('.').count(), 1, "an opaque token: {opaque}");
    assert_eq!(
        whoami(&url, &opaque).await,
        (StatusCode::OK, "opaque-app".into())
    );
    // No cache: each request asks.
    assert_eq!(whoami(&url, &opaque).await.0, StatusCode::OK);
    assert_eq!(introspections(&authority).await, 2);

    // The 2025-11-25 era goes through the same check.
    let init = request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let mut headers = common::with_header(headers_for(&init), "mcp-protocol-version", "2025-11-25");
    headers = common::without_header(headers, "mcp-method");
    headers = common::with_header(headers, "authorization", &format!("Bearer {opaque}"));
    let answer = common::post(&url, &headers, serde_json::to_vec(&init).unwrap()).await;
    assert_eq!(
        answer.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&answer.body)
    );

    revoke(&authority, &opaque).await;
    let (status, challenge) = whoami(&url, &opaque).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        challenge.contains("invalid_token") && challenge.contains("not active"),
        "{challenge}"
    );

    // A token for another resource is refused for its audience.
    let elsewhere = token(&authority, "opaque-app", "http://127.0.0.1:1/mcp").await;
    let (status, challenge) = whoami(&url, &elsewhere).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(challenge.contains("(aud)"), "{challenge}");
}

#[tokio::test]
async fn a_cached_token_passes_until_its_entry_ends_and_one_request_serves_concurrent_checks() {
    let Some(authority) = Authority::run("identity.mjs", vec![]).await else {
        return;
    };
    let issuer = authority.issuer.clone();
    let endpoint = authority.ready["introspection_endpoint"]
        .as_str()
        .unwrap()
        .to_owned();
    let audience = "http://127.0.0.1:7/mcp";
    let verifier = IntrospectionVerifier::builder(audience)
        .endpoint(&endpoint)
        .issuer(&issuer)
        .client_secret_post("rs-post", RS_SECRET)
        .cache(100, Duration::from_secs(2))
        .build()
        .unwrap();
    let opaque = token(&authority, "opaque-app", audience).await;
    // Eight checks at once: one introspection.
    let checks: Vec<_> = (0..8)
        .map(|_| {
            let (v, t) = (verifier.clone(), opaque.clone());
            tokio::spawn(async move { v.verify(&t).await.map(|c| c.subject.clone()) })
        })
        .collect();
    for check in checks {
        assert_eq!(check.await.unwrap(), Ok("opaque-app".to_owned()));
    }
    assert_eq!(introspections(&authority).await, 1);
    let caller = verifier.verify(&opaque).await.unwrap();
    assert_eq!(caller.scopes, ["notes:read"]);
    assert_eq!(caller.issuer.as_deref(), Some(issuer.as_str()));

    // Revoked: the cache answers until its entry ends (2 s, counted in whole seconds), then
    // the server does.
    revoke(&authority, &opaque).await;
    assert!(verifier.verify(&opaque).await.is_ok(), "cached");
    assert_eq!(introspections(&authority).await, 1);
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let refused = verifier.verify(&opaque).await.unwrap_err();
    assert!(
        matches!(refused, TokenError::Invalid(ref why) if why.contains("not active")),
        "{refused:?}"
    );
    // A refusal is never kept: the next check asks again.
    let _ = verifier.verify(&opaque).await;
    assert_eq!(introspections(&authority).await, 3);

    // A token past 16 KiB is refused before anything is asked.
    let long = "x".repeat(16 * 1024 + 1);
    assert!(matches!(
        verifier.verify(&long).await,
        Err(TokenError::Invalid(_))
    ));
    assert_eq!(introspections(&authority).await, 3);

    // The server's own credentials wrong: unavailable (503), not the caller's fault.
    let wrong = IntrospectionVerifier::builder(audience)
        .endpoint(&endpoint)
        .client_secret_basic("rs", "not the secret")
        .build()
        .unwrap();
    let fresh = token(&authority, "opaque-app", audience).await;
    assert!(matches!(
        wrong.verify(&fresh).await,
        Err(TokenError::Unavailable(_))
    ));
}

#[tokio::test]
async fn jwts_are_checked_locally_and_opaque_tokens_by_introspection_through_one_verifier() {
    let Some(authority) = Authority::run("identity.mjs", vec![]).await else {
        return;
    };
    let (issuer, jwks) = (authority.issuer.clone(), authority.jwks_uri.clone());
    let (url, _server) = serve(&issuer, |url| {
        let jwt = JwtVerifier::builder(url)
            .issuer(&issuer)
            .jwks_url(&jwks)
            .build()
            .unwrap();
        let opaque = introspection(url, &issuer)
            .client_secret_basic("rs", RS_SECRET)
            .build()
            .unwrap();
        JwtOrOpaque::new(jwt, opaque)
    })
    .await;
    let jwt = token(&authority, "app", &url).await;
    assert_eq!(jwt.split('.').count(), 3);
    assert_eq!(whoami(&url, &jwt).await, (StatusCode::OK, "app".into()));
    assert_eq!(
        introspections(&authority).await,
        0,
        "a JWT is checked locally"
    );
    let opaque = token(&authority, "opaque-app", &url).await;
    assert_eq!(
        whoami(&url, &opaque).await,
        (StatusCode::OK, "opaque-app".into())
    );
    assert_eq!(introspections(&authority).await, 1);
    let (status, _) = whoami(&url, "not-a-token-the-server-issued").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

/// Posts to one of the authorization server's key controls; answers the `kid`s published.
async fn keys(authority: &Authority, control: &str) -> Value {
    let answer = common::post(&format!("{}/{control}", authority.issuer), &[], "").await;
    assert_eq!(answer.status, StatusCode::OK);
    serde_json::from_slice::<Value>(&answer.body).unwrap()["kids"].clone()
}

#[tokio::test]
async fn keys_rotated_while_a_client_calls_lose_no_request_and_a_removed_key_verifies_nothing() {
    let Some(authority) = Authority::run("identity.mjs", vec![]).await else {
        return;
    };
    let audience = "http://127.0.0.1:8/mcp";
    let verifier = JwtVerifier::builder(audience)
        .issuer(&authority.issuer)
        .jwks_url(&authority.jwks_uri)
        .refetch_floor(Duration::from_millis(200))
        .build()
        .unwrap();
    let first = token(&authority, "app", audience).await;
    assert!(verifier.verify(&first).await.is_ok());

    // A new key: tokens it signs pass at once (an unknown `kid` fetches the set again), and the
    // old key's tokens still pass while it is published.
    assert_eq!(keys(&authority, "_rotate").await, json!(["key-2", "key-1"]));
    let second = token(&authority, "app", audience).await;
    tokio::time::sleep(Duration::from_millis(250)).await; // past the floor of the first fetch
    let passed = verifier.verify(&second).await;
    assert!(
        passed.is_ok(),
        "no request refused after the new key: {passed:?}"
    );
    assert!(verifier.verify(&first).await.is_ok());

    // The old key retired: once the set is fetched again, its tokens are refused.
    assert_eq!(keys(&authority, "_retire").await, json!(["key-2"]));
    verifier.refresh().await.unwrap();
    let refused = verifier.verify(&first).await.unwrap_err();
    assert!(
        matches!(refused, TokenError::Invalid(ref why) if why.contains("does not know")),
        "{refused:?}"
    );
    assert!(verifier.verify(&second).await.is_ok());

    // A new key under the same `kid`: the signature fails with the key known, the set is
    // fetched again, and the token passes; the old key's token under that kid does not.
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(keys(&authority, "_rekey").await, json!(["key-2"]));
    let third = token(&authority, "app", audience).await;
    assert!(
        verifier.verify(&third).await.is_ok(),
        "refetched after a failed signature"
    );
    let old = verifier.verify(&second).await;
    assert!(
        old.is_ok(),
        "the cache still holds a token verified before: {old:?}"
    );
}

#[tokio::test]
async fn a_key_set_stays_while_its_server_is_down() {
    let Some(authority) = Authority::run("identity.mjs", vec![]).await else {
        return;
    };
    let audience = "http://127.0.0.1:9/mcp";
    let verifier = JwtVerifier::builder(audience)
        .issuer(&authority.issuer)
        .jwks_url(&authority.jwks_uri)
        .max_key_age(Duration::from_millis(100))
        .refetch_floor(Duration::from_millis(50))
        .cache_capacity(0)
        .build()
        .unwrap();
    let first = token(&authority, "app", audience).await;
    assert!(verifier.verify(&first).await.is_ok());
    drop(authority); // the authorization server stops
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The keys are old and cannot be fetched again: the last good set still verifies.
    assert!(verifier.verify(&first).await.is_ok());
}

/// Two instances on one Redis share introspection answers: the second asks no one.
#[cfg(feature = "redis")]
#[tokio::test]
async fn instances_share_introspection_answers_through_redis() {
    use mcp_runtime::redis::Redis;
    let Some(authority) = Authority::run("identity.mjs", vec![]).await else {
        return;
    };
    let redis = common::engines::RedisServer::start();
    let audience = "http://127.0.0.1:10/mcp";
    let instance = |redis: Redis| {
        IntrospectionVerifier::builder(audience)
            .discover(&authority.issuer)
            .client_secret_basic("rs", RS_SECRET)
            .cache(100, Duration::from_secs(60))
            .shared_cache(redis.introspection_cache())
            .build()
            .unwrap()
    };
    let a = instance(Redis::connect(&redis.url()).await.unwrap());
    let b = instance(
        Redis::connect(&redis.url())
            .await
            .unwrap()
            .with_prefix("mcp:"),
    );
    let opaque = token(&authority, "opaque-app", audience).await;
    assert_eq!(a.verify(&opaque).await.unwrap().subject, "opaque-app");
    assert_eq!(b.verify(&opaque).await.unwrap().subject, "opaque-app");
    assert_eq!(
        introspections(&authority).await,
        1,
        "the second instance read Redis"
    );
    // A refusal is not shared: an unknown token is asked about by each instance.
    assert!(a.verify("unknown-token").await.is_err());
    assert!(b.verify("unknown-token").await.is_err());
    assert_eq!(introspections(&authority).await, 3);
    // Without `cache`, a shared cache is refused at build.
    let lone = IntrospectionVerifier::builder(audience)
        .endpoint("http://127.0.0.1:1/introspect")
        .client_secret_basic("rs", RS_SECRET)
        .shared_cache(
            Redis::connect(&redis.url())
                .await
                .unwrap()
                .introspection_cache(),
        )
        .build()
        .unwrap_err()
        .to_string();
    assert!(lone.contains("cache(entries, ttl)"), "{lone}");
}
