//! Authorization over real HTTP: an OAuth resource server with JWT access tokens minted here
//! (Ed25519 by `TestIssuer`, ES256 with ring), keys served as a JWKS over loopback HTTP.
//!
//! Authentication: no token, malformed headers, forged tokens (bad signature, `alg: none`,
//! HMAC keyed with the public key, expired, not yet valid, wrong audience or issuer), an
//! unknown `kid` and a key rotation, an unreachable JWKS. Authorization: a missing scope on one
//! tool while the others work, filtered private lists, custom checks, anonymous callers, a
//! `requestState` replayed by another caller. The metadata document at both well-known URIs.
//! Every test ends by checking that no token it minted reached the logs (captured at TRACE).

mod common;

use axum::routing::get;
use base64::Engine as _;
use common::*;
use http::{Method, StatusCode};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::jwt::JwtVerifier;
use mcp_runtime::auth::{AccessCheck, AccessRequest, Denied, ResourceServer};
use mcp_runtime::testing::TestIssuer;
use mcp_runtime::{
    Ask, Caller, Elicitation, FromContext, HttpOptions, McpError, NoArguments, Prompt, Resource,
    Rounds, Server, Step, Tool, handler::IntoToolResult, tool,
};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

const ISSUER: &str = "https://auth.example.com";

// ---------------------------------------------------------------------------------------------
// Logs: everything at TRACE, into one buffer; every minted token is remembered.
// ---------------------------------------------------------------------------------------------

fn logs() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = buf.clone();
        let _ = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
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

fn minted() -> &'static Mutex<Vec<String>> {
    static MINTED: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    MINTED.get_or_init(Mutex::default)
}

/// Remembers a token (to look for it in the logs) and returns it.
fn remember(token: String) -> String {
    minted().lock().unwrap().push(token.clone());
    token
}

