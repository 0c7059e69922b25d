//! stdio: newline-delimited JSON-RPC on stdin/stdout. Only MCP messages go to stdout; logs go to
//! stderr. Requests are served concurrently; `notifications/cancelled` cancels one. On end of
//! input, listen streams are ended gracefully, in-flight requests finish, and the server returns.

use crate::dispatch::{CallOptions, Incoming, Outgoing, parse_message};
use crate::protocol::{CancelledNotificationParams, RequestId};
use crate::{CancellationToken, Server};
use bytes::Bytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest accepted input line (16 MiB); longer lines are answered with `-32600` and skipped.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

type InFlight = Arc<Mutex<HashMap<RequestId, CancellationToken>>>;

impl Server {
    /// Serves on this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves newline-delimited JSON-RPC read from `input`, answering on `output`.
    pub async fn serve_io<R, W>(self, input: R, output: W) -> std::io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Bytes>();
        let writer = tokio::spawn(async move {
            let mut output = output;
            while let Some(line) = out_rx.recv().await {
                output.write_all(&line).await?;
                output.write_all(b"\n").await?;
                output.flush().await?;
            }
            Ok::<(), std::io::Error>(())
        });

        let in_flight: InFlight = Arc::default();
        let mut tasks = tokio::task::JoinSet::new();
        let mut reader = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = read_line_limited(&mut reader, &mut line).await?;
            if n == 0 {
                break;
            }
            if line.len() > MAX_LINE {
                let r = crate::dispatch::Rejection::new(
                    None,
                    crate::McpError::new(
                        crate::protocol::codes::INVALID_REQUEST,
                        format!("Invalid Request: the message exceeds {MAX_LINE} bytes"),
                    ),
                );
                let _ = out_tx.send(r.into_response().body);
                continue;
            }
            let text = trim_line(&line);
            if text.is_empty() {
                continue;
            }
            match parse_message(text) {
                Err(r) => {
                    let _ = out_tx.send(r.into_response().body);
                }
                Ok(Incoming::Notification(n)) => {
                    if n.method == "notifications/cancelled" {
                        let params = n.params.and_then(|p| {
                            serde_json::from_str::<CancelledNotificationParams>(p.get()).ok()
                        });
                        if let Some(id) = params.and_then(|p| p.request_id) {
                            let entry = lock(&in_flight).remove(&id);
                            if let Some(token) = entry {
                                token.cancel();
                            }
                        }
                    }
                }
                Ok(Incoming::Request(req)) => {
                    if let Err(r) = req.check_meta() {
                        let _ = out_tx.send(r.into_response().body);
                        continue;
                    }
                    let id = req.id().clone();
                    let mut call = self.call(req, CallOptions::default());
                    let token = call.cancellation();
                    // Registered before the task starts, so a fast finish cannot leave a stale entry.
                    {
                        let mut map = lock(&in_flight);
                        if map.contains_key(&id) {
                            drop(map);
                            let e = crate::McpError::new(
                                crate::protocol::codes::INVALID_REQUEST,
                                format!(
                                    "Invalid Request: id {id} is already in use by a request in progress"
                                ),
                            );
                            let _ = out_tx.send(crate::Response::error(Some(&id), &e).body);
                            continue;
                        }
                        map.insert(id.clone(), token.clone());
                    }
                    let out = out_tx.clone();
                    let registry = in_flight.clone();
                    tasks.spawn(async move {
                        loop {
                            let msg = tokio::select! {
                                biased;
                                _ = token.cancelled() => break,
                                msg = call.next_message() => msg,
                            };
                            let Some(msg) = msg else { break };
                            let bytes = match msg {
                                Outgoing::Notification(b) => b,
                                Outgoing::Response(r) => {
                                    // Unregister first, so a late cancel finds nothing; then answer.
                                    if lock(&registry).remove(&id).is_none() {
                                        break;
                                    }
                                    r.body
                                }
                            };
                            if out.send(bytes).is_err() {
                                break;
                            }
                        }
                        lock(&registry).remove(&id);
                    });
                }
            }
            // Reap finished tasks so the set does not grow without bound.
            while tasks.try_join_next().is_some() {}
        }
        // End of input: end listen streams gracefully and let in-flight requests finish.
        self.shutdown();
        while tasks.join_next().await.is_some() {}
        drop(out_tx);
        writer.await.unwrap_or(Ok(()))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn trim_line(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// Reads one line, keeping at most `MAX_LINE + 1` bytes of it (the rest is discarded).
async fn read_line_limited<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(total);
        }
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..=i], true),
            None => (buf, false),
        };
        let room = (MAX_LINE + 1).saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        total += used;
        reader.consume(used);
        if found {
            return Ok(total);
        }
    }
}
