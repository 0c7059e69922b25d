//! The lab page (feature `lab`): an MCP client in the browser, served beside the endpoint, that
//! sends real requests to it and shows every envelope. The page is plain HTML, CSS and JavaScript
//! embedded in the binary (`lab/`); it loads nothing from any other host (its
//! `Content-Security-Policy` forbids it), and it is served only to loopback clients unless
//! [`HttpOptions::lab_for_any_client`] says otherwise.

use super::guard;
use super::options::HttpOptions;
use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use std::sync::Arc;

const PAGE: &str = include_str!("lab/index.html");
const SCRIPT: &str = include_str!("lab/lab.js");
const STYLE: &str = include_str!("lab/lab.css");

/// Nothing but this server's own scripts, styles and endpoint.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                      img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

struct Lab {
    options: HttpOptions,
    page: String,
}

/// `router` with the lab page's three routes, when the options serve it.
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
    let asset = |body: fn(&Lab) -> &str, content_type: &'static str| {
        let shared = shared.clone();
        axum::routing::get(move |request: Request| {
            let shared = shared.clone();
            async move { serve(&shared, &request, body(&shared), content_type) }
        })
    };
    router
        .route(&path, asset(|lab| &lab.page, "text/html; charset=utf-8"))
        .route(
            &format!("{path}/lab.js"),
            asset(|_| SCRIPT, "text/javascript; charset=utf-8"),
        )
        .route(
            &format!("{path}/lab.css"),
            asset(|_| STYLE, "text/css; charset=utf-8"),
        )
}

fn serve(lab: &Lab, request: &Request, body: &str, content_type: &'static str) -> Response {
    if let Err(why) = admitted(&lab.options, request) {
        return refused(why);
    }
    let mut resp = Response::new(Body::from(body.to_owned()));
    let headers = resp.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(POLICY),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    resp
}

/// Whether this client may have the page: its `Host` passes the DNS-rebinding guard and, unless
/// any client may, it connects from a loopback address, names a loopback host, and comes
/// through no proxy (behind a proxy on the same machine every client looks local).
fn admitted(options: &HttpOptions, request: &Request) -> Result<(), &'static str> {
    let headers = request.headers();
    if !guard::host_allowed(options, headers) {
        return Err("Forbidden: this Host is not allowed (DNS rebinding protection)");
    }
    let Some(lab) = &options.lab else {
        return Err("Forbidden: the lab page is off");
    };
    if lab.any_client {
        return Ok(());
    }
    let peer = super::peer::peer_of(request.extensions());
    match peer {
        None => Err(
            "Forbidden: the lab page is served to loopback clients only, and this server does not \
             know the client's address (serve the router with \
             into_make_service_with_connect_info::<SocketAddr>(), or allow any client)",
        ),
        Some(peer) if !peer.ip().is_loopback() => {
            Err("Forbidden: the lab page is served to loopback clients only")
        }
        Some(_) if proxied(headers) || !loopback_host(headers) => Err(
            "Forbidden: the lab page is served to loopback clients only: open it on \
             127.0.0.1 or localhost, not through a proxy",
        ),
        Some(_) => Ok(()),
    }
}

fn proxied(headers: &HeaderMap) -> bool {
    headers.contains_key("x-forwarded-for") || headers.contains_key(header::FORWARDED)
}

fn loopback_host(headers: &HeaderMap) -> bool {
    match headers.get(header::HOST).map(HeaderValue::to_str) {
        None => true,
        Some(Ok(host)) => crate::net::is_loopback(crate::net::host_part(host)),
        Some(Err(_)) => false,
    }
}

fn refused(why: &'static str) -> Response {
    let mut resp = Response::new(Body::from(why));
    *resp.status_mut() = StatusCode::FORBIDDEN;
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
}
