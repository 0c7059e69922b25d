//! The body of an event that AWS flags as base64 (`isBase64Encoded`): taken out of the event
//! and decoded here, so that one which is not valid base64 is answered 400 (`lambda_http`
//! decodes with an `expect`: it would panic).

use crate::transport::http::respond::transport_error;
use axum::response::Response;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::StatusCode;
use lambda_http::request::LambdaRequest;

/// A body its event flags as base64 that is not valid base64.
pub(super) struct NotBase64(base64::DecodeError);

impl NotBase64 {
    /// Refused as the endpoint refuses a body it cannot read.
    pub(super) fn refusal(&self) -> Response {
        transport_error(
            StatusCode::BAD_REQUEST,
            &format!(
                "Bad Request: the event's body is flagged base64 (isBase64Encoded) but is not \
                 valid base64: {}",
                self.0
            ),
        )
    }
}

/// The body an event carries in base64, taken out of `payload` and decoded: `lambda_http`
/// then makes a request without a body. `None` when there is none (`lambda_http` reads the
/// event as before), or for an event of another kind than API Gateway's (the variants only
/// another crate's `lambda_http` features add).
pub(super) fn take_base64_body(payload: &mut LambdaRequest) -> Option<Result<Bytes, NotBase64>> {
    let (flagged, body) = match payload {
        LambdaRequest::ApiGatewayV1(event) => (&mut event.is_base64_encoded, &mut event.body),
        LambdaRequest::ApiGatewayV2(event) => (&mut event.is_base64_encoded, &mut event.body),
        _ => return None,
    };
    if !*flagged {
        return None;
    }
    let text = body.take()?;
    *flagged = false;
    // The engine `lambda_http` decodes with (`aws_lambda_events`'s `Body::from_maybe_encoded`):
    // a body it accepts decodes to the same bytes here.
    Some(STANDARD.decode(text).map(Bytes::from).map_err(NotBase64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A REST API (payload 1.0) and an HTTP API (payload 2.0) event with this body.
    fn events(body: Value, base64: bool) -> [LambdaRequest; 2] {
        let rest = json!({
            "resource": "/mcp", "path": "/mcp", "httpMethod": "POST", "headers": {},
            "multiValueHeaders": {}, "requestContext": {"stage": "prod", "httpMethod": "POST",
            "identity": {"sourceIp": "198.51.100.23"}},
            "body": body, "isBase64Encoded": base64
        });
        let http = json!({
            "version": "2.0", "routeKey": "$default", "rawPath": "/mcp", "rawQueryString": "",
            "headers": {}, "requestContext": {"stage": "$default", "http": {"method": "POST",
            "path": "/mcp", "protocol": "HTTP/1.1", "sourceIp": "198.51.100.23"}},
            "body": body, "isBase64Encoded": base64
        });
        let rest: LambdaRequest = serde_json::from_value(rest).unwrap();
        assert!(matches!(rest, LambdaRequest::ApiGatewayV1(_)), "{rest:?}");
        let http: LambdaRequest = serde_json::from_value(http).unwrap();
        assert!(matches!(http, LambdaRequest::ApiGatewayV2(_)), "{http:?}");
        [rest, http]
    }

    /// The event's body and flag, as `lambda_http` will read them.
    fn left(payload: &LambdaRequest) -> (Option<&str>, bool) {
        match payload {
            LambdaRequest::ApiGatewayV1(e) => (e.body.as_deref(), e.is_base64_encoded),
            LambdaRequest::ApiGatewayV2(e) => (e.body.as_deref(), e.is_base64_encoded),
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_base64_body_is_taken_out_decoded() {
        for mut payload in events(json!("eyJhIjoxfQ=="), true) {
            let body = take_base64_body(&mut payload).unwrap().ok().unwrap();
            assert_eq!(body, Bytes::from_static(br#"{"a":1}"#));
            assert_eq!(left(&payload), (None, false));
        }
    }

    #[test]
    fn a_body_that_is_not_base64_is_taken_out_and_refused() {
        for text in [
            "{\"a\":1}",
            "eyJhIjoxfQ=",
            "eyJhIjoxfQ",
            "eyJh\nIjoxfQ==",
            "€",
        ] {
            for mut payload in events(json!(text), true) {
                let Some(Err(not)) = take_base64_body(&mut payload) else {
                    panic!("{text:?} passed for base64");
                };
                // lambda_http is left nothing to decode.
                assert_eq!(left(&payload), (None, false));
                let refusal = not.refusal();
                assert_eq!(refusal.status(), StatusCode::BAD_REQUEST);
            }
        }
    }

    #[test]
    fn other_bodies_are_left_to_lambda_http() {
        for mut payload in events(json!("{\"a\":1}"), false) {
            assert!(take_base64_body(&mut payload).is_none());
            assert_eq!(left(&payload), (Some("{\"a\":1}"), false));
        }
        for mut payload in events(Value::Null, true) {
            assert!(take_base64_body(&mut payload).is_none());
            assert_eq!(left(&payload).0, None);
        }
    }
}
