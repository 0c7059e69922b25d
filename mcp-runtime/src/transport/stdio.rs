//! stdio: newline-delimited JSON-RPC on stdin/stdout. Only MCP messages go to stdout; logs go to
//! stderr. This module only frames: it reads lines, hands each to the process's one
//! `Connection` (which decides the revision, serves requests concurrently, and opens the
//! 2025-11-25 session when the first message is `initialize`), and writes what the connection
//! sends as lines. On end of input, listen streams are ended gracefully, in-flight requests
//! finish, and the server returns.

use super::connection::Connection;
use crate::dispatch::{Dispatcher, Response, Transport};
use crate::error::McpError;
use crate::legacy::SessionSettings;
use crate::protocol::codes;
use bytes::Bytes;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest accepted input line (16 MiB); longer lines are answered with `-32600` and skipped.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// Messages waiting to be written to the output, at most.
const OUT_QUEUE: usize = 256;

/// Serves newline-delimited JSON-RPC read from `input`, answering on `output`, until `input`
/// ends.
pub(crate) async fn serve<R, W>(
    dispatcher: Arc<Dispatcher>,
    legacy_options: Option<SessionSettings>,
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

    let mut connection =
        Connection::new(dispatcher.clone(), legacy_options, Transport::Stdio, out_tx);
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
            connection.send(Response::error(None, &e).body).await;
            continue;
        }
        let text = trim_line(&line);
        if text.is_empty() {
            continue;
        }
        connection.message(text).await;
    }
    // End of input: end listen streams gracefully and let in-flight requests finish.
    dispatcher.shutdown.cancel();
    // The connection holds the output's senders: the writer ends once they are all gone.
    connection.finish().await;
    // Nobody is left to ask about tasks still running.
    dispatcher.halt.cancel();
    writer.await.unwrap_or(Ok(()))
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
