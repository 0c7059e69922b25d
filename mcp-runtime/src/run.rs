//! The command-line entry point of server binaries: `--addr HOST:PORT`, `--stdio`, or
//! `--server-json` (print the server's MCP Registry entry and exit).

use crate::error::Error;
use crate::registry::BoxFuture;
use crate::server::Server;
use crate::server_json::ServerJson;
use crate::transport::http::HttpOptions;
use std::io::Write as _;
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
    /// No serving: print this usage text (`--help`, [`RunMode::parse_strict`]) to stdout, and
    /// return.
    Help(String),
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

    /// Reads `args` as [`parse`](RunMode::parse) does, but refuses an argument that is neither
    /// `--addr`, `--stdio`, `--server-json` and its options, nor one of the program's `own`
    /// options: each written as its usage shows it, `"--audit"` for a switch, `"--config FILE"`
    /// for an option with a value (`--config=FILE` is read too). `--help` or `-h` gives
    /// [`RunMode::Help`], the usage of all of them.
    ///
    /// ```
    /// use mcp_runtime::RunMode;
    /// let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    /// let own = ["--config FILE", "--audit"];
    /// let mode = RunMode::parse_strict(args(&["--config", "servers.json", "--stdio"]), &own);
    /// assert_eq!(mode.unwrap(), RunMode::Stdio);
    /// let wrong = RunMode::parse_strict(args(&["--verbose"]), &own).unwrap_err();
    /// assert!(wrong.to_string().starts_with("unknown argument `--verbose`"));
    /// let Ok(RunMode::Help(usage)) = RunMode::parse_strict(args(&["--help"]), &own) else {
    ///     panic!("--help gives the usage")
    /// };
    /// assert!(usage.contains("--config FILE") && usage.contains("--addr HOST:PORT"));
    /// ```
    pub fn parse_strict<I: IntoIterator<Item = String>>(
        args: I,
        own: &[&str],
    ) -> Result<RunMode, Error> {
        let args: Vec<String> = args.into_iter().collect();
        // (name, takes a value) of everything this command line knows.
        let mut known: Vec<(&str, bool)> = vec![("--addr", true), ("--stdio", false)];
        known.push(("--server-json", false));
        known.extend(crate::server_json::OPTIONS.iter().map(|o| (*o, true)));
        known.extend(own.iter().map(|o| match o.split_once(' ') {
            Some((name, _)) => (name, true),
            None => (*o, false),
        }));
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            if arg == "--help" || arg == "-h" {
                return Ok(RunMode::Help(usage(own)));
            }
            let (name, inline) = match arg.split_once('=') {
                Some((name, _)) => (name, true),
                None => (arg.as_str(), false),
            };
            match known.iter().find(|(k, _)| *k == name) {
                Some((_, true)) if !inline => {
                    if rest.next().is_none() {
                        return Err(Error::Usage(format!("{name} needs a value")));
                    }
                }
                Some((_, false)) if inline => {
                    return Err(Error::Usage(format!("{name} takes no value")));
                }
                Some(_) => {}
                None => {
                    return Err(Error::Usage(format!(
                        "unknown argument `{arg}`; {}",
                        usage(own)
                    )));
                }
            }
        }
        RunMode::parse(args)
    }

    /// Reads the process's own command line ([`RunMode::parse_strict`]); with `--help`, prints
    /// the usage and exits.
    pub fn from_args_strict(own: &[&str]) -> Result<RunMode, Error> {
        match RunMode::parse_strict(std::env::args().skip(1), own)? {
            RunMode::Help(text) => {
                // A closed stdout (`--help | head -1`) is no failure.
                let _ = writeln!(std::io::stdout(), "{text}");
                std::process::exit(0)
            }
            mode => Ok(mode),
        }
    }
}

/// The usage of a server binary whose own options are `own`.
fn usage(own: &[&str]) -> String {
    let program = std::env::args()
        .next()
        .as_deref()
        .and_then(|p| {
            std::path::Path::new(p)
                .file_name()?
                .to_str()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "server".to_owned());
    let mut text = format!(
        "usage: {program} [--addr HOST:PORT | --stdio]{}\n\
         \x20 --addr HOST:PORT  serve Streamable HTTP there (default 127.0.0.1:8000, endpoint /mcp)\n\
         \x20 --stdio           serve newline-delimited JSON-RPC on stdin and stdout\n\
         \x20 --server-json --name NAMESPACE/NAME [--crate NAME@VERSION] [--remote URL] …\n\
         \x20                   print the server's server.json for the MCP Registry\n",
        own.iter().map(|o| format!(" [{o}]")).collect::<String>(),
    );
    text.push_str("  -h, --help        print this");
    text
}

impl Server {
    /// Serves as the command line says (`--addr HOST:PORT`, default `127.0.0.1:8000`, or
    /// `--stdio`; any other argument is refused, and `--help` prints the usage:
    /// [`RunMode::from_args_strict`]; a program with options of its own names them there and
    /// calls [`run_with`](Server::run_with)), printing where it serves: the URL
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
        self.run_with(RunMode::from_args_strict(&[])?, HttpOptions::default())
            .await
    }

    /// Serves in `mode`, with `options` for HTTP, printing where it serves like
    /// [`run`](Server::run).
    pub async fn run_with(self, mode: RunMode, options: HttpOptions) -> Result<(), Error> {
        self.run_boxed(mode, options).await
    }

    /// [`run_with`](Server::run_with)'s work, polled through one box made here: otherwise
    /// the serving state machine is compiled again into every codegen unit that awaits it (three
    /// copies of about 20 KiB in a release binary).
    #[inline(never)]
    fn run_boxed(
        self,
        mode: RunMode,
        options: HttpOptions,
    ) -> BoxFuture<'static, Result<(), Error>> {
        Box::pin(self.run_unboxed(mode, options))
    }

    async fn run_unboxed(self, mode: RunMode, options: HttpOptions) -> Result<(), Error> {
        let (name, version) = (self.info().name.clone(), self.info().version.clone());
        match mode {
            RunMode::Help(text) => {
                let _ = writeln!(std::io::stdout(), "{text}");
                Ok(())
            }
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
                self.check_http(&options)?;
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
