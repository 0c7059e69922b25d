//! The lab page (feature `lab`, on for the examples and these tests): where it is served, to
//! whom, and with which headers. What the page does in a browser is checked by `.ci/lab.sh`
//! (headless Chromium against the examples).

use crate::common;
use common::{send, spawn_http_with};
use http::{Method, StatusCode};
use mcp_runtime::{HttpOptions, Server};

fn server() -> Server {
    Server::builder().name("lab-test").build().unwrap()
}

fn host(value: &str) -> Vec<(String, String)> {
    vec![("Host".to_owned(), value.to_owned())]
}

#[tokio::test]
async fn the_page_and_its_assets_are_served_to_loopback_clients() {
    let http = spawn_http_with(server(), HttpOptions::default()).await;
    let base = format!("http://{}", http.addr);
    let page = send(Method::GET, &format!("{base}/lab"), &[], "").await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    let html = String::from_utf8(page.body.to_vec()).unwrap();
    assert!(html.contains(r#"<meta name="mcp-endpoint" content="/mcp">"#));
    assert!(html.contains(r#"src="/lab/lab.js""#));
    assert!(!html.contains("{{"), "every placeholder is filled");
    for (asset, kind) in [("lab.js", "text/javascript"), ("lab.css", "text/css")] {
        let resp = send(Method::GET, &format!("{base}/lab/{asset}"), &[], "").await;
        assert_eq!(resp.status, StatusCode::OK, "{asset}");
        assert!(resp.content_type().starts_with(kind), "{asset}");
        assert!(!resp.body.is_empty());
    }
    // The page only posts to the endpoint it was served beside: nothing names another host.
    let script = send(Method::GET, &format!("{base}/lab/lab.js"), &[], "").await;
    let script = String::from_utf8(script.body.to_vec()).unwrap();
    assert!(!script.contains("http://") && !script.contains("https://"));
}

#[tokio::test]
async fn the_page_follows_the_endpoint_and_its_own_path() {
    let options = HttpOptions::default().path("/api/mcp").lab_path("inspect/");
    assert_eq!(options.lab_page_path(), Some("/inspect"));
    let http = spawn_http_with(server(), options).await;
    let base = format!("http://{}", http.addr);
    let page = send(Method::GET, &format!("{base}/inspect"), &[], "").await;
    assert_eq!(page.status, StatusCode::OK);
    let html = String::from_utf8(page.body.to_vec()).unwrap();
    assert!(html.contains(r#"content="/api/mcp""#));
    assert!(html.contains(r#"href="/inspect/lab.css""#));
    assert_eq!(
        send(Method::GET, &format!("{base}/lab"), &[], "")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn other_hosts_and_proxied_requests_are_refused() {
    let http = spawn_http_with(server(), HttpOptions::default()).await;
    let url = format!("http://{}/lab", http.addr);
    // DNS rebinding: a Host that is neither loopback nor allowed.
    let rebound = send(Method::GET, &url, &host("evil.example"), "").await;
    assert_eq!(rebound.status, StatusCode::FORBIDDEN);
    // An allowed public name still is not a loopback client's.
    let options = HttpOptions::default().allow_host("mcp.example.com");
    let public = spawn_http_with(server(), options).await;
    let resp = send(
        Method::GET,
        &format!("http://{}/lab", public.addr),
        &host("mcp.example.com"),
        "",
    )
    .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    assert!(String::from_utf8_lossy(&resp.body).contains("loopback clients only"));
    // A proxy on the same machine makes every client look local.
    for header in ["X-Forwarded-For", "Forwarded"] {
        let proxied = vec![(header.to_owned(), "for=203.0.113.9".to_owned())];
        let resp = send(Method::GET, &url, &proxied, "").await;
        assert_eq!(resp.status, StatusCode::FORBIDDEN, "{header}");
    }
}

#[tokio::test]
async fn a_router_that_does_not_know_client_addresses_refuses_unless_any_client_may() {
    for (any, expected) in [(false, StatusCode::FORBIDDEN), (true, StatusCode::OK)] {
        let router = server().into_router(HttpOptions::default().lab_for_any_client(any));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move { axum::serve(listener, router).await });
        let resp = send(Method::GET, &format!("http://{addr}/lab"), &[], "").await;
        assert_eq!(resp.status, expected, "any client: {any}");
        if !any {
            assert!(
                String::from_utf8_lossy(&resp.body).contains("into_make_service_with_connect_info")
            );
        }
        task.abort();
    }
}

#[tokio::test]
async fn without_lab_or_on_a_taken_path_nothing_is_served() {
    let http = spawn_http_with(server(), HttpOptions::default().without_lab()).await;
    let resp = send(Method::GET, &format!("http://{}/lab", http.addr), &[], "").await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    // The endpoint's own path: serving refuses the options, saying why.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = server()
        .serve(listener, HttpOptions::default().lab_path("/mcp"))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("the lab page path `/mcp`"),
        "{err}"
    );
    // A router for an app of its own leaves the page out: the endpoint wins, GET is still 405.
    let router = server().into_router(HttpOptions::default().lab_path("/mcp"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router.into_make_service()).await });
    let resp = send(Method::GET, &format!("http://{addr}/mcp"), &[], "").await;
    assert_eq!(resp.status, StatusCode::METHOD_NOT_ALLOWED);
}
