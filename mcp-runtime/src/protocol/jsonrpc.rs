//! JSON-RPC 2.0 framing: ids, envelopes and error objects.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The `id` of a JSON-RPC request: a string or an integer (never `null`).
///
/// ```
/// use mcp_runtime::protocol::RequestId;
/// let id: RequestId = serde_json::from_str("7").unwrap();
/// assert_eq!(id, RequestId::Number(7));
/// assert_eq!(serde_json::to_string(&RequestId::from("a")).unwrap(), "\"a\"");
/// assert!(serde_json::from_str::<RequestId>("1.5").is_err());
/// assert!(serde_json::from_str::<RequestId>("null").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

// Written out: serde's untagged form buffers the value and, for a string, builds and drops a
// failed integer attempt's error first, for every string id or progress token (BENCHMARKS.md,
// "Request ids").
impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RequestIdVisitor)
    }
}

struct RequestIdVisitor;

impl serde::de::Visitor<'_> for RequestIdVisitor {
    type Value = RequestId;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or an integer")
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RequestId, E> {
        Ok(RequestId::Number(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RequestId, E> {
        i64::try_from(v)
            .map(RequestId::Number)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RequestId, E> {
        Ok(RequestId::String(v.to_owned()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<RequestId, E> {
        Ok(RequestId::String(v))
    }
}

impl From<i64> for RequestId {
    fn from(value: i64) -> Self {
        RequestId::Number(value)
    }
}

impl From<&str> for RequestId {
    fn from(value: &str) -> Self {
        RequestId::String(value.to_owned())
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A progress token: a string or an integer chosen by the client.
pub type ProgressToken = RequestId;

/// The JSON-RPC error object (`error` member of an error response).
///
/// ```
/// use mcp_runtime::protocol::ErrorObject;
/// let e = ErrorObject::new(-32601, "Method not found: foo");
/// assert_eq!(serde_json::to_value(&e).unwrap()["code"], -32601);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorObject {
    /// The error code (see [`codes`]).
    pub code: i32,
    /// One concise sentence.
    pub message: String,
    /// Extra structured information.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error without `data`.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data` attached.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// Error codes defined by JSON-RPC 2.0 and by MCP 2026-07-28.
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist, was removed, or belongs to a capability that is not advertised.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters (also: missing `_meta` fields, unknown tool, bad cursor, …).
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal server error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// HTTP headers missing, malformed, or disagreeing with the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// The request needs a client capability it did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// The requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
}

/// A JSON-RPC request as sent over the wire (used for tests and clients).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
#[non_exhaustive]
pub struct JsonRpcRequest<P = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A JSON-RPC notification (no `id`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
#[non_exhaustive]
pub struct JsonRpcNotification<P = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The notification method.
    pub method: String,
    /// The parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> JsonRpcNotification<P> {
    /// A notification with the given method and parameters.
    pub fn new(method: impl Into<String>, params: P) -> Self {
        JsonRpcNotification {
            jsonrpc: "2.0".into(),
            method: method.into(),
            params: Some(params),
        }
    }
}

/// A JSON-RPC result response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JsonRpcResultResponse<R = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

/// A JSON-RPC error response. `id` is absent when the request's id could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The id of the request this answers, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

impl JsonRpcErrorResponse {
    /// An error response.
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        JsonRpcErrorResponse {
            jsonrpc: "2.0".into(),
            id,
            error,
        }
    }
}
