//! The `session` case: one 2025-11-25 session opened and closed per iteration, as a client that
//! connects, calls one tool and leaves does it: `initialize`, `notifications/initialized`,
//! `tools/call` of `add`, `DELETE`. Four HTTP requests on one keep-alive connection (the
//! bench's [`Conn`]), each answer checked.

use mcp_bench::Request;
use mcp_bench::client::{Conn, Response};

/// The protocol version the session is opened with.
const VERSION: &str = "2025-11-25";

/// A keep-alive connection that opens, uses and closes sessions.
pub(crate) struct SessionConn(Conn);

fn bad(msg: String) -> String {
    format!("session: {msg}")
}

impl SessionConn {
    pub(crate) fn connect(port: u16) -> Result<SessionConn, String> {
        Conn::connect(port)
            .map(SessionConn)
            .map_err(|e| e.to_string())
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

    fn send(
        &mut self,
        method: &str,
        session: Option<&str>,
        body: &str,
    ) -> Result<Response, String> {
        let headers = match session {
            Some(sid) => vec![
                ("Mcp-Session-Id".to_owned(), sid.to_owned()),
                ("MCP-Protocol-Version".to_owned(), VERSION.to_owned()),
            ],
            None => Vec::new(),
        };
        let request = Request {
            body: body.to_owned(),
            headers,
        };
        self.0
            .send_as(method, &request)
            .map_err(|e| bad(e.to_string()))
    }
}
