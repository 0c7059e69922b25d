//! The plain responses of the endpoint: statuses with a text or a JSON-RPC body, and the error
//! the transport answers with before a message is read.

use crate::dispatch::Response as Answer;
use crate::error::McpError;
use crate::protocol::codes;
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};

pub(super) async fn method_not_allowed() -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    resp.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    resp
}

pub(super) fn plain_status(status: StatusCode, message: &str) -> Response {
    let mut resp = Response::new(Body::from(message.to_owned()));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

pub(super) fn json_response(status: StatusCode, body: Bytes) -> Response {
    json_response_in(http::HeaderMap::new(), status, body)
}

/// [`json_response`] with `headers` (emptied) as the response's header map. Given the
/// request's map, the response allocates no map: hyper parses the connection's next request
/// into the map of the response it wrote, and one the size of a request's needs no growing
/// (BENCHMARKS.md, "Header maps").
pub(super) fn json_response_in(
    mut headers: http::HeaderMap,
    status: StatusCode,
    body: Bytes,
) -> Response {
    headers.clear();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    *resp.headers_mut() = headers;
    resp
}

/// A request refused by the transport before it was read, with `-32600`.
pub(super) fn transport_error(status: StatusCode, message: &str) -> Response {
    let error = McpError::new(codes::INVALID_REQUEST, message);
    json_response(status, Answer::error(None, &error).body)
}
