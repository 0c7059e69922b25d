//! The readiness endpoint (`HttpOptions::health`): 200 while the instance serves and every
//! readiness check passes (Redis answers, say), 503 otherwise, for load balancers and
//! orchestrators. It reads no body and needs no token, and its checks run at most once a second.

use super::endpoint::Endpoint;
use super::options::HttpOptions;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use std::sync::Arc;
use std::time::Duration;

fn status(code: StatusCode, text: &'static str) -> Response {
    let mut resp = Response::new(Body::from(text));
    *resp.status_mut() = code;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// How long one answer of the readiness checks is kept: a client polling `/health` as fast as
/// it can makes at most one round of checks (Redis `PING`s, say) a second.
const KEEP: Duration = Duration::from_secs(1);

/// `GET` on the health path. Not behind the DNS-rebinding guard: it tells nothing but whether
/// the instance serves, and load balancers ask it by the instance's address (AWS target
/// groups send it as `Host`).
pub(super) async fn ready(State(endpoint): State<Arc<Endpoint>>, _request: Request) -> Response {
    let options: &HttpOptions = &endpoint.options;
    if endpoint.dispatcher.shutdown.is_cancelled() {
        return status(
            StatusCode::SERVICE_UNAVAILABLE,
            r#"{"status":"shutting down"}"#,
        );
    }
    // One round of checks at a time; the others wait for its answer.
    let mut last = endpoint.readiness.lock().await;
    let passed = match *last {
        Some((at, passed)) if at.elapsed() < KEEP => passed,
        _ => {
            let mut passed = true;
            for check in &options.ready_checks {
                let answered = tokio::time::timeout(Duration::from_secs(3), check()).await;
                if !matches!(answered, Ok(true)) {
                    passed = false;
                    break;
                }
            }
            *last = Some((std::time::Instant::now(), passed));
            passed
        }
    };
    drop(last);
    match passed {
        true => status(StatusCode::OK, r#"{"status":"ready"}"#),
        false => status(StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"not ready"}"#),
    }
}
