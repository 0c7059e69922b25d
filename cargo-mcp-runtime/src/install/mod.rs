//! `install HOST`: a server added to (or, with `--remove`, taken out of) a host's configuration
//! file, in the shape that host reads. Local servers run the current crate's binary (or the
//! given command); remote ones are a URL whose token stays in an environment variable or the
//! host's own secret prompt, never in the file. A second run updates the entry; every other
//! entry, comment and format of the file is kept.

mod codex;
mod entry;
mod goose;
mod hosts;
mod json;

use entry::{Edited, Entry};
use hosts::{Host, Scope};
use std::path::{Path, PathBuf};

/// What `install` was asked.
#[derive(clap::Args)]
pub(crate) struct Install {
    /// The host whose configuration gets the server.
    #[arg(value_enum)]
    host: Host,
    /// The server's name in the host's configuration (the binary's name unless set).
    #[arg(long)]
    name: Option<String>,
    /// A remote server: its Streamable HTTP endpoint.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// A remote server's bearer token is read by the host from this environment variable (the
    /// token itself is never written).
    #[arg(long, value_name = "VAR", requires = "url")]
    bearer_env: Option<String>,
    /// An environment variable the local server is started with, `NAME=VALUE` (repeatable).
    #[arg(long = "env", value_name = "NAME=VALUE", conflicts_with = "url")]
    env: Vec<String>,
    /// Where the entry goes: the user's configuration, the project's (the working directory),
    /// or Claude Code's `local` (this project, for this user only).
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    /// Takes the server out instead.
    #[arg(long)]
    remove: bool,
    /// Shows the change without writing it.
    #[arg(long)]
    dry_run: bool,
    /// The binary of the current crate, when it has several.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["url", "command"])]
    bin: Option<String>,
    /// The host's configuration file, instead of the host's usual place.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// A local server's command: `-- COMMAND ARGS…` (the current crate's binary with
    /// `--stdio` unless given).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

impl Install {
    pub(crate) fn run(self) -> Result<(), String> {
        let (entry, default_name) = match self.remove {
            true => (None, None),
            false => {
                let (entry, name) = self.entry()?;
                (Some(entry), name)
            }
        };
        let name = match (&self.name, default_name) {
            (Some(name), _) => name.clone(),
            (None, Some(name)) => name,
            (None, None) => return Err("name the server with `--name NAME`".into()),
        };
        let path = match &self.config {
            Some(path) => path.clone(),
            None => self.host.config_path(self.scope)?,
        };
        let old = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("could not read {}: {e}", path.display())),
        };
        let edited = match self.host {
            Host::Codex => codex::edit(&old, &name, entry.as_ref())?,
            Host::Goose => goose::edit(&old, &name, entry.as_ref())?,
            _ => json::edit(self.host, self.scope, &old, &name, entry.as_ref())?,
        };
        let new = match edited {
            Edited::Unchanged => {
                let done = if self.remove {
                    "not in"
                } else {
                    "already up to date in"
                };
                say!("`{name}` is {done} {}", path.display());
                return Ok(());
            }
            Edited::Changed(new) => new,
        };
        if self.dry_run {
            say!("would write {}:\n{new}", path.display());
            return Ok(());
        }
        write(&path, &new)?;
        match self.remove {
            true => say!("`{name}` removed from {}", path.display()),
            false => say!(
                "`{name}` written to {} ({})",
                path.display(),
                self.host.label()
            ),
        }
        Ok(())
    }

    /// The entry to write, and the name it goes under unless `--name` says otherwise.
    fn entry(&self) -> Result<(Entry, Option<String>), String> {
        if let Some(url) = &self.url {
            return Ok((
                Entry::Remote {
                    url: url.clone(),
                    bearer_env: self.bearer_env.clone(),
                },
                None,
            ));
        }
        let mut env = Vec::new();
        for pair in &self.env {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("`--env {pair}`: write it as NAME=VALUE"))?;
            env.push((name.to_owned(), value.to_owned()));
        }
        let (command, args, name) = match self.command.split_first() {
            Some((command, args)) => {
                let name = Path::new(command)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned());
                (command.clone(), args.to_vec(), name)
            }
            None => {
                let binary =
                    crate::target::crate_binary(self.bin.as_deref(), crate::target::NAME_ONE)?;
                let binary = binary.canonicalize().unwrap_or(binary);
                let name = binary.file_stem().map(|s| s.to_string_lossy().into_owned());
                (
                    binary.to_string_lossy().into_owned(),
                    vec!["--stdio".to_owned()],
                    name,
                )
            }
        };
        Ok((Entry::Local { command, args, env }, name))
    }
}

/// Writes `text` to `path` whole or not at all (a file beside it, then renamed over it).
fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    }
    let mut beside = path.as_os_str().to_owned();
    beside.push(".mcp-runtime-new");
    let beside = PathBuf::from(beside);
    std::fs::write(&beside, text)
        .map_err(|e| format!("could not write {}: {e}", beside.display()))?;
    std::fs::rename(&beside, path).map_err(|e| format!("could not write {}: {e}", path.display()))
}
