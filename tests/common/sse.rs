//! Server-sent events: a body read whole ([`sse_messages`]) or event by event as it comes
//! ([`EventStream`]), both through one parser of an event's fields.

use super::{TIMEOUT, headers_for, within};
use bytes::Bytes;
use http::StatusCode;
use http_body_util::{BodyExt, Full};
use serde_json::Value;
use std::net::SocketAddr;

/// The fields of one event that the tests read.
#[derive(Default)]
struct Event {
    /// Its `data:` lines, joined with `\n` (`None` when they are absent or all empty: a comment,
    /// a keep-alive, or a 2025-11-25 stream's priming event).
    data: Option<String>,
    /// Its `id:`, if any.
    id: Option<String>,
    /// Whether it had a `retry:` field.
    retry: bool,
    /// Whether it is a comment only (a keep-alive).
    comment: bool,
}

impl Event {
    /// Reads the lines of one event (without the blank line that ends it).
    fn parse(text: &str) -> Event {
        let mut event = Event::default();
        let mut data = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("data:") {
                data.push(rest.strip_prefix(' ').unwrap_or(rest));
            } else if let Some(id) = line.strip_prefix("id:") {
                event.id = Some(id.trim().to_owned());
            } else if line.starts_with("retry:") {
                event.retry = true;
            }
        }
        event.comment = text.starts_with(':') && data.is_empty();
        if data.iter().any(|d| !d.is_empty()) {
            event.data = Some(data.join("\n"));
        }
        event
    }

    /// The JSON value of its data, if it has data (which must be JSON).
    fn json(&self) -> Option<Value> {
        let data = self.data.as_ref()?;
        Some(
            serde_json::from_str(data)
                .unwrap_or_else(|e| panic!("an SSE data field is not JSON ({e}): {data}")),
        )
    }
}

/// Parses a `text/event-stream` body into the JSON values of its `data:` events (multi-line
/// data joined with `\n`; comments, other fields and events with empty data, such as a
/// 2025-11-25 stream's priming event, ignored).
pub fn sse_messages(body: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(body).expect("the SSE stream is UTF-8");
    let text = text.replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|event| Event::parse(event).json())
        .collect()
}

/// A response whose body is read event by event as it comes. Dropping it closes the connection
/// (how an HTTP client cancels).
pub struct EventStream {
    /// The response's status.
    pub status: StatusCode,
    /// Its `Content-Type` (empty when absent).
    pub content_type: String,
    /// Keep-alive comments seen so far.
    pub comments: usize,
    /// The id of the last event that had one.
    pub last_id: Option<String>,
    /// Whether a `retry` field came.
    pub retry: bool,
    body: hyper::body::Incoming,
    buffer: Vec<u8>,
    conn: tokio::task::JoinHandle<()>,
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.conn.abort();
    }
}

impl EventStream {
    /// The body of `resp` read event by event, `conn` driving its connection (as
    /// [`send_streaming`] returns them), whatever its status.
    pub fn new(
        resp: http::Response<hyper::body::Incoming>,
        conn: tokio::task::JoinHandle<()>,
    ) -> EventStream {
        let content_type = resp
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        EventStream {
            status: resp.status(),
            content_type,
            comments: 0,
            last_id: None,
            retry: false,
            body: resp.into_body(),
            buffer: Vec::new(),
            conn,
        }
    }

    /// Sends `method` with `headers` and `body` to `http://{addr}/mcp`, whatever the answer's
    /// status; panics when there is no answer.
    pub async fn open(
        addr: SocketAddr,
        method: http::Method,
        headers: &[(String, String)],
        body: impl Into<Bytes>,
    ) -> EventStream {
        let (resp, conn) = send_streaming(addr, method, headers, body)
            .await
            .unwrap_or_else(|e| panic!("no response from {addr}: {e}"));
        EventStream::new(resp, conn)
    }

    /// `POST`s `body` with the headers a conforming client sends ([`headers_for`]).
    pub async fn post(addr: SocketAddr, body: &Value) -> EventStream {
        let bytes = serde_json::to_vec(body).expect("serializable");
        EventStream::open(addr, http::Method::POST, &headers_for(body), bytes).await
    }

    /// The next event's JSON data; `None` when the stream ended or broke. Unbounded: see
    /// [`EventStream::expect`].
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let bytes: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8(bytes).expect("an SSE event is UTF-8");
                let event = Event::parse(&text);
                if let Some(id) = &event.id {
                    self.last_id = Some(id.clone());
                }
                self.retry |= event.retry;
                self.comments += usize::from(event.comment);
                match event.json() {
                    Some(value) => return Some(value),
                    None => continue,
                }
            }
            let frame = self.body.frame().await?.ok()?;
            if let Ok(data) = frame.into_data() {
                self.buffer.extend_from_slice(&data);
            }
        }
    }

    /// The next event's JSON data, within [`TIMEOUT`]; panics, naming `what`, when the stream
    /// ends first.
    pub async fn expect(&mut self, what: &str) -> Value {
        within(what, self.next())
            .await
            .unwrap_or_else(|| panic!("the stream ended before {what}"))
    }
}

/// Sends `method` to `http://{addr}/mcp` with `headers` and `body` on a connection of its own,
/// and returns the response as soon as its head has come (its body still streaming), with the
/// task that drives the connection (abort it to close the connection).
pub async fn send_streaming(
    addr: SocketAddr,
    method: http::Method,
    headers: &[(String, String)],
    body: impl Into<Bytes>,
) -> Result<
    (
        http::Response<hyper::body::Incoming>,
        tokio::task::JoinHandle<()>,
    ),
    String,
> {
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
    let conn = tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut req = http::Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", addr.to_string());
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let req = req
        .body(Full::new(body.into()))
        .map_err(|e| e.to_string())?;
    match tokio::time::timeout(TIMEOUT, sender.send_request(req)).await {
        Ok(Ok(resp)) => Ok((resp, conn)),
        Ok(Err(e)) => Err(format!("request: {e}")),
        Err(_) => Err("no response".to_owned()),
    }
}

/// [`send_streaming`], for a response that must be 200: its body read event by event.
pub async fn open_stream(
    addr: SocketAddr,
    method: http::Method,
    headers: &[(String, String)],
    body: impl Into<Bytes>,
) -> Result<EventStream, String> {
    let (resp, conn) = send_streaming(addr, method, headers, body).await?;
    if resp.status() != StatusCode::OK {
        conn.abort();
        return Err(format!("status {}", resp.status()));
    }
    Ok(EventStream::new(resp, conn))
}
