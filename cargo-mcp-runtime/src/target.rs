//! Which server a command speaks to: `--url URL`, `-- COMMAND ARGS…`, or the current crate's
//! binary (built, then run with `--stdio`), and the client made for it.

use crate::calls::Input;
use mcp_runtime::client::Client;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The server, as the command line names it.
#[derive(clap::Args)]
pub(crate) struct Target {
    /// The server's Streamable HTTP endpoint (either era).
    #[arg(long, short = 'u', value_name = "URL")]
    url: Option<String>,
    /// A header sent with every HTTP request, `Name: value` (repeatable).
    #[arg(
        long = "header",
        short = 'H',
        value_name = "NAME: VALUE",
        requires = "url"
    )]
    headers: Vec<String>,
    /// An environment variable holding a bearer token for the HTTP server.
    #[arg(long, value_name = "VAR", requires = "url")]
    bearer_env: Option<String>,
    /// The binary of the current crate to run, when it has several.
    #[arg(long, value_name = "NAME", conflicts_with = "url")]
    bin: Option<String>,
    /// Seconds a request may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    timeout: u64,
    /// A server run as a child process over stdio: `-- COMMAND ARGS…`.
    #[arg(last = true, value_name = "COMMAND", conflicts_with = "url")]
    command: Vec<String>,
}

/// Which of the three ways the command line names the server.
pub(crate) enum Named<'a> {
    /// `--url URL`.
    Url(&'a str),
    /// `-- COMMAND ARGS…`.
    Command(&'a [String]),
    /// Neither: the current crate's binary (`--bin NAME`, when it has several).
    CurrentCrate(Option<&'a str>),
}

impl Target {
    /// How the server is named.
    pub(crate) fn named(&self) -> Named<'_> {
        match (&self.url, self.command.is_empty()) {
            (Some(url), _) => Named::Url(url),
            (None, false) => Named::Command(&self.command),
            (None, true) => Named::CurrentCrate(self.bin.as_deref()),
        }
    }

    /// How long a request, or a run of the server, may take.
    pub(crate) fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout.max(1))
    }

    /// A client of the server, answering input requests as `input` says (no answers: every
    /// input request is refused).
    pub(crate) fn connect(&self, input: Option<&Input>) -> Result<Client, String> {
        let timeout = self.timeout();
        let remote = match (&self.url, self.command.split_first()) {
            (Some(url), _) => {
                let mut remote = Client::http(url.clone()).timeout(timeout);
                for header in &self.headers {
                    let (name, value) = header
                        .split_once(':')
                        .ok_or_else(|| format!("`--header {header}`: write it as `Name: value`"))?;
                    remote = remote.header(name.trim(), value.trim());
                }
                if let Some(var) = &self.bearer_env {
                    let token = std::env::var(var).map_err(|_| {
                        format!("`--bearer-env {var}`: the environment variable `{var}` is not set")
                    })?;
                    remote = remote.bearer(token);
                }
                remote
            }
            (None, Some((command, args))) => Client::stdio(command.clone(), args).timeout(timeout),
            (None, None) => {
                let binary = crate_binary(self.bin.as_deref(), NAME_ONE)?;
                Client::stdio(binary.to_string_lossy(), ["--stdio"]).timeout(timeout)
            }
        };
        let client = remote.connect().map_err(|e| e.to_string())?;
        Ok(match input {
            Some(input) => input.configure(client),
            None => client,
        })
    }
}

/// An executable cargo built: its target's kinds (`bin`, `example`), its name, its path.
pub(crate) struct Built {
    pub(crate) kinds: Vec<String>,
    pub(crate) name: String,
    pub(crate) path: PathBuf,
}

/// `cargo build --message-format=json-render-diagnostics ARGS…`, the compiler's messages on
/// the terminal; the executables it built, or `None` when the build failed.
pub(crate) fn cargo_build(args: &[std::ffi::OsString]) -> Result<Option<Vec<Built>>, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "--message-format=json-render-diagnostics"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if !output.status.success() {
        return Ok(None);
    }
    let built = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|message| {
            let path = message["executable"].as_str()?;
            let target = &message["target"];
            let kinds = target["kind"].as_array()?;
            Some(Built {
                kinds: kinds
                    .iter()
                    .filter_map(|k| k.as_str())
                    .map(str::to_owned)
                    .collect(),
                name: target["name"].as_str().unwrap_or("").to_owned(),
                path: PathBuf::from(path),
            })
        })
        .collect();
    Ok(Some(built))
}

/// What to do when the current crate is not the server: name one.
pub(crate) const NAME_ONE: &str = "or name a server with `--url URL` or `-- COMMAND ARGS…`";

/// The current crate's server binary, built first (the compiler's messages go to the
/// terminal): the one named by `--bin`, or its only one; `fix` says what to do when the build
/// fails.
pub(crate) fn crate_binary(bin: Option<&str>, fix: &str) -> Result<PathBuf, String> {
    let mut args = Vec::new();
    if let Some(bin) = bin {
        args.extend(["--bin".into(), bin.into()]);
    }
    let Some(built) = cargo_build(&args)? else {
        return Err(format!(
            "the current crate did not build (the compiler's messages are above); {fix}"
        ));
    };
    let mut binaries: Vec<Built> = built
        .into_iter()
        .filter(|b| b.kinds.iter().any(|k| k == "bin"))
        .collect();
    match binaries.len() {
        1 => Ok(binaries.remove(0).path),
        0 => Err(
            "the current crate has no binary: name a server with `--url URL` or `-- COMMAND ARGS…`"
                .into(),
        ),
        _ => {
            let names: Vec<&str> = binaries.iter().map(|b| b.name.as_str()).collect();
            Err(format!(
                "the current crate has several binaries ({}): pick one with `--bin NAME`",
                names.join(", ")
            ))
        }
    }
}
