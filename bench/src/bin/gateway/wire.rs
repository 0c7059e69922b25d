//! The load: raw keep-alive HTTP/1.1 on a current-thread runtime.

use mcp_bench::Request;
use std::fmt::Write as _;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What every correct answer to `add` 40 + 2 carries.
pub(crate) const ANSWER: &[u8] = br#""text":"42""#;

/// The bytes of one keep-alive POST of `req` to `127.0.0.1:port`.
pub(crate) fn wire(port: u16, req: &Request) -> Vec<u8> {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        req.body.len()
    );
    for (k, v) in &req.headers {
        let _ = write!(head, "{k}: {v}\r\n");
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(req.body.as_bytes());
    bytes
}

pub(crate) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// One keep-alive connection; answers with a `Content-Length` or chunked body.
pub(crate) struct KeepAlive {
    pub(crate) s: tokio::net::TcpStream,
    pub(crate) buf: Vec<u8>,
}

/// The length of a complete response at the start of `buf` and its body (de-chunked), or
/// `None` while it is incomplete.
pub(crate) fn parse(buf: &[u8]) -> Result<Option<(usize, Vec<u8>)>, String> {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
    if !head.starts_with("http/1.1 200") {
        return Err(head.lines().next().unwrap_or("").to_owned());
    }
    let mut at = end + 4;
    if let Some(len) = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return Ok((buf.len() >= at + len).then(|| (at + len, buf[at..at + len].to_vec())));
    }
    if !head.contains("transfer-encoding: chunked") {
        return Err("neither Content-Length nor chunked".into());
    }
    let mut body = Vec::new();
    loop {
        let Some(eol) = buf[at..].windows(2).position(|w| w == b"\r\n") else {
            return Ok(None);
        };
        let size_text = String::from_utf8_lossy(&buf[at..at + eol]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| "bad chunk size".to_owned())?;
        let data = at + eol + 2;
        if buf.len() < data + size + 2 {
            return Ok(None);
        }
        if size == 0 {
            return Ok(Some((data + 2, body)));
        }
        body.extend_from_slice(&buf[data..data + size]);
        at = data + size + 2;
    }
}

impl KeepAlive {
    pub(crate) async fn connect(port: u16) -> std::io::Result<KeepAlive> {
        let s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        s.set_nodelay(true)?;
        Ok(KeepAlive {
            s,
            buf: Vec::with_capacity(8192),
        })
    }

    pub(crate) async fn send(&mut self, request: &[u8]) -> std::io::Result<Vec<u8>> {
        self.s.write_all(request).await?;
        let mut chunk = [0u8; 8192];
        loop {
            if let Some((total, body)) = parse(&self.buf).map_err(std::io::Error::other)? {
                self.buf.drain(..total);
                return Ok(body);
            }
            let n = self.s.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

pub(crate) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}
