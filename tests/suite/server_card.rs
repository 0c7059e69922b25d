//! The Server Card (SEP-2127, a draft) and the AI Catalog over real HTTP (`--features
//! server-card`): the card says what `server/discover` and `server.json` say, and validates
//! against the extension's JSON Schema; `ETag` revalidation (`304`), the cache and CORS headers,
//! the preflight, `HEAD`, `405`; the catalog points at the card; no token is asked of either on
//! an endpoint behind OAuth; bad entries and clashing paths are refused with clear errors; no
//! route without a card.
//!
//! The schema is `tests/fixtures/server-card.schema.json`: `schema.json` of
//! `modelcontextprotocol/experimental-ext-server-card` at 8924e08, byte for byte (its SHA-256 is
//! checked below; source and licence in `tests/fixtures/server-card.schema.md`). It has no
//! definition of the AI Catalog: the catalog is checked by hand, as that repository's
//! `docs/discovery.md` describes it.

use crate::common;
use base64::Engine as _;
use common::{HttpServer, call, meta, request, send, spawn_http_with};
use http::{Method, StatusCode};
use mcp_runtime::LegacyOptions;
use mcp_runtime::auth::{ResourceServer, TokenError, verifier_fn};
use mcp_runtime::legacy::LEGACY_VERSIONS;
use mcp_runtime::protocol::{Icon, Implementation};
use mcp_runtime::transport::http::{SERVER_CARD_SCHEMA, ServerCard};
use mcp_runtime::{HttpOptions, Server, ServerJson};
use serde_json::{Value, json};
use std::sync::OnceLock;

const CARD_TYPE: &str = "application/mcp-server-card+json";
const CATALOG_TYPE: &str = "application/ai-catalog+json";
const REMOTE: &str = "https://weather.example.com/mcp";

/// SHA-256 of `schema.json` at 8924e08.
const SCHEMA_SHA256: &str = "2c772b51edb367f154771d84ddbae87ddba00a624422c8e46f218a9ac03bf042";

/// The extension's `#/$defs/ServerCard`, compiled.
fn card_schema() -> &'static jsonschema::Validator {
    static SCHEMA: OnceLock<jsonschema::Validator> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/server-card.schema.json"
        );
        let bytes = std::fs::read(path).expect("the vendored schema");
        let digest = ring::digest::digest(&ring::digest::SHA256, &bytes);
        let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex, SCHEMA_SHA256,
            "the vendored schema is the published one"
        );
        let mut schema: Value = serde_json::from_slice(&bytes).expect("the schema is JSON");
        // The file holds definitions only; its own example validator resolves this one.
        schema["$ref"] = json!("#/$defs/ServerCard");
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&schema)
            .expect("the Server Card schema compiles")
    })
}

