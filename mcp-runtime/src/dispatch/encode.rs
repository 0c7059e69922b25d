//! The last stage, encode: a result or an error into its JSON-RPC envelope ([`Response`]).

use crate::error::{Framing, McpError, Refusal};
use crate::protocol::{CallToolResult, Content, JsonRpcErrorResponse, RequestId, ResultType};
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
    framing: Option<Box<Framing>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A result, and what it says.
    Result(Outcome),
    /// An error answered by the method.
    Error(i32),
    /// An error answered before the method was reached (decode and validation stages).
    Rejection(i32),
}

/// What a result says, as far as telemetry and layers care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Complete,
    /// A `tools/call` result with `isError: true`.
    ToolError,
    /// An `input_required` result (one round of a multi-round request).
    InputRequired,
}

impl Response {
    /// A result, serialized into a buffer of 512 bytes to start with.
    pub(crate) fn result<T: Serialize>(id: &RequestId, result: &T) -> Response {
        Response::result_written(id, 512, |buf| serde_json::to_writer(buf, result))
    }

    /// A result whose JSON `write` appends to the buffer (`capacity` bytes to start with: results
    /// known to be large skip the regrowing).
    pub(crate) fn result_written(
        id: &RequestId,
        capacity: usize,
        write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    ) -> Response {
        // The envelope's keys are constants, written as bytes rather than through a serializer
        // (`JsonRpcResultResponse` would cost a map serializer per request on the hot path;
        // BENCHMARKS.md, "Constant keys in tools/call results").
        let mut buf = Vec::with_capacity(capacity);
        buf.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        let written = serde_json::to_writer(&mut buf, id).and_then(|()| {
            buf.extend_from_slice(br#","result":"#);
            write(&mut buf)
        });
        buf.push(b'}');
        match written {
            Ok(()) => Response {
                body: Bytes::from(buf),
                kind: Kind::Result(Outcome::Complete),
                framing: None,
            },
            Err(e) => Response::error(
                Some(id),
                &McpError::internal(format!("the result could not be serialized: {e}")),
            ),
        }
    }

    /// A `tools/call` result: marked as a tool error when it says `isError: true`.
    pub(crate) fn tool_result(id: &RequestId, result: &CallToolResult) -> Response {
        let mut response = Response::result_written(id, 512, |buf| write_tool_result(buf, result));
        if result.is_error == Some(true) && !response.is_error() {
            response.kind = Kind::Result(Outcome::ToolError);
        }
        response
    }

    /// This result, marked as an `input_required` answer.
    pub(crate) fn marked_input_required(mut self) -> Response {
        if !self.is_error() {
            self.kind = Kind::Result(Outcome::InputRequired);
        }
        self
    }

    /// An error answered by the method.
    pub(crate) fn error(id: Option<&RequestId>, error: &McpError) -> Response {
        Response {
            body: error_body(id, error),
            kind: Kind::Error(error.code()),
            framing: error.framing.clone(),
        }
    }

    /// Whether this is a JSON-RPC error response.
    pub fn is_error(&self) -> bool {
        !matches!(self.kind, Kind::Result(_))
    }

    /// Whether this is a `tools/call` result that reports a tool execution error
    /// (`isError: true`): a JSON-RPC success that tells the model the tool failed.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use mcp_runtime::{NoArguments, Server, Tool, protocol::CallToolResult};
    /// let server = Server::builder()
    ///     .tool(Tool::new("fail").handler(|_: NoArguments, _| async { CallToolResult::error("no") }))
    ///     .build()
    ///     .unwrap();
    /// let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fail","_meta":{
    ///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let response = server.handle_message(body, None).unwrap().response().await;
    /// assert!(!response.is_error());
    /// assert!(response.is_tool_error());
    /// # }
    /// ```
    pub fn is_tool_error(&self) -> bool {
        self.kind == Kind::Result(Outcome::ToolError)
    }

    /// Whether this is an `input_required` result: the request asked the client for input and
    /// will be retried with the answers (one round of a multi round-trip request).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use mcp_runtime::{Ask, FromContext, NoArguments, RequestContext, Rounds, Server, Step, Tool};
    /// let ask = Tool::new("ask").handler(|_: NoArguments, cx: RequestContext| async move {
    ///     let rounds = Rounds::from_context(&cx)?;
    ///     rounds.ask::<String, _>(Ask::new().roots("where"), &())
    /// });
    /// let server = Server::builder().tool(ask).build().unwrap();
    /// let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","_meta":{
    ///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}"#;
    /// let response = server.handle_message(body, None).unwrap().response().await;
    /// assert!(response.is_input_required());
    /// # }
    /// ```
    pub fn is_input_required(&self) -> bool {
        self.kind == Kind::Result(Outcome::InputRequired)
    }

    /// The JSON-RPC error code, for an error response.
    pub fn error_code(&self) -> Option<i32> {
        match self.kind {
            Kind::Result(_) => None,
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
        self.refusal().is_some()
    }

    /// The scopes that would have allowed a refused request.
    pub fn required_scopes(&self) -> &[String] {
        self.refusal().map_or(&[], |r| &r.scopes)
    }

    /// Whether the server was at a limit of its capacity (HTTP answers 503 with
    /// `Retry-After`).
    pub fn is_busy(&self) -> bool {
        matches!(self.framing.as_deref(), Some(Framing::Busy))
    }

    pub(crate) fn refusal(&self) -> Option<&Refusal> {
        match self.framing.as_deref() {
            Some(Framing::Refused(r)) => Some(r),
            _ => None,
        }
    }
}

/// `r`'s JSON, the bytes its derived `Serialize` writes (a test compares them), with the keys
/// written as constants and a text block without annotations or `_meta` written directly: the
/// derived code goes through a map serializer for every block (its `type` tag) and escapes
/// every key (BENCHMARKS.md, "Constant keys in tools/call results").
fn write_tool_result(buf: &mut Vec<u8>, r: &CallToolResult) -> serde_json::Result<()> {
    match &r.result_type {
        ResultType::Complete => buf.extend_from_slice(br#"{"resultType":"complete""#),
        other => {
            buf.extend_from_slice(br#"{"resultType":"#);
            serde_json::to_writer(&mut *buf, other)?;
        }
    }
    buf.extend_from_slice(br#","content":["#);
    for (i, block) in r.content.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        match block {
            Content::Text(t) if t.annotations.is_none() && t.meta.is_none() => {
                buf.extend_from_slice(br#"{"type":"text","text":"#);
                serde_json::to_writer(&mut *buf, &t.text)?;
                buf.push(b'}');
            }
            other => serde_json::to_writer(&mut *buf, other)?,
        }
    }
    buf.push(b']');
    if let Some(structured) = &r.structured_content {
        buf.extend_from_slice(br#","structuredContent":"#);
        serde_json::to_writer(&mut *buf, structured)?;
    }
    match r.is_error {
        None => {}
        Some(true) => buf.extend_from_slice(br#","isError":true"#),
        Some(false) => buf.extend_from_slice(br#","isError":false"#),
    }
    if let Some(meta) = &r.meta {
        buf.extend_from_slice(br#","_meta":"#);
        serde_json::to_writer(&mut *buf, meta)?;
    }
    buf.push(b'}');
    Ok(())
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
            framing: self.error.framing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::write_tool_result;
    use crate::protocol::{
        Annotations, CallToolResult, Content, ResultMeta, ResultType, TextContent,
    };
    use serde_json::json;

    #[test]
    fn the_written_tool_result_is_the_serialized_one() {
        let annotated = Content::Text(TextContent {
            text: "noted".into(),
            annotations: Some(Annotations {
                priority: Some(1.into()),
                ..Annotations::default()
            }),
            meta: None,
        });
        let with_meta = Content::Text(TextContent {
            text: "tagged".into(),
            annotations: None,
            meta: Some(json!({"k": "v"}).as_object().cloned().unwrap()),
        });
        let mut full = CallToolResult::new(vec![
            Content::text("a \"quoted\" line\n\u{1} é 😀"),
            annotated,
            with_meta,
            Content::image("aGk=", "image/png"),
            Content::text(""),
        ]);
        full.structured_content = Some(json!({"sum": 3, "list": [1, null, "x"]}));
        full.meta = Some(ResultMeta::default());
        let mut null_structured = CallToolResult::new(Vec::new());
        null_structured.structured_content = Some(serde_json::Value::Null);
        null_structured.is_error = None;
        let mut other = CallToolResult::error("failed");
        other.result_type = ResultType::Other("custom".into());
        let mut input = CallToolResult::new(vec![Content::text("3")]);
        input.result_type = ResultType::InputRequired;
        let plain = CallToolResult::new(vec![Content::text("3")]);
        for r in [full, null_structured, other, input, plain] {
            let mut buf = Vec::new();
            write_tool_result(&mut buf, &r).unwrap();
            assert_eq!(
                String::from_utf8(buf).unwrap(),
                serde_json::to_string(&r).unwrap()
            );
        }
    }
}
