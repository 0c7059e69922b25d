//! Command-line entry point shared by server binaries: `--addr HOST:PORT` or `--stdio`.

use crate::{HttpOptions, Server};
use std::net::SocketAddr;

/// How [`Server::run`] serves, parsed from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunMode {
    /// Streamable HTTP on this address, endpoint `/mcp`.
    Http(SocketAddr),
    /// stdio.
    Stdio,
}

impl RunMode {
    /// Parses `--addr HOST:PORT` (default `127.0.0.1:8000`), `--addr=HOST:PORT` and `--stdio`.
    ///
    /// ```
    /// use mcp_runtime::RunMode;
    /// let mode = RunMode::parse(["--addr", "127.0.0.1:9000"].map(String::from)).unwrap();
    /// assert_eq!(mode, RunMode::Http("127.0.0.1:9000".parse().unwrap()));
    /// assert_eq!(RunMode::parse(["--stdio".to_string()]).unwrap(), RunMode::Stdio);
    /// assert!(RunMode::parse(["--bogus".to_string()]).is_err());
    /// ```
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<RunMode, String> {
        let mut addr: SocketAddr = ([127, 0, 0, 1], 8000).into();
        let mut stdio = false;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let value = match arg.as_str() {
                "--stdio" => {
                    stdio = true;
                    continue;
                }
                "--addr" => args
                    .next()
                    .ok_or_else(|| "--addr needs a value like 127.0.0.1:8000".to_owned())?,
                other => match other.strip_prefix("--addr=") {
                    Some(v) => v.to_owned(),
                    None => {
                        return Err(format!(
                            "unknown argument `{other}`; usage: [--addr HOST:PORT | --stdio]"
                        ));
                    }
                },
            };
            addr = value.parse().map_err(|_| {
                format!("`{value}` is not a HOST:PORT address such as 127.0.0.1:8000")
            })?;
        }
        Ok(if stdio {
            RunMode::Stdio
        } else {
            RunMode::Http(addr)
        })
    }
}

impl Server {
    /// Serves as the command line says (`--addr HOST:PORT`, default `127.0.0.1:8000`, or
    /// `--stdio`), printing where it serves: the URL and a `curl` line to stdout for HTTP, a note
    /// to stderr for stdio (stdout carries only MCP messages there).
    pub async fn run(self) -> std::io::Result<()> {
        let mode = RunMode::parse(std::env::args().skip(1))
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        self.run_mode(mode, HttpOptions::default()).await
    }

    /// Serves in the given mode.
    pub async fn run_mode(self, mode: RunMode, options: HttpOptions) -> std::io::Result<()> {
        match mode {
            RunMode::Stdio => {
                eprintln!(
                    "{} {} serving MCP on stdio (newline-delimited JSON-RPC)",
                    self.info().name,
                    self.info().version
                );
                self.serve_stdio().await
            }
            RunMode::Http(addr) => {
                let listener = tokio::net::TcpListener::bind(addr).await?;
                let local = listener.local_addr()?;
                let url = format!("http://{local}{}", options.endpoint_path());
                println!(
                    "{} {} serving MCP on {url}",
                    self.info().name,
                    self.info().version
                );
                println!(
                    "try: curl -s {url} -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
                     -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover' \
                     -d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{{\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}'"
                );
                self.serve_listener(listener, options).await
            }
        }
    }
}