fn violations(card: &Value) -> Vec<String> {
    card_schema()
        .iter_errors(card)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn assert_valid(card: &Value) {
    let errors = violations(card);
    assert!(errors.is_empty(), "{errors:#?}\n{card:#}");
}

/// A weather server that says everything of itself.
fn weather(version: &str) -> Server {
    let mut info = Implementation::new("weather", version);
    info.title = Some("Weather".into());
    info.description = Some("Forecasts and weather alerts for any city.".into());
    info.website_url = Some("https://weather.example.com".into());
    info.icons = Some(vec![
        Icon::new("https://weather.example.com/icon.png").mime_type("image/png"),
    ]);
    Server::builder()
        .info(info)
        .instructions("Call forecast before alerts.")
        .build()
        .unwrap()
}

fn entry() -> ServerJson {
    ServerJson::new("io.github.owner/weather")
        .remote(REMOTE)
        .repository("https://github.com/owner/weather")
}

fn card_of(server: &Server) -> ServerCard {
    server.server_card(&entry()).expect("a valid card")
}

/// `server` on loopback with its card (and `options`).
async fn serving(server: Server, options: HttpOptions) -> HttpServer {
    let card = card_of(&server);
    spawn_http_with(server, options.server_card(card)).await
}

fn card_url(http: &HttpServer) -> String {
    format!("http://{}/mcp/server-card", http.addr)
}

fn catalog_url(http: &HttpServer) -> String {
    format!("http://{}/.well-known/ai-catalog.json", http.addr)
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

async fn get(url: &str, with: &[(&str, &str)]) -> common::HttpResponse {
    send(Method::GET, url, &headers(with), "").await
}

fn json_of(resp: &common::HttpResponse) -> Value {
    serde_json::from_slice(&resp.body).expect("a JSON body")
}

#[tokio::test]
async fn the_card_says_what_discover_and_server_json_say() {
    let server = weather("0.3.0");
    let server_json = server.server_json(&entry()).unwrap();
    let http = serving(server.clone(), HttpOptions::default()).await;
    let resp = get(&card_url(&http), &[("Accept", CARD_TYPE)]).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_eq!(resp.header("content-type"), Some(CARD_TYPE));
    let card = json_of(&resp);
    assert_valid(&card);
    assert_eq!(card["$schema"], SERVER_CARD_SCHEMA);
    assert_eq!(
        SERVER_CARD_SCHEMA,
        "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
    );

    // What the server says of itself once connected.
    let discover = call(
        &http.url(),
        &request(1, "server/discover", json!({"_meta": meta()})),
    )
    .await
    .json();
    let result = &discover["result"];
    let info = &result["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(card["version"], info["version"]);
    assert_eq!(card["title"], info["title"]);
    assert_eq!(card["description"], info["description"]);
    assert_eq!(card["websiteUrl"], info["websiteUrl"]);
    assert_eq!(card["icons"], info["icons"]);

    // What the registry is told: the same fields, written by the same code.
    for field in [
        "name",
        "version",
        "title",
        "description",
        "websiteUrl",
        "repository",
        "icons",
    ] {
        assert_eq!(card[field], server_json[field], "{field}");
    }
    assert_eq!(card["name"], "io.github.owner/weather");
    let remotes = card["remotes"].as_array().unwrap();
    assert_eq!(remotes.len(), 1);
    assert_eq!(remotes[0]["type"], "streamable-http");
    assert_eq!(remotes[0]["url"], server_json["remotes"][0]["url"]);

    // The versions it serves: discover's, and the 2025-11-25 family it also serves.
    let mut served: Vec<Value> = result["supportedVersions"].as_array().unwrap().clone();
    served.extend(LEGACY_VERSIONS.iter().map(|v| json!(v)));
    assert_eq!(
        remotes[0]["supportedProtocolVersions"],
        Value::Array(served)
    );
    for legacy in LEGACY_VERSIONS {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": legacy, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}});
        let resp = common::post(&http.url(), &common::post_headers(), body.to_string()).await;
        let answer = resp.messages().remove(0);
        assert_eq!(answer["result"]["protocolVersion"], legacy, "{answer}");
    }

    // Only what is needed to connect: no primitives, no capabilities.
    for absent in ["tools", "resources", "prompts", "capabilities", "packages"] {
        assert!(card.get(absent).is_none(), "{absent} in {card}");
    }
}

#[tokio::test]
async fn a_server_of_2026_07_28_only_lists_its_versions_only() {
    let server = Server::builder()
        .name("weather")
        .version("1.0.0")
        .instructions("Forecasts.")
        .legacy(LegacyOptions::off())
        .build()
        .unwrap();
    let discover = server.discover_result();
    let http = serving(server, HttpOptions::default()).await;
    let card = json_of(&get(&card_url(&http), &[]).await);
    assert_valid(&card);
    assert_eq!(
        card["remotes"][0]["supportedProtocolVersions"],
        json!(discover.supported_versions)
    );
}

#[tokio::test]
async fn a_matching_etag_is_answered_304() {
    let http = serving(weather("0.3.0"), HttpOptions::default()).await;
    let first = get(&card_url(&http), &[]).await;
    assert_eq!(first.status, StatusCode::OK);
    let etag = first.header("etag").expect("an ETag").to_owned();
    // Strong, quoted, and the SHA-256 of the exact bytes served.
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let digest = ring::digest::digest(&ring::digest::SHA256, &first.body);
    let expected = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest.as_ref());
    assert_eq!(etag, format!("\"{expected}\""));
    assert_eq!(first.header("cache-control"), Some("public, max-age=3600"));

    let weak = format!("W/{etag}");
    let listed = format!("\"older\", {etag}");
    for asked in [etag.as_str(), "*", weak.as_str(), listed.as_str()] {
        let again = get(&card_url(&http), &[("If-None-Match", asked)]).await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{asked}");
        assert!(again.body.is_empty());
        assert_eq!(again.header("etag"), Some(etag.as_str()));
        assert_eq!(again.header("cache-control"), Some("public, max-age=3600"));
        assert_eq!(again.header("access-control-allow-origin"), Some("*"));
    }
    let other = get(&card_url(&http), &[("If-None-Match", "\"older\"")]).await;
    assert_eq!(other.status, StatusCode::OK);
    assert_eq!(other.body, first.body);
}

#[tokio::test]
async fn the_card_and_its_etag_change_with_the_version() {
    let old = serving(weather("0.3.0"), HttpOptions::default()).await;
    let new = serving(weather("0.4.0"), HttpOptions::default()).await;
    let (before, after) = (
        get(&card_url(&old), &[]).await,
        get(&card_url(&new), &[]).await,
    );
    assert_eq!(json_of(&before)["version"], "0.3.0");
    assert_eq!(json_of(&after)["version"], "0.4.0");
    let old_tag = before.header("etag").unwrap();
    assert_ne!(Some(old_tag), after.header("etag"));
    // A client holding the old card gets the new one.
    let revalidated = get(&card_url(&new), &[("If-None-Match", old_tag)]).await;
    assert_eq!(revalidated.status, StatusCode::OK);
    assert_eq!(json_of(&revalidated)["version"], "0.4.0");
}

fn assert_cors(resp: &common::HttpResponse) {
    assert_eq!(resp.header("access-control-allow-origin"), Some("*"));
    assert_eq!(resp.header("access-control-allow-methods"), Some("GET"));
    assert_eq!(
        resp.header("access-control-allow-headers"),
        Some("Content-Type, If-None-Match")
    );
    assert_eq!(resp.header("access-control-expose-headers"), Some("ETag"));
    assert!(resp.header("access-control-allow-credentials").is_none());
}

#[tokio::test]
async fn any_origin_may_read_the_card_and_its_preflight_is_answered() {
    let http = serving(weather("0.3.0"), HttpOptions::default()).await;
    // An origin the endpoint does not allow for MCP requests: the card is public.
    let origin = ("Origin", "https://directory.example.org");
    for url in [card_url(&http), catalog_url(&http)] {
        let resp = get(&url, &[origin]).await;
        assert_eq!(resp.status, StatusCode::OK, "{url}");
        assert_cors(&resp);
        let preflight = send(
            Method::OPTIONS,
            &url,
            &headers(&[
                origin,
                ("Access-Control-Request-Method", "GET"),
                ("Access-Control-Request-Headers", "if-none-match"),
            ]),
            "",
        )
        .await;
        assert_eq!(preflight.status, StatusCode::NO_CONTENT, "{url}");
        assert_cors(&preflight);
    }
    // The MCP endpoint itself still refuses that origin.
    let refused = common::post(
        &http.url(),
        &headers(&[origin, ("Content-Type", "application/json")]),
        "{}",
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn the_catalog_points_at_the_card() {
    let http = serving(weather("0.3.0"), HttpOptions::default()).await;
    let resp = get(&catalog_url(&http), &[]).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_eq!(resp.header("content-type"), Some(CATALOG_TYPE));
    assert_eq!(resp.header("cache-control"), Some("public, max-age=3600"));
    let etag = resp.header("etag").expect("an ETag");
    let again = get(&catalog_url(&http), &[("If-None-Match", etag)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);

    // docs/discovery.md, "AI Catalog" and "Server Card Entries" (no JSON Schema published).
    let catalog = json_of(&resp);
    assert_eq!(catalog["specVersion"], "1.0");
    let entries = catalog["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1);
    let entry = entries[0].as_object().unwrap();
    assert_eq!(entry["type"], CARD_TYPE);
    // `io.github.owner/weather` in the domain-anchored form: `urn:air:{publisher}:mcp:{name}`.
    assert_eq!(entry["identifier"], "urn:air:owner.github.io:mcp:weather");
    assert!(
        entry.contains_key("url") != entry.contains_key("data"),
        "exactly one of url and data"
    );
    let url = entry["url"].as_str().unwrap();
    assert_eq!(url, "https://weather.example.com/mcp/server-card");
    assert_eq!(Some(url.to_owned()), card_of(&weather("0.3.0")).url());

    // That URL's path is where this server serves the card.
    let path = url.strip_prefix("https://weather.example.com").unwrap();
    let card = get(&format!("http://{}{path}", http.addr), &[]).await;
    assert_eq!(card.status, StatusCode::OK);
    assert_eq!(json_of(&card)["remotes"][0]["url"], REMOTE);
}

#[tokio::test]
async fn the_card_needs_no_token_behind_oauth() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let verifier = verifier_fn(|_token: String| async { Err(TokenError::invalid("no")) });
    let rs = ResourceServer::new(
        format!("http://{addr}/mcp"),
        "https://auth.example.com",
        verifier,
    )
    .unwrap();
    let server = weather("0.3.0");
    let options = HttpOptions::default()
        .auth(rs)
        .server_card(card_of(&server));
    let task = tokio::spawn(server.serve(listener, options));
    let mcp = call(
        &format!("http://{addr}/mcp"),
        &request(1, "server/discover", json!({})),
    )
    .await;
    assert_eq!(
        mcp.status,
        StatusCode::UNAUTHORIZED,
        "MCP requests need one"
    );
    for path in ["/mcp/server-card", "/.well-known/ai-catalog.json"] {
        let resp = get(&format!("http://{addr}{path}"), &[]).await;
        assert_eq!(resp.status, StatusCode::OK, "{path}");
        assert!(resp.header("www-authenticate").is_none());
        let bad_token = get(
            &format!("http://{addr}{path}"),
            &[("Authorization", "Bearer nonsense")],
        )
        .await;
        assert_eq!(
            bad_token.status,
            StatusCode::OK,
            "{path}: the token is not read"
        );
    }
    task.abort();
}

#[tokio::test]
async fn head_is_answered_and_other_methods_are_not_allowed() {
    let http = serving(weather("0.3.0"), HttpOptions::default()).await;
    let full = get(&card_url(&http), &[]).await;
    let head = send(Method::HEAD, &card_url(&http), &[], "").await;
    assert_eq!(head.status, StatusCode::OK);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-type"), Some(CARD_TYPE));
    assert_eq!(head.header("etag"), full.header("etag"));
    let etag = full.header("etag").unwrap();
    let fresh = send(
        Method::HEAD,
        &card_url(&http),
        &headers(&[("If-None-Match", etag)]),
        "",
    )
    .await;
    assert_eq!(fresh.status, StatusCode::NOT_MODIFIED);
    for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
        for url in [card_url(&http), catalog_url(&http)] {
            let resp = send(method.clone(), &url, &[], "{}").await;
            assert_eq!(
                resp.status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {url}"
            );
            assert_eq!(resp.header("allow"), Some("GET, HEAD, OPTIONS"));
        }
    }
}

#[tokio::test]
async fn the_host_passes_the_dns_rebinding_guard() {
    let http = serving(weather("0.3.0"), HttpOptions::default()).await;
    for url in [card_url(&http), catalog_url(&http)] {
        let resp = get(&url, &[("Host", "attacker.example")]).await;
        assert_eq!(resp.status, StatusCode::FORBIDDEN, "{url}");
    }
    let allowed = serving(
        weather("0.3.0"),
        HttpOptions::default().allow_host("weather.example.com"),
    )
    .await;
    let resp = get(&card_url(&allowed), &[("Host", "weather.example.com")]).await;
    assert_eq!(resp.status, StatusCode::OK);
}

#[tokio::test]
async fn the_endpoint_rate_limit_counts_card_requests() {
    let options = HttpOptions::default().rate_limit(2, std::time::Duration::from_secs(60));
    let http = serving(weather("0.3.0"), options).await;
    for _ in 0..2 {
        assert_eq!(get(&card_url(&http), &[]).await.status, StatusCode::OK);
    }
    let limited = get(&card_url(&http), &[]).await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.header("retry-after").is_some());
    assert_eq!(limited.header("access-control-allow-origin"), Some("*"));
}

#[tokio::test]
async fn bad_entries_are_refused_with_clear_errors() {
    let server = weather("0.3.0");
    let long = server
        .server_card(&entry().description("x".repeat(101)))
        .unwrap_err();
    assert_eq!(long.field(), "description");
    assert!(long.to_string().contains("at most 100"), "{long}");

    let wordy = Server::builder()
        .version("1.0.0")
        .instructions("y".repeat(140))
        .build()
        .unwrap();
    let from_instructions = wordy.server_card(&entry()).unwrap_err();
    assert!(
        from_instructions.to_string().contains("instructions"),
        "{from_instructions}"
    );
    assert!(wordy.server_card(&entry().description("Short.")).is_ok());

    for name in ["weather", "example/weather", "io.github.owner/-weather"] {
        let bad = server.server_card(&ServerJson::new(name)).unwrap_err();
        assert_eq!(bad.field(), "name", "{name}");
        assert!(bad.to_string().contains("NAMESPACE/NAME"), "{bad}");
    }
    let local = server
        .server_card(&ServerJson::new("io.github.owner/weather").remote("https://127.0.0.1/mcp"))
        .unwrap_err();
    assert_eq!(local.field(), "remotes");
    let ranged = weather("^1.2").server_card(&entry()).unwrap_err();
    assert_eq!(ranged.field(), "version");

    // The schema refuses what the card's own checks refuse: the checks are not looser.
    let mut card = json_of(
        &get(
            &card_url(&serving(weather("0.3.0"), HttpOptions::default()).await),
            &[],
        )
        .await,
    );
    card["description"] = json!("x".repeat(101));
    assert!(!violations(&card).is_empty());
    card["description"] = json!("Fine.");
    card["name"] = json!("weather");
    assert!(!violations(&card).is_empty());
}

#[tokio::test]
async fn serving_refuses_a_card_whose_path_is_taken() {
    let server = weather("0.3.0");
    let options = HttpOptions::default()
        .health("/mcp/server-card")
        .server_card(card_of(&server));
    let why = options.check().unwrap_err();
    assert!(why.contains("`/mcp/server-card`"), "{why}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = server.serve(listener, options).await.unwrap_err();
    assert!(refused.to_string().contains("Server Card"), "{refused}");
}

#[tokio::test]
async fn a_card_made_from_another_server_is_not_served() {
    let card = card_of(&weather("0.3.0"));
    let http = spawn_http_with(weather("0.4.0"), HttpOptions::default().server_card(card)).await;
    assert_eq!(
        get(&card_url(&http), &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn nothing_is_served_without_a_card() {
    let http = spawn_http_with(weather("0.3.0"), HttpOptions::default()).await;
    assert_eq!(HttpOptions::default().server_card_path(), None);
    for url in [card_url(&http), catalog_url(&http)] {
        assert_eq!(get(&url, &[]).await.status, StatusCode::NOT_FOUND, "{url}");
    }

    // A card without a remote has no public URL: served, but listed in no catalog.
    let server = weather("0.3.0");
    let card = server
        .server_card(&ServerJson::new("io.github.owner/weather"))
        .unwrap();
    assert_eq!(card.url(), None);
    let http = spawn_http_with(server, HttpOptions::default().server_card(card)).await;
    let resp = get(&card_url(&http), &[]).await;
    assert_eq!(resp.status, StatusCode::OK);
    let card = json_of(&resp);
    assert_valid(&card);
    assert!(card.get("remotes").is_none());
    assert_eq!(
        get(&catalog_url(&http), &[]).await.status,
        StatusCode::NOT_FOUND
    );

    // Or with the catalog left out.
    let http = serving(
        weather("0.3.0"),
        HttpOptions::default().without_ai_catalog(),
    )
    .await;
    assert_eq!(get(&card_url(&http), &[]).await.status, StatusCode::OK);
    assert_eq!(
        get(&catalog_url(&http), &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_card_follows_the_endpoint_path() {
    let server = weather("0.3.0");
    let options = HttpOptions::default()
        .path("/weather/mcp")
        .server_card(card_of(&server));
    assert_eq!(
        options.server_card_path().as_deref(),
        Some("/weather/mcp/server-card")
    );
    let http = spawn_http_with(server, options).await;
    let url = format!("http://{}/weather/mcp/server-card", http.addr);
    assert_eq!(get(&url, &[]).await.status, StatusCode::OK);
}