/// No token minted so far appears in the logs (nor its signature alone).
fn assert_no_token_logged() {
    let text = String::from_utf8_lossy(&logs().lock().unwrap()).into_owned();
    assert!(!text.is_empty(), "the log capture works");
    for token in minted().lock().unwrap().iter() {
        let signature = token.rsplit('.').next().unwrap_or_default();
        assert!(!text.contains(token.as_str()), "a token reached the logs");
        if signature.len() > 16 {
            assert!(
                !text.contains(signature),
                "a token's signature reached the logs"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Keys and tokens
// ---------------------------------------------------------------------------------------------

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// An ES256 key made with ring.
struct EsKey {
    kid: String,
    pkcs8: Vec<u8>,
    public: Vec<u8>,
}

impl EsKey {
    fn new(kid: &str) -> EsKey {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        EsKey {
            kid: kid.to_owned(),
            pkcs8: pkcs8.as_ref().to_vec(),
            public: pair.public_key().as_ref().to_vec(),
        }
    }
    fn jwk(&self) -> Value {
        json!({
            "kty": "EC", "crv": "P-256", "kid": self.kid, "alg": "ES256", "use": "sig",
            "x": b64(&self.public[1..33]), "y": b64(&self.public[33..65]),
        })
    }
    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        let key = EncodingKey::from_ec_der(&self.pkcs8);
        remember(jsonwebtoken::encode(&header, claims, &key).unwrap())
    }
}

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

/// Standard claims for `audience`, with `extra` over them.
fn claims(audience: &str, extra: Value) -> Value {
    let mut c = json!({
        "iss": ISSUER, "aud": audience, "sub": "alice", "iat": now(), "exp": now() + 600,
        "scope": "docs:read",
    });
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

// ---------------------------------------------------------------------------------------------
// A JWKS served over loopback HTTP
// ---------------------------------------------------------------------------------------------

struct Jwks {
    url: String,
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Jwks {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve_jwks(keys: Vec<Value>) -> Jwks {
    let keys = Arc::new(Mutex::new(keys));
    let fetches = Arc::new(AtomicUsize::new(0));
    let (k, f) = (keys.clone(), fetches.clone());
    let app = axum::Router::new().route(
        "/jwks.json",
        get(move || {
            let (k, f) = (k.clone(), f.clone());
            async move {
                f.fetch_add(1, Ordering::SeqCst);
                let doc = json!({"keys": *k.lock().unwrap()});
                ([("content-type", "application/json")], doc.to_string())
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Jwks {
        url: format!("http://{addr}/jwks.json"),
        keys,
        fetches,
        task,
    }
}

// ---------------------------------------------------------------------------------------------
// The protected server
// ---------------------------------------------------------------------------------------------

/// Removes every document (needs the `admin` scope).
#[tool(scopes = ["admin"])]
fn purge() -> String {
    "purged".into()
}

/// Runs of the `payroll` handler (only one test calls it).
static PAYROLL_RUNS: AtomicUsize = AtomicUsize::new(0);

async fn staff_only(access: AccessRequest) -> Result<(), Denied> {
    let staff = access
        .caller()
        .and_then(|c| c.claim("staff"))
        .and_then(Value::as_bool)
        == Some(true);
    if staff {
        Ok(())
    } else {
        Err(Denied::new("only staff may read the payroll"))
    }
}

async fn confirm(rounds: Rounds) -> Result<Step<String>, McpError> {
    match rounds.answer::<Elicitation<String>>("ok")? {
        None => rounds.ask(Ask::new().elicit::<String>("ok", "Go ahead?"), &()),
        Some(answer) => Ok(Step::Done(format!("{answer:?}"))),
    }
}

fn server() -> Server {
    Server::builder()
        .tool(
            Tool::new("search")
                .description("Searches private documents.")
                .scopes(["docs:read"])
                .handler(|_: NoArguments, _cx| async { "found 2 documents" }),
        )
        .tool(
            Tool::new("ping")
                .description("Answers pong.")
                .handler(|_: NoArguments, _cx| async { "pong" }),
        )
        .tool(
            Tool::new("whoami")
                .description("Says who is calling.")
                .handler(
                    |_: NoArguments, cx: mcp_runtime::RequestContext| async move {
                        let caller = Caller::from_context(&cx)?;
                        Ok::<_, McpError>(format!("{} via {:?}", caller.subject, caller.issuer))
                    },
                ),
        )
        .tool(
            Tool::new("payroll")
                .description("Reads the payroll.")
                .authorize(AccessCheck::new(staff_only))
                .handler(|_: NoArguments, _cx| async {
                    PAYROLL_RUNS.fetch_add(1, Ordering::SeqCst);
                    "payroll"
                }),
        )
        .tool(
            Tool::new("confirm")
                .description("Asks before doing.")
                .raw_handler(|call| async move {
                    let rounds = Rounds::from_context(&call.context)?;
                    confirm(rounds).await?.into_tool_result()
                }),
        )
        .tool(purge {})
        .resource(
            Resource::new("docs://handbook", "handbook")
                .handler(|_read| async { "the handbook".to_owned() }),
        )
        .prompt(Prompt::new("brief").handler(|_get| async { "Write a brief." }))
        .state_keys(mcp_runtime::KeyRing::new(&[[3; 32]]).unwrap())
        .build()
        .unwrap()
}

struct Protected {
    url: String,
    base: String,
    audience: String,
    task: tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
}

impl Drop for Protected {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `server()` behind OAuth: tokens for `http://<addr>/mcp` from `ISSUER`, keys from `jwks`.
async fn protected(jwks: &Jwks, floor: Duration, anonymous: bool) -> Protected {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let audience = format!("http://{addr}/mcp");
    let verifier = JwtVerifier::builder(&audience)
        .issuer(ISSUER)
        .jwks_url(&jwks.url)
        .refetch_floor(floor)
        .build()
        .unwrap();
    let mut rs = ResourceServer::new(&audience, ISSUER, verifier)
        .unwrap()
        .scopes_supported(["docs:read", "offline_access"])
        // `purge`'s scope is asked for by its challenge only, not advertised.
        .step_up_scopes(["admin"]);
    if anonymous {
        rs = rs.allow_anonymous();
    }
    let task = tokio::spawn(server().serve(listener, HttpOptions::default().auth(rs)));
    Protected {
        url: audience.clone(),
        base: format!("http://{addr}"),
        audience,
        task,
    }
}

/// A JWKS with an Ed25519 test issuer's key and an ES256 key, and a server behind it.
async fn setup(anonymous: bool) -> (TestIssuer, EsKey, Jwks, Protected) {
    logs();
    let es = EsKey::new("es-1");
    let jwks = serve_jwks(vec![es.jwk()]).await;
    let server = protected(&jwks, Duration::from_millis(300), anonymous).await;
    // The issuer's audience is the server's URI, known once it listens.
    let issuer = TestIssuer::new(ISSUER, server.audience.clone());
    jwks.keys.lock().unwrap().push(issuer.jwk());
    (issuer, es, jwks, server)
}

fn call_body(tool: &str) -> Value {
    request(1, "tools/call", json!({"name": tool, "arguments": {}}))
}

async fn call_as(url: &str, token: Option<&str>, body: &Value) -> HttpResponse {
    let mut headers = headers_for(body);
    if let Some(t) = token {
        headers.push(("Authorization".into(), format!("Bearer {t}")));
    }
    post(url, &headers, serde_json::to_vec(body).unwrap()).await
}

/// The parameters of the `WWW-Authenticate: Bearer` challenge.
fn challenge(resp: &HttpResponse) -> std::collections::HashMap<String, String> {
    let value = resp
        .header("www-authenticate")
        .unwrap_or_else(|| panic!("a challenge with status {}", resp.status));
    let rest = value.strip_prefix("Bearer ").expect("a Bearer challenge");
    let mut params = std::collections::HashMap::new();
    for part in rest.split("\", ") {
        let (k, v) = part.split_once("=\"").expect("key=\"value\"");
        params.insert(k.to_owned(), v.trim_end_matches('"').to_owned());
    }
    params
}

fn text_of(resp: &HttpResponse) -> String {
    let r = response_of(resp);
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {r}"))
        .to_owned()
}

// ---------------------------------------------------------------------------------------------
// Authentication
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn no_token_is_challenged_with_the_scopes_the_operation_needs() {
    let (issuer, _es, _jwks, s) = setup(false).await;
    let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", s.base);

    let resp = call_as(&s.url, None, &call_body("search")).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    let c = challenge(&resp);
    assert_eq!(c["resource_metadata"], metadata);
    assert_eq!(c["scope"], "docs:read", "the scopes of this operation");
    assert!(
        !c.contains_key("error"),
        "no error code without credentials"
    );
    assert_eq!(response_of(&resp)["error"]["code"], -32600);

    // An operation that needs no scope: the baseline (`offline_access` never advertised).
    let resp = call_as(&s.url, None, &call_body("ping")).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(challenge(&resp)["scope"], "docs:read");
    let resp = call_as(&s.url, None, &call_body("purge")).await;
    assert_eq!(challenge(&resp)["scope"], "admin");

    // A token in the query string is not a token.
    let token = remember(issuer.token("alice", &["docs:read"]));
    let body = call_body("ping");
    let resp = post(
        &format!("{}?access_token={token}", s.url),
        &headers_for(&body),
        serde_json::to_vec(&body).unwrap(),
    )
    .await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);

    // The same token where it belongs works.
    let resp = call_as(&s.url, Some(&token), &call_body("ping")).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_eq!(text_of(&resp), "pong");
    assert_no_token_logged();
}

#[tokio::test]
async fn malformed_authorization_headers_are_bad_requests() {
    let (_issuer, _es, _jwks, s) = setup(false).await;
    let body = call_body("ping");
    for value in ["Bearer", "Bearer a b", "Bearer a\"b", "Bearer =abc"] {
        let headers = with_header(headers_for(&body), "Authorization", value);
        let resp = post(&s.url, &headers, serde_json::to_vec(&body).unwrap()).await;
        assert_eq!(resp.status, StatusCode::BAD_REQUEST, "{value}");
        assert_eq!(challenge(&resp)["error"], "invalid_request", "{value}");
    }
    // Another scheme is no bearer token at all.
    let headers = with_header(headers_for(&body), "Authorization", "Basic YWxpY2U6cHc=");
    let resp = post(&s.url, &headers, serde_json::to_vec(&body).unwrap()).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    // Two Authorization headers.
    let mut headers = headers_for(&body);
    headers.push(("Authorization".into(), "Bearer abc".into()));
    headers.push(("Authorization".into(), "Bearer def".into()));
    let resp = post(&s.url, &headers, serde_json::to_vec(&body).unwrap()).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    assert_no_token_logged();
}

#[tokio::test]
async fn forged_and_misaddressed_tokens_are_refused() {
    let (issuer, es, _jwks, s) = setup(false).await;
    let aud = s.audience.clone();
    let valid = es.sign(&claims(&aud, json!({})));
    let resp = call_as(&s.url, Some(&valid), &call_body("search")).await;
    assert_eq!(resp.status, StatusCode::OK, "ES256 tokens are accepted");
    let ed = remember(issuer.token("bob", &["docs:read"]));
    let resp = call_as(&s.url, Some(&ed), &call_body("search")).await;
    assert_eq!(resp.status, StatusCode::OK, "EdDSA tokens are accepted");

    let header_b64 = |h: Value| b64(h.to_string().as_bytes());
    let payload_b64 = b64(claims(&aud, json!({})).to_string().as_bytes());
    // A bad signature: the last bytes of a valid one changed.
    // (The changed character is compared with itself: a signature that already had an `A`
    // there stayed valid once in about 64 runs.)
    let mut bad_sig = valid.clone();
    let at = bad_sig.len() - 4;
    let flipped = if &bad_sig[at..at + 1] == "A" {
        "B"
    } else {
        "A"
    };
    bad_sig.replace_range(at..at + 1, flipped);
    // `alg: none`, unsigned.
    let none = format!(
        "{}.{payload_b64}.",
        header_b64(json!({"alg": "none", "typ": "JWT", "kid": "es-1"}))
    );
    // HMAC keyed with the public key (the algorithm-confusion attack), naming the real kid.
    let mut hs_header = Header::new(Algorithm::HS256);
    hs_header.kid = Some("es-1".into());
    let hmac = jsonwebtoken::encode(
        &hs_header,
        &claims(&aud, json!({})),
        &EncodingKey::from_secret(&es.public).unwrap(),
    )
    .unwrap();
    let hmac_jwk = jsonwebtoken::encode(
        &hs_header,
        &claims(&aud, json!({})),
        &EncodingKey::from_secret(es.jwk().to_string().as_bytes()).unwrap(),
    )
    .unwrap();
    let cases = [
        ("bad signature", bad_sig),
        ("alg none", none),
        ("HMAC with the public key", hmac),
        ("HMAC with the JWK text", hmac_jwk),
        (
            "expired",
            es.sign(&claims(
                &aud,
                json!({"exp": now() - 3600, "iat": now() - 7200}),
            )),
        ),
        (
            "not yet valid",
            es.sign(&claims(&aud, json!({"nbf": now() + 3600}))),
        ),
        (
            "wrong audience",
            es.sign(&claims("https://other.example.com/mcp", json!({}))),
        ),
        (
            "wrong issuer",
            es.sign(&claims(&aud, json!({"iss": "https://evil.example.com"}))),
        ),
        ("no subject", es.sign(&claims(&aud, json!({"sub": null})))),
        ("not a JWT", "abc.def".to_owned()),
        ("garbage", "bm90LWEtand0".to_owned()),
    ];
    for (what, token) in cases {
        let token = remember(token);
        let resp = call_as(&s.url, Some(&token), &call_body("search")).await;
        assert_eq!(resp.status, StatusCode::UNAUTHORIZED, "{what}");
        let c = challenge(&resp);
        assert_eq!(c["error"], "invalid_token", "{what}");
        assert!(c.contains_key("error_description"), "{what}");
        assert!(
            !c["error_description"].contains(&token),
            "the description never quotes the token"
        );
    }
    let expired = es.sign(&claims(&aud, json!({"exp": now() - 3600})));
    let resp = call_as(&s.url, Some(&expired), &call_body("ping")).await;
    assert!(challenge(&resp)["error_description"].contains("expired"));
    // Within the leeway, a token just expired still passes.
    let just = es.sign(&claims(&aud, json!({"exp": now() - 5})));
    let resp = call_as(&s.url, Some(&just), &call_body("ping")).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_no_token_logged();
}

/// RFC 7519 §4.1.1: `iss` is one StringOrURI. A list naming the trusted issuer (which
/// `jsonwebtoken` alone would accept, dropping the caller's issuer) is an invalid token.
#[tokio::test]
async fn an_iss_list_is_an_invalid_token_even_naming_the_trusted_issuer() {
    let (issuer, es, _jwks, s) = setup(false).await;
    let aud = s.audience.clone();
    for (what, token) in [
        (
            "Ed25519, [trusted]",
            issuer.token_with(json!({"iss": [ISSUER], "scope": "docs:read"})),
        ),
        (
            "ES256, [trusted]",
            es.sign(&claims(&aud, json!({"iss": [ISSUER]}))),
        ),
        (
            "ES256, [trusted, other]",
            es.sign(&claims(
                &aud,
                json!({"iss": [ISSUER, "https://evil.example.com"]}),
            )),
        ),
        ("ES256, a number", es.sign(&claims(&aud, json!({"iss": 7})))),
    ] {
        let token = remember(token);
        let resp = call_as(&s.url, Some(&token), &call_body("search")).await;
        assert_eq!(resp.status, StatusCode::UNAUTHORIZED, "{what}");
        let c = challenge(&resp);
        assert_eq!(c["error"], "invalid_token", "{what}");
        assert!(
            c["error_description"].contains("`iss`"),
            "{what}: {}",
            c["error_description"]
        );
    }
    // The same token with `iss` a string passes.
    let token = remember(issuer.token_with(json!({"iss": ISSUER, "scope": "docs:read"})));
    let resp = call_as(&s.url, Some(&token), &call_body("search")).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_no_token_logged();
}

/// RFC 6749 §3.3: scopes are separated by spaces only; a tab makes no two scopes of one.
#[tokio::test]
async fn a_tab_in_the_scope_claim_grants_neither_scope() {
    let (issuer, _es, _jwks, s) = setup(false).await;
    let tabbed = remember(issuer.token_with(json!({"sub": "tab", "scope": "docs:read\tadmin"})));
    for tool in ["search", "purge"] {
        let resp = call_as(&s.url, Some(&tabbed), &call_body(tool)).await;
        assert_eq!(resp.status, StatusCode::FORBIDDEN, "{tool}");
        assert_eq!(challenge(&resp)["error"], "insufficient_scope", "{tool}");
    }
    assert_no_token_logged();
}

#[tokio::test]
async fn an_unknown_key_id_fetches_the_jwks_again_at_most_once_per_floor() {
    let (issuer, _es, jwks, s) = setup(false).await;
    let ok = remember(issuer.token("alice", &[]));
    let resp = call_as(&s.url, Some(&ok), &call_body("ping")).await;
    assert_eq!(resp.status, StatusCode::OK);
    let fetched = jwks.fetches.load(Ordering::SeqCst);
    assert_eq!(fetched, 1, "the keys are fetched on the first token");

    // A key the server has not seen: refused, after at most one more fetch.
    tokio::time::sleep(Duration::from_millis(350)).await;
    let rotated = EsKey::new("es-2");
    let token = rotated.sign(&claims(&s.audience, json!({})));
    for _ in 0..5 {
        let resp = call_as(&s.url, Some(&token), &call_body("ping")).await;
        assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
        assert!(challenge(&resp)["error_description"].contains("key"));
    }
    assert_eq!(
        jwks.fetches.load(Ordering::SeqCst),
        fetched + 1,
        "one fetch per floor, however many tokens name the unknown key"
    );

    // The authorization server rotates its keys: once the floor has passed, the same token
    // is valid.
    jwks.keys.lock().unwrap().push(rotated.jwk());
    tokio::time::sleep(Duration::from_millis(350)).await;
    let resp = call_as(&s.url, Some(&token), &call_body("ping")).await;
    assert_eq!(
        resp.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&resp.body)
    );
    assert_eq!(text_of(&resp), "pong");
    assert_no_token_logged();
}

#[tokio::test]
async fn an_unreachable_jwks_is_a_503_not_a_401() {
    logs();
    let jwks = serve_jwks(vec![]).await;
    let url = jwks.url.clone();
    drop(jwks); // nothing listens there any more
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let audience = format!("http://{}/mcp", listener.local_addr().unwrap());
    let verifier = JwtVerifier::builder(&audience)
        .issuer(ISSUER)
        .jwks_url(&url)
        .build()
        .unwrap();
    let rs = ResourceServer::new(&audience, ISSUER, verifier).unwrap();
    let task = tokio::spawn(server().serve(listener, HttpOptions::default().auth(rs)));
    let issuer = TestIssuer::new(ISSUER, audience.clone());
    let token = remember(issuer.token("alice", &[]));
    let resp = call_as(&audience, Some(&token), &call_body("ping")).await;
    assert_eq!(resp.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(resp.header("retry-after").is_some());
    task.abort();
    assert_no_token_logged();
}

// ---------------------------------------------------------------------------------------------
// Authorization
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_missing_scope_refuses_one_tool_and_the_others_keep_working() {
    let (issuer, _es, _jwks, s) = setup(false).await;
    let reader = remember(issuer.token("carol", &["docs:read"]));
    let nobody = remember(issuer.token("dave", &[]));

    let resp = call_as(&s.url, Some(&nobody), &call_body("search")).await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    let c = challenge(&resp);
    assert_eq!(c["error"], "insufficient_scope");
    assert_eq!(c["scope"], "docs:read");
    assert_eq!(
        c["resource_metadata"],
        format!("{}/.well-known/oauth-protected-resource/mcp", s.base)
    );
    let error = &response_of(&resp)["error"];
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["requiredScopes"], json!(["docs:read"]));
    assert!(error["message"].as_str().unwrap().contains("search"));

    // The same caller keeps the rest: another tool, the resource, the prompt.
    let resp = call_as(&s.url, Some(&nobody), &call_body("ping")).await;
    assert_eq!(
        (resp.status, text_of(&resp)),
        (StatusCode::OK, "pong".into())
    );
    let read = request(2, "resources/read", json!({"uri": "docs://handbook"}));
    let resp = call_as(&s.url, Some(&nobody), &read).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_eq!(
        response_of(&resp)["result"]["contents"][0]["text"],
        "the handbook"
    );
    let get = request(3, "prompts/get", json!({"name": "brief"}));
    let resp = call_as(&s.url, Some(&nobody), &get).await;
    assert_eq!(resp.status, StatusCode::OK);

    // With the scope, the tool runs; a scope from a macro attribute is enforced alike.
    let resp = call_as(&s.url, Some(&reader), &call_body("search")).await;
    assert_eq!(text_of(&resp), "found 2 documents");
    let resp = call_as(&s.url, Some(&reader), &call_body("purge")).await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    assert_eq!(challenge(&resp)["scope"], "admin");
    let admin = remember(issuer.token("erin", &["admin"]));
    let resp = call_as(&s.url, Some(&admin), &call_body("purge")).await;
    assert_eq!(text_of(&resp), "purged");

    // The handler sees the caller its token stands for.
    let resp = call_as(&s.url, Some(&reader), &call_body("whoami")).await;
    assert_eq!(
        text_of(&resp),
        format!("carol via Some({:?})", ISSUER),
        "subject and issuer of the token"
    );
    assert_no_token_logged();
}

#[tokio::test]
async fn lists_show_only_what_the_caller_may_use_and_are_private() {
    let (issuer, _es, _jwks, s) = setup(false).await;
    let names = |resp: &HttpResponse| -> Vec<String> {
        response_of(resp)["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let list = request(1, "tools/list", json!({}));
    let nobody = remember(issuer.token("dave", &[]));
    let resp = call_as(&s.url, Some(&nobody), &list).await;
    assert_eq!(names(&resp), ["ping", "whoami", "confirm"]);
    assert_eq!(response_of(&resp)["result"]["cacheScope"], "private");

    let staff = remember(
        issuer.token_with(json!({"sub": "sam", "scope": "docs:read admin", "staff": true})),
    );
    let resp = call_as(&s.url, Some(&staff), &list).await;
    assert_eq!(
        names(&resp),
        ["search", "ping", "whoami", "payroll", "confirm", "purge"]
    );
    assert_eq!(response_of(&resp)["result"]["cacheScope"], "private");

    // Lists with nothing guarded keep their configured scope.
    let resources = request(2, "resources/list", json!({}));
    let resp = call_as(&s.url, Some(&nobody), &resources).await;
    assert_eq!(response_of(&resp)["result"]["cacheScope"], "public");
    assert_no_token_logged();
}

#[tokio::test]
async fn custom_checks_decide_per_caller_and_the_refused_handler_never_runs() {
    let (issuer, _es, _jwks, s) = setup(false).await;
    let plain = remember(issuer.token("dave", &[]));
    let resp = call_as(&s.url, Some(&plain), &call_body("payroll")).await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    let error = &response_of(&resp)["error"];
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("only staff may read the payroll"),
        "{error}"
    );
    assert_eq!(
        PAYROLL_RUNS.load(Ordering::SeqCst),
        0,
        "the refused handler never ran"
    );
    let staff = remember(issuer.token_with(json!({"sub": "sam", "staff": true})));
    let resp = call_as(&s.url, Some(&staff), &call_body("payroll")).await;
    assert_eq!(text_of(&resp), "payroll");
    assert_eq!(PAYROLL_RUNS.load(Ordering::SeqCst), 1);
    assert_no_token_logged();
}

#[tokio::test]
async fn anonymous_callers_use_what_needs_no_scope_and_are_challenged_for_the_rest() {
    let (issuer, _es, _jwks, s) = setup(true).await;
    let resp = call_as(&s.url, None, &call_body("ping")).await;
    assert_eq!(
        (resp.status, text_of(&resp)),
        (StatusCode::OK, "pong".into())
    );
    let resp = call_as(&s.url, None, &call_body("search")).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    let c = challenge(&resp);
    assert_eq!(c["scope"], "docs:read");
    assert!(!c.contains_key("error"));
    // A handler that takes the caller: 401, not an internal error.
    let resp = call_as(&s.url, None, &call_body("whoami")).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert!(resp.header("www-authenticate").is_some());
    // An invalid token is never taken as anonymous.
    let forged = remember(format!("{}x", issuer.token("alice", &[])));
    let resp = call_as(&s.url, Some(&forged), &call_body("ping")).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(challenge(&resp)["error"], "invalid_token");
    // Anonymous lists leave out what needs a scope.
    let resp = call_as(&s.url, None, &request(1, "tools/list", json!({}))).await;
    let tools = response_of(&resp)["result"]["tools"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(tools, 3, "ping, whoami, confirm");
    assert_no_token_logged();
}

#[tokio::test]
async fn a_request_state_minted_for_one_caller_is_refused_for_another() {
    let (issuer, _es, _jwks, s) = setup(false).await;
    let alice = remember(issuer.token("alice", &[]));
    let mallory = remember(issuer.token("mallory", &[]));
    let caps = json!({"elicitation": {}});
    let with_caps = |params: Value, id: i64| {
        let mut m = meta();
        m["io.modelcontextprotocol/clientCapabilities"] = caps.clone();
        let mut p = params;
        p["_meta"] = m;
        request(id, "tools/call", p)
    };
    let first = call_as(
        &s.url,
        Some(&alice),
        &with_caps(json!({"name": "confirm"}), 1),
    )
    .await;
    let result = &response_of(&first)["result"];
    assert_eq!(result["resultType"], "input_required", "{result}");
    let state = result["requestState"].clone();
    let retry = json!({"name": "confirm", "requestState": state,
        "inputResponses": {"ok": {"action": "accept", "content": {"value": "yes"}}}});

    let stolen = call_as(&s.url, Some(&mallory), &with_caps(retry.clone(), 2)).await;
    let error = &response_of(&stolen)["error"];
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("another caller")
    );

    let own = call_as(&s.url, Some(&alice), &with_caps(retry, 3)).await;
    assert_eq!(response_of(&own)["result"]["resultType"], "complete");
    assert_no_token_logged();
}

#[tokio::test]
async fn the_metadata_document_is_served_at_both_well_known_uris() {
    let (_issuer, _es, _jwks, s) = setup(false).await;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let resp = send(Method::GET, &format!("{}{path}", s.base), &[], Vec::new()).await;
        assert_eq!(resp.status, StatusCode::OK, "{path}");
        assert_eq!(resp.content_type(), "application/json");
        let doc: Value = serde_json::from_slice(&resp.body).unwrap();
        assert_eq!(doc["resource"], s.audience);
        assert_eq!(doc["authorization_servers"], json!([ISSUER]));
        assert_eq!(
            doc["scopes_supported"],
            json!(["docs:read"]),
            "never offline_access"
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }
    // The endpoint itself still wants a token; the metadata does not.
    let resp = send(Method::GET, &s.url, &[], Vec::new()).await;
    assert_eq!(resp.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_no_token_logged();
}

#[tokio::test]
async fn a_verified_token_is_served_from_the_cache() {
    logs();
    let issuer = TestIssuer::new(ISSUER, "https://mcp.example.com/mcp");
    let verifier = issuer.verifier();
    use mcp_runtime::auth::TokenVerifier;
    let token = remember(issuer.token("alice", &["a", "b"]));
    let first = verifier.verify(&token).await.unwrap();
    let second = verifier.verify(&token).await.unwrap();
    assert!(
        Arc::ptr_eq(&first, &second),
        "the second sight is the cached caller"
    );
    assert_eq!(first.scopes, ["a", "b"]);
    let other = remember(issuer.token("bob", &[]));
    assert_eq!(verifier.verify(&other).await.unwrap().subject, "bob");
    // A token differing in one byte is not served from the cache.
    let mut tampered = token.clone();
    tampered.push('A');
    assert!(verifier.verify(&remember(tampered)).await.is_err());
    assert_no_token_logged();
}

#[tokio::test]
async fn listen_streams_announce_only_resources_the_caller_may_read() {
    use mcp_runtime::testing::TestClient;
    let server = Server::builder()
        .resource_subscriptions(true)
        .resource(Resource::new("docs://public", "public").handler(|_r| async { "p".to_owned() }))
        .resource(
            Resource::new("docs://secret", "secret")
                .scopes(["secret"])
                .handler(|_r| async { "s".to_owned() }),
        )
        .build()
        .unwrap();
    let plain = TestClient::new(server.clone()).caller(Caller::new("dave"));
    let cleared =
        TestClient::new(server.clone()).caller(Caller::new("sam").with_scopes(["secret"]));
    let filter = json!({"resourceSubscriptions": ["docs://"]});
    let mut a = plain.listen(filter.clone()).await.unwrap();
    let mut b = cleared.listen(filter).await.unwrap();
    for l in [&mut a, &mut b] {
        let ack = l.next().await.unwrap();
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    }
    server.notify_resource_updated("docs://secret");
    server.notify_resource_updated("docs://public");
    let first_a = within("a notification", a.next()).await.unwrap();
    assert_eq!(
        first_a["params"]["uri"], "docs://public",
        "the secret one is not announced"
    );
    let first_b = within("a notification", b.next()).await.unwrap();
    assert_eq!(first_b["params"]["uri"], "docs://secret");
    let second_b = within("a notification", b.next()).await.unwrap();
    assert_eq!(second_b["params"]["uri"], "docs://public");
    server.shutdown();
    assert!(within("the end", a.next()).await.is_none());
}

// ---------------------------------------------------------------------------------------------
// 2025-11-25 sessions
// ---------------------------------------------------------------------------------------------

/// POSTs `body` with the headers a 2025-11-25 client sends on session `session`.
async fn legacy_as(url: &str, token: &str, session: Option<&str>, body: &Value) -> HttpResponse {
    let mut headers = common::post_headers();
    headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id".to_owned(), session.to_owned()));
        headers.push(("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()));
    }
    post(url, &headers, serde_json::to_vec(body).unwrap()).await
}

#[tokio::test]
async fn legacy_sessions_are_authenticated_scoped_and_bound_to_their_caller() {
    let (issuer, _es, _jwks, s) = setup(false).await;
    let alice = remember(issuer.token("alice", &[]));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    // No token: challenged like any request.
    let resp = post(
        &s.url,
        &[("Content-Type".into(), "application/json".into())],
        init.to_string(),
    )
    .await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    let resp = legacy_as(&s.url, &alice, None, &init).await;
    assert_eq!(resp.status, StatusCode::OK);
    let session = resp.header("mcp-session-id").unwrap().to_owned();
    // A tool that needs a scope alice lacks: 403 with the scope in the challenge.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "search", "arguments": {}}});
    let resp = legacy_as(&s.url, &alice, Some(&session), &call).await;
    assert_eq!(
        resp.status,
        StatusCode::FORBIDDEN,
        "{}",
        String::from_utf8_lossy(&resp.body)
    );
    assert_eq!(challenge(&resp)["error"], "insufficient_scope");
    // Another caller cannot use alice's session: as good as unknown.
    let bob = remember(issuer.token("bob", &["docs:read"]));
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let resp = legacy_as(&s.url, &bob, Some(&session), &ping).await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    let resp = legacy_as(&s.url, &alice, Some(&session), &ping).await;
    assert_eq!(response_of(&resp)["result"], json!({}));
    assert_no_token_logged();
}

/// A list cursor that names an item the caller may not see is no cursor: refused as one naming
/// nothing, so that a forged cursor cannot tell which hidden tools exist.
#[tokio::test]
async fn a_cursor_naming_a_hidden_tool_is_no_cursor() {
    let server = Server::builder()
        .page_size(1)
        .tool(Tool::new("open").handler(|_: NoArguments, _| async { "o" }))
        .tool(
            Tool::new("purge_all")
                .scopes(["admin"])
                .handler(|_: NoArguments, _| async { "p" }),
        )
        .tool(Tool::new("zeta").handler(|_: NoArguments, _| async { "z" }))
        .build()
        .unwrap();
    let cursor = |name: &str| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("tools\n{name}"))
    };
    let list = |cursor: String, caller: Option<Caller>| {
        let body = request(1, "tools/list", json!({"cursor": cursor}));
        let call = server.handle_message(body.to_string().as_bytes(), caller);
        async move { serde_json::from_slice::<Value>(&call.unwrap().response().await.body).unwrap() }
    };
    let probed = list(cursor("purge_all"), None).await;
    let missing = list(cursor("no_such_tool"), None).await;
    assert_eq!(probed["error"]["code"], -32602, "{probed}");
    assert_eq!(probed["error"]["message"], missing["error"]["message"]);
    // The caller who may see it pages on from it.
    let admin = Caller::new("root").with_scopes(["admin"]);
    let page = list(cursor("purge_all"), Some(admin)).await;
    assert_eq!(page["result"]["tools"][0]["name"], "zeta", "{page}");
}
