//! A minimal blocking HTTP/1.1 client for loopback: enough to probe a server for cold start,
//! fetch the values a case needs (a `requestState`, a cursor), check answers, and send a fixed
//! number of keep-alive requests to a server running under callgrind.

use crate::Request;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One HTTP response.
#[derive(Debug, Clone)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// `Content-Type`, lowercase, or empty.
    pub content_type: String,
    /// The body, de-chunked.
    pub body: String,
    /// `Mcp-Session-Id`, when the server sent one (a 2025-11-25 `initialize`).
    pub session: Option<String>,
}

/// A keep-alive connection to `127.0.0.1:port`.
#[derive(Debug)]
pub struct Conn {
    port: u16,
    reader: BufReader<TcpStream>,
}

fn bad(msg: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.to_owned())
}

impl Conn {
    /// Connects (fails fast when nothing listens yet).
    pub fn connect(port: u16) -> std::io::Result<Conn> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Conn {
            port,
            reader: BufReader::new(stream),
        })
    }

    /// Connects from the loopback address `from` (127.0.0.2, …): a client of its own, as the
    /// server's per-caller shares see it.
    pub fn connect_from(port: u16, from: std::net::IpAddr) -> std::io::Result<Conn> {
        let stream = connect_from(port, from)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Conn {
            port,
            reader: BufReader::new(stream),
        })
    }

    /// The socket, for a caller that writes or holds it itself.
    pub fn socket(&mut self) -> &mut TcpStream {
        self.reader.get_mut()
    }

    /// Sends one request on this connection and reads its whole response.
    pub fn send(&mut self, req: &Request) -> std::io::Result<Response> {
        self.send_as("POST", req)
    }

    /// [`send`](Self::send) with another HTTP method (a 2025-11-25 session's `DELETE`): a
    /// request without a body carries no `Content-Type`.
    pub fn send_as(&mut self, method: &str, req: &Request) -> std::io::Result<Response> {
        let content_type = match req.body.is_empty() && method != "POST" {
            true => "",
            false => "Content-Type: application/json\r\n",
        };
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{content_type}\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.port,
            req.body.len()
        );
        for (k, v) in &req.headers {
            head.push_str(k);
            head.push_str(": ");
            head.push_str(v);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        head.push_str(&req.body);
        self.reader.get_mut().write_all(head.as_bytes())?;
        self.read_response()
    }

    fn line(&mut self) -> std::io::Result<String> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(bad("connection closed"));
        }
        Ok(line.trim_end().to_owned())
    }

    fn read_response(&mut self) -> std::io::Result<Response> {
        let status_line = self.line()?;
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("no status"))?;
        let mut length = None;
        let mut chunked = false;
        let mut content_type = String::new();
        let mut session = None;
        loop {
            let line = self.line()?;
            if line.is_empty() {
                break;
            }
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
            match k.as_str() {
                "content-length" => length = v.parse::<usize>().ok(),
                "transfer-encoding" => chunked = v.eq_ignore_ascii_case("chunked"),
                "content-type" => content_type = v.to_ascii_lowercase(),
                "mcp-session-id" => session = Some(v.to_owned()),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let size_line = self.line()?;
                let size = usize::from_str_radix(size_line.split(';').next().unwrap_or(""), 16)
                    .map_err(|_| bad("bad chunk size"))?;
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk)?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else if let Some(n) = length {
            body.resize(n, 0);
            self.reader.read_exact(&mut body)?;
        }
        Ok(Response {
            status,
            content_type,
            body: String::from_utf8_lossy(&body).into_owned(),
            session,
        })
    }
}

/// A blocking connection to `127.0.0.1:port` from the local address `from` (std cannot bind a
/// socket before it connects; tokio's `TcpSocket` can, on a throwaway runtime).
pub fn connect_from(port: u16, from: std::net::IpAddr) -> std::io::Result<TcpStream> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let stream = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(std::net::SocketAddr::new(from, 0))?;
        socket.connect(([127, 0, 0, 1], port).into()).await
    })?;
    let stream = stream.into_std()?;
    stream.set_nonblocking(false)?;
    Ok(stream)
}

/// One request on a fresh connection.
pub fn once(port: u16, req: &Request) -> std::io::Result<Response> {
    Conn::connect(port)?.send(req)
}
