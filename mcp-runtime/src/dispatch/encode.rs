//! The last stage, encode: a result or an error into its JSON-RPC envelope ([`Response`]).

use crate::error::{McpError, Refusal};
use crate::protocol::{JsonRpcErrorResponse, RequestId};
use bytes::Bytes;
use serde::Serialize;

/// The final answer to one request: the serialized JSON-RPC response, and what kind of answer it
/// is (transports frame it by that: the Streamable HTTP transport picks the status).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let server = mcp_runtime::Server::builder().build().unwrap();
/// let body = br#"{"jsonrpc":"2.0","id":1,"method":"nope","params":{"_meta":{
///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
/// let response = server.handle_message(body, None).unwrap().response().await;
/// assert_eq!(response.error_code(), Some(-32601));
/// assert!(response.is_rejection()); // refused before any method ran: HTTP answers 404
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Response {
    /// The serialized JSON-RPC response.
    pub body: Bytes,
    kind: Kind,
    refusal: Option<Box<Refusal>>,
    busy: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Result,
    /// An error answered by the method.
    Error(i32),
    /// An error answered before the method was reached (decode and validation stages).
    Rejection(i32),
}

impl Response {
    /// A result, serialized into a buffer of 512 bytes to start with.
    pub(crate) fn result<T: Serialize>(id: &RequestId, result: &T) -> Response {
        Response::result_with_capacity(id, result, 512)
    }

    /// A result serialized into a buffer of `capacity` bytes to start with (results known to be
    /// large skip the regrowing).
    pub(crate) fn result_with_capacity<T: Serialize>(
        id: &RequestId,
        result: &T,
        capacity: usize,
    ) -> Response {
        // The envelope's keys are constants, written as bytes rather than through a serializer
        // (`JsonRpcResultResponse` would cost a map serializer per request on the hot path).
        let mut buf = Vec::with_capacity(capacity);
        buf.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        let written = serde_json::to_writer(&mut buf, id).and_then(|()| {
            buf.extend_from_slice(br#","result":"#);
            serde_json::to_writer(&mut buf, result)
        });
        buf.push(b'}');
        match written {
            Ok(()) => Response {
                body: Bytes::from(buf),
                kind: Kind::Result,
                refusal: None,
                busy: false,
            },
            Err(e) => Response::error(
                Some(id),
                &McpError::internal(format!("the result could not be serialized: {e}")),
            ),
        }
    }

    /// An error answered by the method.
    pub(crate) fn error(id: Option<&RequestId>, error: &McpError) -> Response {
        Response {
            body: error_body(id, error),
            kind: Kind::Error(error.code()),
            refusal: error.refusal.clone(),
            busy: error.busy,
        }
    }

    /// Whether this is a JSON-RPC error response.
    pub fn is_error(&self) -> bool {
        self.kind != Kind::Result
    }

    /// The JSON-RPC error code, for an error response.
    pub fn error_code(&self) -> Option<i32> {
        match self.kind {
            Kind::Result => None,
            Kind::Error(code) | Kind::Rejection(code) => Some(code),
        }
    }

    /// Whether the request was refused before its method ran: it could not be decoded, or it
    /// failed a check every request passes (`_meta`, headers, version, method, capability).
    pub fn is_rejection(&self) -> bool {
        matches!(self.kind, Kind::Rejection(_))
    }

    /// Whether the caller was refused access (HTTP answers 401 or 403 with a challenge).
    pub fn is_refusal(&self) -> bool {
        self.refusal.is_some()
    }

    /// The scopes that would have allowed a refused request.
    pub fn required_scopes(&self) -> &[String] {
        self.refusal.as_ref().map_or(&[], |r| &r.scopes)
    }

    /// Whether the server was at a limit of its capacity (HTTP answers 503 with
    /// `Retry-After`).
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    pub(crate) fn refusal(&self) -> Option<&Refusal> {
        self.refusal.as_deref()
    }
}

fn error_body(id: Option<&RequestId>, error: &McpError) -> Bytes {
    let envelope = JsonRpcErrorResponse::new(id.cloned(), error.to_error_object());
    match serde_json::to_vec(&envelope) {
        Ok(body) => Bytes::from(body),
        Err(_) => Bytes::from_static(
            br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#,
        ),
    }
}

/// A request refused before dispatch, and the id to answer with (absent when it could not be
/// read).
#[derive(Debug, Clone)]
pub(crate) struct Rejection {
    pub(crate) id: Option<RequestId>,
    pub(crate) error: McpError,
}

impl Rejection {
    pub(crate) fn new(id: Option<RequestId>, error: McpError) -> Self {
        Rejection { id, error }
    }

    pub(crate) fn into_response(self) -> Response {
        Response {
            body: error_body(self.id.as_ref(), &self.error),
            kind: Kind::Rejection(self.error.code()),
            refusal: self.error.refusal,
            busy: self.error.busy,
        }
    }
}
