//! The command-line entry point of server binaries: `--addr HOST:PORT`, `--stdio`, or
//! `--server-json` (print the server's MCP Registry entry and exit).

use crate::error::Error;
use crate::registry_entry::ServerJson;
use crate::server::Server;
use crate::transport::http::HttpOptions;
use std::net::SocketAddr;

/// How [`Server::run_with`] serves: the transport, and for HTTP the address.
///
/// [`Server::run`] reads it from the command line ([`RunMode::from_args`]). A program with a
/// command line of its own parses it its own way (with clap, say) and hands the mode in:
///
/// ```no_run
/// use mcp_runtime::{HttpOptions, RunMode, Server};
/// # async fn demo(server: Server, port: u16, stdio: bool) -> Result<(), mcp_runtime::Error> {
/// let mode = if stdio {
///     RunMode::Stdio
/// } else {
///     RunMode::Http(([0, 0, 0, 0], port).into())
/// };
/// server.run_with(mode, HttpOptions::default()).await
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunMode {
    /// Streamable HTTP on this address.
    Http(SocketAddr),
    /// stdio.
    Stdio,
    /// No serving: print this server's `server.json` for the MCP Registry
    /// ([`Server::server_json`]) to stdout, and return.
    ServerJson(ServerJson),
}

impl Default for RunMode {
    /// HTTP on `127.0.0.1:8000`.
    fn default() -> Self {
        RunMode::Http(([127, 0, 0, 1], 8000).into())
    }
}

impl RunMode {
    /// Reads `--addr HOST:PORT` (or `--addr=HOST:PORT`; default `127.0.0.1:8000`) and `--stdio`
    /// from `args`, the program name left out; or `--server-json` and its options
    /// ([`ServerJson::from_args`]), which win over both. Every other argument is the program's
    /// own and is passed over.
    ///
    /// ```
    /// use mcp_runtime::RunMode;
    /// let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    /// let mode = RunMode::parse(args(&["--addr", "127.0.0.1:9000"])).unwrap();
    /// assert_eq!(mode, RunMode::Http("127.0.0.1:9000".parse().unwrap()));
    /// assert_eq!(RunMode::parse(args(&["--verbose", "--stdio"])).unwrap(), RunMode::Stdio);
    /// assert_eq!(RunMode::parse(args(&[])).unwrap(), RunMode::default());
    /// assert!(RunMode::parse(args(&["--addr", "nowhere"])).is_err());
    /// ```
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<RunMode, Error> {
        let args: Vec<String> = args.into_iter().collect();
        if let Some(entry) = ServerJson::from_args(&args)? {
            return Ok(RunMode::ServerJson(entry));
        }
        let mut mode = RunMode::default();
        let mut stdio = false;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let value = match arg.as_str() {
                "--stdio" => {
                    stdio = true;
                    continue;
                }
                "--addr" => args.next().ok_or_else(|| {
                    Error::Usage("--addr needs a value like 127.0.0.1:8000".to_owned())
                })?,
                other => match other.strip_prefix("--addr=") {
                    Some(v) => v.to_owned(),
                    None => continue,
                },
            };
            let addr = value.parse().map_err(|_| {
                Error::Usage(format!(
                    "`{value}` is not a HOST:PORT address such as 127.0.0.1:8000"
                ))
            })?;
            mode = RunMode::Http(addr);
        }
        Ok(if stdio { RunMode::Stdio } else { mode })
    }

    /// Reads the process's own command line ([`RunMode::parse`]).
    pub fn from_args() -> Result<RunMode, Error> {
        RunMode::parse(std::env::args().skip(1))
    }
}

impl Server {
    /// Serves as the command line says (`--addr HOST:PORT`, default `127.0.0.1:8000`, or
    /// `--stdio`; other arguments are left to the program), printing where it serves: the URL
    /// and a `curl` line to stdout for HTTP, a note to stderr for stdio (stdout carries only MCP
    /// messages there). With `--server-json --name NAMESPACE/NAME` it prints its `server.json`
    /// for the MCP Registry instead, and returns ([`ServerJson::from_args`]).
    ///
    /// ```no_run
    /// #[tokio::main]
    /// async fn main() -> Result<(), mcp_runtime::Error> {
    ///     mcp_runtime::Server::from_inventory().build()?.run().await
    /// }
    /// ```
    pub async fn run(self) -> Result<(), Error> {
        self.run_with(RunMode::from_args()?, HttpOptions::default())
            .await
    }

    /// Serves in `mode`, with `options` for HTTP, printing where it serves like
    /// [`run`](Server::run).
    pub async fn run_with(self, mode: RunMode, options: HttpOptions) -> Result<(), Error> {
        let (name, version) = (self.info().name.clone(), self.info().version.clone());
        match mode {
            RunMode::ServerJson(entry) => {
                println!("{:#}", self.server_json(&entry)?);
                if !entry.crates().is_empty() {
                    eprintln!(
                        "so that the registry can tell the crate is yours, put this line in its \
                         README as plain text (crates.io drops HTML comments): {}",
                        entry.mcp_name_line()
                    );
                }
                Ok(())
            }
            RunMode::Stdio => {
                eprintln!("{name} {version} serving MCP on stdio (newline-delimited JSON-RPC)");
                self.serve_stdio().await
            }
            RunMode::Http(addr) => {
                options.check().map_err(Error::Usage)?;
                let listener = crate::transport::http::bind(addr).await?;
                let url = format!(
                    "http://{}{}",
                    listener.local_addr()?,
                    options.endpoint_path()
                );
                println!("{name} {version} serving MCP on {url}");
                #[cfg(feature = "lab")]
                if let Some(lab) = options.lab_page_path() {
                    println!("lab page: http://{}{lab}", listener.local_addr()?);
                }
                println!(
                    "try: curl -s {url} -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
                     -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover' \
                     -d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{{\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}'"
                );
                self.serve(listener, options).await
            }
        }
    }
}
