//! A response's SSE stream read as it comes: each event's `data` lines joined into one JSON-RPC
//! message, the message classified ([`classify`]), every event bounded in size.

use super::error::ClientError;
use super::link::{Incoming, Messages};
use crate::registry::BoxFuture;
use bytes::{Buf, Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming as Body;
use serde_json::Value;
use std::collections::VecDeque;

/// One SSE response, read message by message.
pub(crate) struct SseReader {
    body: Body,
    /// Bytes received and not yet split into lines.
    pending: BytesMut,
    /// The `data` of the event being read.
    data: String,
    ready: VecDeque<Incoming>,
    limit: usize,
    ended: bool,
    /// The last event id the server gave, and the reconnection delay it asked for (a 2025
    /// stream is resumed from there when it is cut before its response).
    last_id: Option<String>,
    retry: Option<std::time::Duration>,
    /// It ended, or broke, before its response.
    cut: bool,
}

/// The longest event id kept for resuming.
const MAX_ID: usize = 1_024;

impl SseReader {
    /// Reads `body`, refusing any event larger than `limit` bytes.
    pub(crate) fn new(body: Body, limit: usize) -> SseReader {
        SseReader {
            body,
            pending: BytesMut::new(),
            data: String::new(),
            ready: VecDeque::new(),
            limit,
            ended: false,
            last_id: None,
            retry: None,
            cut: false,
        }
    }

    /// Where a stream cut before its response resumes from: the last event id, and the delay
    /// the server asked for before reconnecting.
    pub(crate) fn resumable(&self) -> Option<(&str, Option<std::time::Duration>)> {
        match self.cut {
            true => self.last_id.as_deref().map(|id| (id, self.retry)),
            false => None,
        }
    }

    /// The reader of the stream that resumes one cut after `last_id`.
    pub(crate) fn resuming(body: Body, limit: usize, last_id: String) -> SseReader {
        let mut reader = SseReader::new(body, limit);
        reader.last_id = Some(last_id);
        reader
    }

    /// The reader with `first` as the first message it yields (a stream whose opening the
    /// server does not announce).
    pub(crate) fn opened_with(mut self, first: Value) -> SseReader {
        self.ready.push_back(classify(first));
        self
    }

    /// The next message; `Ok(None)` when the stream ended after its response.
    pub(crate) async fn next(&mut self) -> Result<Option<Incoming>, ClientError> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Ok(Some(message));
            }
            if self.ended {
                return Ok(None);
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.feed(data)?;
                    }
                }
                Some(Err(e)) => {
                    self.cut = true;
                    return Err(ClientError::Unreachable(format!(
                        "the response stream broke: {e}"
                    )));
                }
                None => {
                    self.ended = true;
                    self.dispatch()?;
                    if self.ready.is_empty() {
                        self.cut = true;
                        return Err(ClientError::Protocol(
                            "the response stream ended before its response".into(),
                        ));
                    }
                }
            }
        }
    }

    fn feed(&mut self, data: Bytes) -> Result<(), ClientError> {
        self.pending.extend_from_slice(&data);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let mut line = self.pending.split_to(end + 1);
            line.truncate(end);
            if line.last() == Some(&b'\r') {
                line.truncate(end - 1);
            }
            self.line(&line)?;
        }
        if self.pending.len() + self.data.len() > self.limit {
            return Err(too_large(self.limit));
        }
        Ok(())
    }

    fn line(&mut self, line: &[u8]) -> Result<(), ClientError> {
        if line.is_empty() {
            return self.dispatch();
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return Ok(()), // a comment (the keep-alive)
            Some(i) => {
                let mut value = &line[i + 1..];
                if value.first() == Some(&b' ') {
                    value.advance(1);
                }
                (&line[..i], value)
            }
            None => (line, &[][..]),
        };
        if field == b"id" && !value.contains(&0) && value.len() <= MAX_ID {
            self.last_id = Some(String::from_utf8_lossy(value).into_owned());
        }
        if field == b"retry"
            && let Ok(ms) = std::str::from_utf8(value).unwrap_or("").parse::<u64>()
        {
            self.retry = Some(std::time::Duration::from_millis(ms));
        }
        if field == b"data" {
            if self.data.len() + value.len() + 1 > self.limit {
                return Err(too_large(self.limit));
            }
            if !self.data.is_empty() {
                self.data.push('\n');
            }
            self.data.push_str(&String::from_utf8_lossy(value));
        }
        Ok(())
    }

    fn dispatch(&mut self) -> Result<(), ClientError> {
        if self.data.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.data);
        let message: Value = serde_json::from_str(&data)
            .map_err(|e| ClientError::Protocol(format!("an SSE event is not JSON: {e}")))?;
        let message = classify(message);
        if matches!(message, Incoming::Response(_)) {
            self.ended = true;
        }
        self.ready.push_back(message);
        Ok(())
    }
}

impl Messages for SseReader {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Incoming>, ClientError>> {
        Box::pin(SseReader::next(self))
    }
}

/// A message a server sent, by its shape: a request has a method and an id, a notification a
/// method only, anything else is a response.
pub(crate) fn classify(message: Value) -> Incoming {
    match (message.get("method").is_some(), message.get("id").is_some()) {
        (true, true) => Incoming::Request(message),
        (true, false) => Incoming::Notification(message),
        _ => Incoming::Response(message),
    }
}

fn too_large(limit: usize) -> ClientError {
    ClientError::Protocol(format!(
        "a message is larger than the client reads ({limit} bytes)"
    ))
}
