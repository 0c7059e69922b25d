//! `cargo mcp-runtime`: the command line of the mcp-runtime framework, on its own client.
//!
//! - `inspect`: what a server exposes (readable, or `--json`): its lists, which hosts read its
//!   tools' schemas as meant, its MCP Apps views, its `server.json`.
//! - `list`, `call`, `read`, `get`: one request, its input requests answered in the terminal
//!   or from `--answer` flags, progress shown as it comes; a non-zero exit on an error.
//! - `new NAME`: a server crate that builds and whose tests pass out of the box.
//! - `dev`: the current crate's server served, and served again whenever its sources change.
//! - `check URL`: the server as hosted connectors will meet it, each finding with its fix.
//! - `install HOST`: a server added to a host's configuration file (Claude Desktop, Claude
//!   Code, Cursor, VS Code, Gemini CLI, Codex, Goose, a plain `mcp.json`), everything else in
//!   the file kept as it was.
//!
//! The server is named by `--url URL` (Streamable HTTP, either era), by `-- COMMAND ARGS…` (a
//! child process over stdio), or, with neither, is the current crate's binary, built and run
//! with `--stdio`.

/// `println!` that ends the program quietly once stdout is closed (`… | head -1`), where
/// `println!` would panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
        }
    }};
}

mod calls;
mod check;
mod dev;
mod inspect;
mod install;
mod new;
mod pack;
mod prompting;
mod target;
mod values;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The command line of the mcp-runtime server framework.
#[derive(Parser)]
#[command(name = "cargo mcp-runtime", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Creates a server crate that builds and whose tests pass: a tool, a resource, a prompt,
    /// an in-process test, a README with its two commands.
    New(new::New),
    /// Builds and serves the current crate's server, and builds and serves it again on the
    /// same address whenever its sources change (the last good server keeps serving while a
    /// build fails; requests of several rounds survive a restart).
    Dev(dev::Dev),
    /// What a server exposes: its revision, capabilities, tools (with their arguments and
    /// which hosts read their input schemas as meant), resources, templates, prompts, skills,
    /// MCP Apps views, and its `server.json` for the MCP Registry.
    Inspect {
        #[command(flatten)]
        target: target::Target,
        /// The whole answer as JSON.
        #[arg(long)]
        json: bool,
        /// The server's name in the MCP Registry, for its `server.json` (by default
        /// `io.github.OWNER/CRATE` for the current crate when its repository is on GitHub).
        #[arg(long, value_name = "NAMESPACE/NAME")]
        registry_name: Option<String>,
    },
    /// One list of a server: tools, resources, templates, prompts or skills.
    List {
        /// Which list.
        #[arg(value_enum)]
        what: calls::Listed,
        #[command(flatten)]
        target: target::Target,
        /// The items as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Calls a tool: `call NAME key=value…` (each value typed by the tool's input schema) or
    /// `call NAME '{…}'`; exits 1 when the result is an error.
    Call {
        /// The tool's name.
        name: String,
        /// Its arguments, `key=value` each.
        arguments: Vec<String>,
        #[command(flatten)]
        input: calls::Input,
        #[command(flatten)]
        target: target::Target,
    },
    /// Reads a resource.
    Read {
        /// The resource's URI.
        uri: String,
        #[command(flatten)]
        input: calls::Input,
        #[command(flatten)]
        target: target::Target,
    },
    /// Gets a prompt: `get NAME key=value…`.
    Get {
        /// The prompt's name.
        name: String,
        /// Its arguments, `key=value` each.
        arguments: Vec<String>,
        #[command(flatten)]
        input: calls::Input,
        #[command(flatten)]
        target: target::Target,
    },
    /// Adds a server to a host's configuration (or, with `--remove`, takes it out).
    Install(install::Install),
    /// The server as hosted connectors and hosts will meet it: both eras' handshakes, a
    /// browser's GET, the OAuth discovery preflight, CORS, schema portability, TLS and port;
    /// each finding with its fix, exit 1 on any failure (for CI).
    Check(check::Check),
    /// Packs the current crate's server as an MCP Bundle (`.mcpb`), for Claude Desktop's
    /// one-click install: its manifest from the crate and the tools and prompts it lists.
    Pack(pack::Pack),
}

fn main() -> ExitCode {
    // As `cargo mcp-runtime …`, cargo passes the subcommand's name first.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "mcp-runtime") {
        args.remove(1);
    }
    let cli = Cli::parse_from(args);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: could not start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let done = runtime.block_on(run(cli.command));
    // `dev`'s loop is a blocking task that never ends by itself: not waited for.
    runtime.shutdown_background();
    match done {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Inspect {
            target,
            json,
            registry_name,
        } => {
            let client = target.connect(None)?;
            let options = inspect::Options {
                json,
                registry_name: registry_name.as_deref(),
            };
            inspect::inspect(&client, &target, options).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::List { what, target, json } => {
            let client = target.connect(None)?;
            calls::list(&client, what, json).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Call {
            name,
            arguments,
            input,
            target,
        } => {
            let client = target.connect(Some(&input))?;
            calls::call(&client, &name, &arguments).await
        }
        Command::Read { uri, input, target } => {
            let client = target.connect(Some(&input))?;
            calls::read(&client, &uri).await
        }
        Command::Get {
            name,
            arguments,
            input,
            target,
        } => {
            let client = target.connect(Some(&input))?;
            calls::get(&client, &name, &arguments).await
        }
        Command::Install(install) => install.run().map(|()| ExitCode::SUCCESS),
        Command::New(new) => new.run().map(|()| ExitCode::SUCCESS),
        Command::Dev(dev) => dev.run().await.map(|()| ExitCode::SUCCESS),
        Command::Check(check) => check.run().await,
        Command::Pack(pack) => pack.run().await.map(|()| ExitCode::SUCCESS),
    }
}
