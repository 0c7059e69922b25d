//! The `session` case: one 2025-11-25 session opened and closed per iteration, as a client that
//! connects, calls one tool and leaves does it: `initialize`, `notifications/initialized`,
//! `tools/call` of `add`, `DELETE`. Four HTTP requests on one keep-alive connection, each
//! answer checked; a DELETE is not a POST, so this has its own small client.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The protocol version the session is opened with.
const VERSION: &str = "2025-11-25";

/// What the session case checks of an answer.
struct Answer {
    status: u16,
    session: Option<String>,
    body: String,
}

/// A keep-alive connection that sends any method.
pub(crate) struct SessionConn {
    port: u16,
    reader: BufReader<TcpStream>,
}

fn bad(msg: String) -> String {
    format!("session: {msg}")
}

impl SessionConn {
    pub(crate) fn connect(port: u16) -> Result<SessionConn, String> {
        let stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        Ok(SessionConn {
            port,
            reader: BufReader::new(stream),
        })
    }

    /// One iteration: a session opened, used once and ended; `Err` at the first wrong answer.
    pub(crate) fn iteration(&mut self) -> Result<(), String> {
        let init = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-bench","version":"1.0.0"}}}}}}"#
        );
        let opened = self.send("POST", None, &init)?;
        let sid = match opened.session {
            Some(sid) if opened.status == 200 && opened.body.contains(VERSION) => sid,
            _ => {
                return Err(bad(format!(
                    "initialize: {} {}",
                    opened.status, opened.body
                )));
            }
        };
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let r = self.send("POST", Some(&sid), initialized)?;
        if r.status != 202 {
            return Err(bad(format!("initialized: {} {}", r.status, r.body)));
        }
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":40,"b":2}}}"#;
        let r = self.send("POST", Some(&sid), call)?;
        if r.status != 200 || !r.body.contains(r#""text":"42""#) || r.body.contains("resultType") {
            return Err(bad(format!("tools/call: {} {}", r.status, r.body)));
        }
        let r = self.send("DELETE", Some(&sid), "")?;
        if r.status != 200 {
            return Err(bad(format!("DELETE: {} {}", r.status, r.body)));
        }
        Ok(())
    }

    fn send(&mut self, method: &str, session: Option<&str>, body: &str) -> Result<Answer, String> {
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\
             Accept: application/json, text/event-stream\r\n",
            self.port
        );
        if !body.is_empty() {
            head.push_str("Content-Type: application/json\r\n");
        }
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        if let Some(sid) = session {
            head.push_str(&format!(
                "Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: {VERSION}\r\n"
            ));
        }
        head.push_str("\r\n");
        head.push_str(body);
        self.reader
            .get_mut()
            .write_all(head.as_bytes())
            .map_err(|e| e.to_string())?;
        self.read().map_err(|e| bad(e.to_string()))
    }

    fn line(&mut self) -> std::io::Result<String> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(std::io::Error::other("connection closed"));
        }
        Ok(line.trim_end().to_owned())
    }

    fn read(&mut self) -> std::io::Result<Answer> {
        let status = self
            .line()?
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other("no status"))?;
        let (mut length, mut chunked, mut session) = (0, false, None);
        loop {
            let line = self.line()?;
            if line.is_empty() {
                break;
            }
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let v = v.trim();
            match k.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = v.parse().unwrap_or(0),
                "transfer-encoding" => chunked = v.eq_ignore_ascii_case("chunked"),
                "mcp-session-id" => session = Some(v.to_owned()),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let size = usize::from_str_radix(self.line()?.split(';').next().unwrap_or(""), 16)
                    .map_err(|_| std::io::Error::other("bad chunk size"))?;
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk)?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            body.resize(length, 0);
            self.reader.read_exact(&mut body)?;
        }
        Ok(Answer {
            status,
            session,
            body: String::from_utf8_lossy(&body).into_owned(),
        })
    }
}
