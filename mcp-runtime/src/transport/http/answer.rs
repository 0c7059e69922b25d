//! A JSON-RPC answer of the pipeline as an HTTP response: its status by error code, 503 with
//! `Retry-After` when the server is busy, and 401/403 with a challenge for a refused caller.

use super::auth;
use super::options::HttpOptions;
use super::respond::{json_response, json_response_in};
use crate::dispatch::Response as Answer;
use crate::protocol::codes;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};

/// The status of a JSON-RPC answer: the table at the top of `http`.
fn status(answer: &Answer) -> StatusCode {
    match answer.error_code() {
        None => StatusCode::OK,
        Some(codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            codes::PARSE_ERROR
            | codes::INVALID_REQUEST
            | codes::HEADER_MISMATCH
            | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
            | codes::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        // Refused before its method ran: no `_meta`, or `params` that are not an object.
        Some(codes::INVALID_PARAMS) if answer.is_rejection() => StatusCode::BAD_REQUEST,
        Some(_) => StatusCode::OK,
    }
}

/// The response to a JSON-RPC answer: its status, and for a caller refused access, 401 or 403
/// with a challenge when this endpoint authenticates.
/// `headers`: a map to reuse for the response ([`json_response_in`]).
pub(super) fn answer(options: &HttpOptions, answer: Answer, headers: http::HeaderMap) -> Response {
    if answer.is_busy() {
        let mut resp = json_response(StatusCode::SERVICE_UNAVAILABLE, answer.body);
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return resp;
    }
    match answer.refusal() {
        Some(refusal) => auth::refused(options.auth.as_ref(), refusal, answer.body.clone()),
        None => json_response_in(headers, status(&answer), answer.body),
    }
}
