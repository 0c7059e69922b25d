//! stdio: newline-delimited JSON-RPC on stdin/stdout. Only MCP messages go to stdout; logs go to
//! stderr. Requests are served concurrently; `notifications/cancelled` cancels one. On end of
//! input, listen streams are ended gracefully, in-flight requests finish, and the server returns.
//!
//! The first message decides the revision for the whole process: `initialize` makes it a
//! 2025-11-25 session (`legacy`), any other request a 2026-07-28 connection. `server/discover`
//! is answered before that choice without making it, so a client may probe with it and still
//! open with `initialize`.

mod legacy;

use crate::dispatch::{
    Dispatcher, Handled, Ingress, Outgoing, Response, Transport, TransportChecks,
};
use crate::error::McpError;
use crate::legacy::LegacyOptions;
use crate::protocol::{
    CancelledNotificationParams, ClientNotification, ClientRequest, RequestId, codes,
};
use crate::registry::ParamHeader;
use bytes::Bytes;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Longest accepted input line (16 MiB); longer lines are answered with `-32600` and skipped.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// Messages waiting to be written to the output, at most.
const OUT_QUEUE: usize = 256;

/// Serves newline-delimited JSON-RPC read from `input`, answering on `output`, until `input`
/// ends.
pub(crate) async fn serve<R, W>(
    dispatcher: Arc<Dispatcher>,
    legacy_options: Option<LegacyOptions>,
    input: R,
    output: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // Bounded: when the client stops reading stdout, calls wait here, and their own bounded
    // notification queues decide what is dropped; memory does not grow.
    let (out_tx, mut out_rx) = mpsc::channel::<Bytes>(OUT_QUEUE);
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = out_rx.recv().await {
            output.write_all(&line).await?;
            output.write_all(b"\n").await?;
            output.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });

    let in_flight = InFlight::default();
    let mut tasks = tokio::task::JoinSet::new();
    // Until the first message other than `server/discover`, either revision may follow.
    let mut era = match legacy_options {
        Some(options) => Era::Undecided(legacy::StdioSession::new(
            dispatcher.clone(),
            options,
            out_tx.clone(),
        )),
        None => Era::Modern,
    };
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = read_line_limited(&mut reader, &mut line).await?;
        if n == 0 {
            break;
        }
        if line.len() > MAX_LINE {
            let e = McpError::new(
                codes::INVALID_REQUEST,
                format!("Invalid Request: the message exceeds {MAX_LINE} bytes"),
            );
            let _ = out_tx.send(Response::error(None, &e).body).await;
            continue;
        }
        let text = trim_line(&line);
        if text.is_empty() {
            continue;
        }
        if let Era::Undecided(_) = &era {
            match first_method(text).as_deref() {
                Some("initialize") => {
                    if let Era::Undecided(session) = std::mem::replace(&mut era, Era::Modern) {
                        era = Era::Legacy(session);
                    }
                }
                Some("server/discover") => {}
                _ => era = Era::Modern,
            }
        }
        if let Era::Legacy(session) = &mut era {
            session.message(text, &mut tasks).await;
            while tasks.try_join_next().is_some() {}
            continue;
        }
        let ingress = Ingress {
            caller: None,
            checks: Some(&in_flight),
            transport: Some(Transport::Stdio),
            client: None,
        };
        let mut call = match dispatcher.handle(text, ingress) {
            Handled::Notification(n) => {
                in_flight.notified(n);
                continue;
            }
            Handled::Call(call) => call,
        };
        // A call still running is registered before its task starts, so a fast finish cannot
        // leave a stale entry (one answered already has nothing to cancel).
        let id = call.request_id().filter(|_| call.is_running()).cloned();
        let token = call.cancellation();
        if let Some(id) = &id {
            lock(&in_flight.0).insert(id.clone(), token.clone());
        }
        let out = out_tx.clone();
        let registry = in_flight.0.clone();
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
                        if let Some(id) = &id
                            && lock(&registry).remove(id).is_none()
                        {
                            break;
                        }
                        r.body
                    }
                };
                if out.send(bytes).await.is_err() {
                    break;
                }
            }
            if let Some(id) = &id {
                lock(&registry).remove(id);
            }
        });
        // Reap finished tasks so the set does not grow without bound.
        while tasks.try_join_next().is_some() {}
    }
    // End of input: end listen streams gracefully and let in-flight requests finish.
    dispatcher.shutdown.cancel();
    while tasks.join_next().await.is_some() {}
    // The session holds a sender of the output too: the writer ends once both are gone.
    drop(era);
    drop(out_tx);
    writer.await.unwrap_or(Ok(()))
}

/// Which revision the process speaks.
enum Era {
    /// Not decided yet (only `server/discover` so far).
    Undecided(legacy::StdioSession),
    Modern,
    Legacy(legacy::StdioSession),
}

/// The method of a message, read without the rest of it.
fn first_method(text: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Peek {
        method: Option<String>,
    }
    serde_json::from_slice::<Peek>(text).ok()?.method
}

/// The requests in progress, by id: an id may not be reused while its request runs, and
/// `notifications/cancelled` cancels one.
#[derive(Default)]
struct InFlight(Arc<Mutex<HashMap<RequestId, CancellationToken>>>);

impl InFlight {
    fn notified(&self, n: ClientNotification) {
        if n.method != "notifications/cancelled" {
            return;
        }
        let params = n
            .params
            .and_then(|p| serde_json::from_str::<CancelledNotificationParams>(p.get()).ok());
        if let Some(id) = params.and_then(|p| p.request_id) {
            let entry = lock(&self.0).remove(&id);
            if let Some(token) = entry {
                token.cancel();
            }
        }
    }
}

impl TransportChecks for InFlight {
    fn check_request(&self, request: &ClientRequest<'_>) -> Result<(), McpError> {
        if lock(&self.0).contains_key(&request.id) {
            return Err(McpError::new(
                codes::INVALID_REQUEST,
                format!(
                    "Invalid Request: id {} is already in use by a request in progress",
                    request.id
                ),
            ));
        }
        Ok(())
    }

    /// No headers on stdio.
    fn check_arguments(&self, _: &[ParamHeader], _: &Map<String, Value>) -> Result<(), McpError> {
        Ok(())
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
