//! `check` against servers on loopback ports: green on a server of this framework (with and
//! without auth), red with the right reason on one that answers a browser's GET with 406 and on
//! one that challenges without naming its metadata.

mod common;

use axum::http::StatusCode;
use axum::response::IntoResponse;
use common::serve_on as serve;
use mcp_runtime::auth::ResourceServer;
use mcp_runtime::testing::TestIssuer;
use mcp_runtime::{HttpOptions, NoArguments, Server, Tool};
use std::process::Output;

fn server() -> Server {
    Server::builder()
        .name("checked")
        .version("1.0.0")
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .build()
        .unwrap()
}

async fn check(url: &str) -> Output {
    common::run(&["check", url]).await
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test]
async fn a_server_of_this_framework_passes() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = serve(server().into_router(HttpOptions::default()), listener).await;
    let checked = check(&url).await;
    let out = text(&checked);
    assert!(checked.status.success(), "{out}");
    assert!(
        out.contains("ok    2026-07-28: server/discover answered (checked 1.0.0)"),
        "{out}"
    );
    assert!(
        out.contains("ok    2025-11-25: initialize answered"),
        "{out}"
    );
    assert!(out.contains("HTTP 405 (not 406)"), "{out}");
    assert!(
        out.contains("/.well-known/oauth-protected-resource answers 404"),
        "{out}"
    );
    assert!(out.contains("1 of 1 tools' input schemas"), "{out}");
    assert!(out.contains("0 failed"), "{out}");
}

#[tokio::test]
async fn a_protected_server_names_its_metadata() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let issuer = TestIssuer::new("https://issuer.example.com", url.clone());
    let rs = ResourceServer::new(&url, issuer.issuer(), issuer.verifier()).unwrap();
    serve(
        server().into_router(HttpOptions::default().auth(rs)),
        listener,
    )
    .await;
    let checked = check(&url).await;
    let out = text(&checked);
    assert!(checked.status.success(), "{out}");
    assert!(out.contains("the server wants a token"), "{out}");
    assert!(
        out.contains("names its authorization servers and this resource"),
        "{out}"
    );
}

#[tokio::test]
async fn a_406_and_a_bare_challenge_are_found() {
    // Answers a browser's GET with 406, as some servers do.
    let refusing = axum::Router::new().route(
        "/mcp",
        axum::routing::get(|| async { StatusCode::NOT_ACCEPTABLE }).post(|| async {
            (
                StatusCode::UNAUTHORIZED,
                [("www-authenticate", "Bearer realm=\"mcp\"")],
            )
                .into_response()
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = serve(refusing, listener).await;
    let checked = check(&url).await;
    let out = text(&checked);
    assert_eq!(checked.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAIL  a GET with a browser's Accept is answered 406"),
        "{out}"
    );
    assert!(
        out.contains("fix: answer a GET you do not serve with 405"),
        "{out}"
    );
    assert!(
        out.contains("FAIL  the 401's challenge names no resource metadata"),
        "{out}"
    );
}
