//! The readiness endpoint (`HttpOptions::health`): 200 while the instance serves and every
//! readiness check passes (Redis answers, say), 503 otherwise, for load balancers and
//! orchestrators. It reads no body and needs no token.

use super::endpoint::{Endpoint, guarded};
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

pub(super) async fn ready(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let options: &HttpOptions = &endpoint.options;
    if let Some(refused) = guarded(options, request.headers()) {
        return refused;
    }
    if endpoint.dispatcher.shutdown.is_cancelled() {
        return status(
            StatusCode::SERVICE_UNAVAILABLE,
            r#"{"status":"shutting down"}"#,
        );
    }
    for check in &options.ready_checks {
        let passed = tokio::time::timeout(Duration::from_secs(3), check()).await;
        if !matches!(passed, Ok(true)) {
            return status(StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"not ready"}"#);
        }
    }
    status(StatusCode::OK, r#"{"status":"ready"}"#)
}
