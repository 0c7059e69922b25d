//! The lab page (feature `lab`): an MCP client in the browser, served beside the endpoint, that
//! sends real requests to it and shows every envelope. The page is plain HTML, CSS and JavaScript
//! embedded in the binary (`lab/`); it loads nothing from any other host (its
//! `Content-Security-Policy` forbids it, and lets it frame only its view sandbox), and it is
//! served only to loopback clients unless [`HttpOptions::lab_for_any_client`] says otherwise.
//!
//! As an MCP Apps host, the page renders a tool's view in the view sandbox (`sandbox`):
//! `{lab}/sandbox` on the other loopback name of this server, always for loopback clients only.

use super::guard;
use super::options::HttpOptions;
use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use std::sync::Arc;

mod sandbox;

const PAGE: &str = include_str!("lab/index.html");
const SCRIPT: &str = include_str!("lab/lab.js");
const STYLE: &str = include_str!("lab/lab.css");

/// Nothing but this server's own scripts, styles and endpoint (and, in frames, the view sandbox:
/// [`page_policy`]).
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                      img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

struct Lab {
    options: HttpOptions,
    page: String,
}

/// `router` with the lab page's routes (the page, its script and style, its view sandbox), when
/// the options serve it.
pub(super) fn mount<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    options: &HttpOptions,
) -> Router<S> {
    let Some(lab) = &options.lab else {
        return router;
    };
    let path = lab.path.clone();
    if let Some(why) = options.lab_clash() {
        tracing::warn!("{why}: the lab page is not served");
        return router;
    }
    let page = PAGE
        .replace("{{ENDPOINT}}", &html_attribute(&options.path))
        .replace("{{LAB}}", &html_attribute(&path));
    let shared = Arc::new(Lab {
        options: options.clone(),
        page,
    });
    let route = |serve: fn(&Lab, &Request) -> Response| {
        let shared = shared.clone();
        axum::routing::get(move |request: Request| {
            let shared = shared.clone();
            async move { serve(&shared, &request) }
        })
    };
    router
        .route(&path, route(serve_page))
        .route(&format!("{path}/sandbox"), route(serve_sandbox))
        .route(
            &format!("{path}/lab.js"),
            route(|lab, request| serve(lab, request, SCRIPT, "text/javascript; charset=utf-8")),
        )
        .route(
            &format!("{path}/lab.css"),
            route(|lab, request| serve(lab, request, STYLE, "text/css; charset=utf-8")),
        )
}

fn serve(lab: &Lab, request: &Request, body: &'static str, content_type: &'static str) -> Response {
    if let Err(why) = admitted(&lab.options, request, false) {
        return refused(why);
    }
    respond(
        body.to_owned(),
        content_type,
        HeaderValue::from_static(POLICY),
    )
}

/// The page, with the origin of its view sandbox (none when the page's host has no loopback
/// counterpart) in a `<meta>` and in its policy's `frame-src`.
fn serve_page(lab: &Lab, request: &Request) -> Response {
    if let Err(why) = admitted(&lab.options, request, false) {
        return refused(why);
    }
    let sandbox = host(request.headers()).and_then(sandbox::counterpart);
    let body = lab.page.replace(
        "{{SANDBOX}}",
        &html_attribute(sandbox.as_deref().unwrap_or("")),
    );
    let policy = page_policy(sandbox.as_deref());
    match HeaderValue::from_str(&policy) {
        Ok(policy) => respond(body, "text/html; charset=utf-8", policy),
        Err(_) => refused("Forbidden: this Host cannot be named in the page's policy"),
    }
}

/// The page's policy: [`POLICY`], and frames from its view sandbox only.
fn page_policy(sandbox: Option<&str>) -> String {
    format!("{POLICY}; frame-src {}", sandbox.unwrap_or("'none'"))
}

/// The view sandbox: to loopback clients only (whoever may have the page), with the policy the
/// view's `csp` query asks for ([`sandbox::sandbox`]).
fn serve_sandbox(lab: &Lab, request: &Request) -> Response {
    if let Err(why) = admitted(&lab.options, request, true) {
        return refused(why);
    }
    match sandbox::sandbox(host(request.headers()), request.uri().query()) {
        Ok((body, policy)) => match HeaderValue::from_str(&policy) {
            Ok(policy) => respond(body, "text/html; charset=utf-8", policy),
            Err(_) => bad_request("Bad Request: the view's csp makes no policy"),
        },
        Err(why) => bad_request(why),
    }
}

fn host(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::HOST).and_then(|h| h.to_str().ok())
}

fn respond(body: String, content_type: &'static str, policy: HeaderValue) -> Response {
    let mut resp = Response::new(Body::from(body));
    let headers = resp.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    resp
}

/// Whether this client may have the page: its `Host` passes the DNS-rebinding guard and, unless
/// any client may (which `loopback_only` overrides), it came straight from this machine, as
/// `client.rs` decides for the local caller (behind a proxy on the same machine every client
/// connects from loopback).
fn admitted(
    options: &HttpOptions,
    request: &Request,
    loopback_only: bool,
) -> Result<(), &'static str> {
    let headers = request.headers();
    if !guard::host_allowed(options, headers, request.uri()) {
        return Err("Forbidden: this Host is not allowed (DNS rebinding protection)");
    }
    let Some(lab) = &options.lab else {
        return Err("Forbidden: the lab page is off");
    };
    if lab.any_client && !loopback_only {
        return Ok(());
    }
    let peer = super::peer::peer_of(request.extensions());
    match peer {
        None => Err(
            "Forbidden: the lab page is served to loopback clients only, and this server does not \
             know the client's address (serve the router with \
             into_make_service_with_connect_info::<SocketAddr>(), or allow any client)",
        ),
        Some(peer) if !peer.ip().to_canonical().is_loopback() => {
            Err("Forbidden: the lab page is served to loopback clients only")
        }
        Some(_) if !super::client::came_from_here(headers, request.uri(), peer) => Err(
            "Forbidden: the lab page is served to loopback clients only: open it on \
             127.0.0.1 or localhost, not through a proxy",
        ),
        Some(_) => Ok(()),
    }
}

fn refused(why: &'static str) -> Response {
    plain(StatusCode::FORBIDDEN, why)
}

fn bad_request(why: &'static str) -> Response {
    plain(StatusCode::BAD_REQUEST, why)
}

fn plain(status: StatusCode, why: &'static str) -> Response {
    let mut resp = Response::new(Body::from(why));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

/// `text` safe inside a double-quoted HTML attribute.
fn html_attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_escaped() {
        assert_eq!(
            html_attribute(r#"/a"b<c>&'"#),
            "/a&quot;b&lt;c&gt;&amp;&#39;"
        );
    }

    #[test]
    fn the_page_frames_its_sandbox_only() {
        assert!(
            page_policy(Some("http://localhost:8000"))
                .ends_with("frame-ancestors 'none'; frame-src http://localhost:8000")
        );
        assert!(page_policy(None).ends_with("; frame-src 'none'"));
    }
}
