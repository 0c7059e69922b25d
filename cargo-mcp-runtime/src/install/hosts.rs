//! The hosts `install` writes for: where each keeps its configuration, under which key its
//! servers are, and the shape of one entry (each host's documented format).

use super::entry::Entry;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// An entry's fields, in order.
pub(crate) type Fields = Vec<(String, Value)>;

/// A host of MCP servers.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub(crate) enum Host {
    /// Claude Desktop (`claude_desktop_config.json`; local servers only).
    ClaudeDesktop,
    /// Claude Code (`~/.claude.json`, or the project's `.mcp.json`).
    ClaudeCode,
    /// Cursor (`~/.cursor/mcp.json`, or the project's `.cursor/mcp.json`).
    Cursor,
    /// VS Code (the user's `mcp.json`, or the project's `.vscode/mcp.json`).
    Vscode,
    /// Gemini CLI (`~/.gemini/settings.json`, or the project's `.gemini/settings.json`).
    Gemini,
    /// Codex (`~/.codex/config.toml`, or the project's `.codex/config.toml`).
    Codex,
    /// Goose (`~/.config/goose/config.yaml`; user configuration only).
    Goose,
    /// A plain `mcp.json` in the working directory (`mcpServers`).
    McpJson,
}

/// Whose configuration an entry goes into.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub(crate) enum Scope {
    /// The user's, for every project.
    User,
    /// The project's (the working directory), shared with whoever checks it out.
    Project,
    /// Claude Code only: this project, for this user only (`~/.claude.json`).
    Local,
}

fn home() -> Result<PathBuf, String> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from)
        .ok_or_else(|| {
            "no home folder (HOME is not set): name the file with `--config PATH`".into()
        })
}

/// The folder of applications' settings: `%APPDATA%` on Windows, `~/Library/Application
/// Support` on macOS, `$XDG_CONFIG_HOME` (or `~/.config`) elsewhere.
fn app_config() -> Result<PathBuf, String> {
    if cfg!(windows) {
        return std::env::var_os("APPDATA")
            .map(PathBuf::from)
            .ok_or_else(|| "APPDATA is not set: name the file with `--config PATH`".into());
    }
    if cfg!(target_os = "macos") {
        return Ok(home()?.join("Library/Application Support"));
    }
    match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => Ok(home()?.join(".config")),
    }
}

fn cwd() -> Result<PathBuf, String> {
    std::env::current_dir().map_err(|e| format!("no working directory: {e}"))
}

impl Host {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Host::ClaudeDesktop => "Claude Desktop: restart it to load the server",
            Host::ClaudeCode => "Claude Code: `claude mcp list` shows it",
            Host::Cursor => "Cursor: Settings → MCP shows it",
            Host::Vscode => "VS Code: `MCP: List Servers` shows it",
            Host::Gemini => "Gemini CLI: `gemini mcp list` shows it",
            Host::Codex => "Codex: `codex mcp list` shows it",
            Host::Goose => "Goose: its extensions list shows it",
            Host::McpJson => "mcp.json",
        }
    }

    /// Where the host keeps the configuration of `scope`.
    pub(crate) fn config_path(self, scope: Scope) -> Result<PathBuf, String> {
        let only = |scopes: &str| {
            Err(format!(
                "{self:?} keeps {scopes} configuration only: leave out `--scope`, or name the file with `--config PATH`"
            ))
        };
        match (self, scope) {
            (_, Scope::Local) if self != Host::ClaudeCode => {
                Err("`--scope local` is Claude Code's: use `user` or `project`".into())
            }
            (Host::ClaudeDesktop, Scope::User) => Ok(app_config()?
                .join("Claude")
                .join("claude_desktop_config.json")),
            (Host::ClaudeDesktop, _) => only("a user"),
            (Host::ClaudeCode, Scope::Project) => Ok(cwd()?.join(".mcp.json")),
            (Host::ClaudeCode, _) => Ok(home()?.join(".claude.json")),
            (Host::Cursor, Scope::User) => Ok(home()?.join(".cursor").join("mcp.json")),
            (Host::Cursor, _) => Ok(cwd()?.join(".cursor").join("mcp.json")),
            (Host::Vscode, Scope::User) => {
                Ok(app_config()?.join("Code").join("User").join("mcp.json"))
            }
            (Host::Vscode, _) => Ok(cwd()?.join(".vscode").join("mcp.json")),
            (Host::Gemini, Scope::User) => Ok(home()?.join(".gemini").join("settings.json")),
            (Host::Gemini, _) => Ok(cwd()?.join(".gemini").join("settings.json")),
            (Host::Codex, Scope::User) => match std::env::var_os("CODEX_HOME") {
                Some(dir) => Ok(PathBuf::from(dir).join("config.toml")),
                None => Ok(home()?.join(".codex").join("config.toml")),
            },
            (Host::Codex, _) => Ok(cwd()?.join(".codex").join("config.toml")),
            (Host::Goose, Scope::User) if cfg!(windows) => Ok(app_config()?
                .join("Block")
                .join("goose")
                .join("config")
                .join("config.yaml")),
            (Host::Goose, Scope::User) => {
                let base = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
                    Some(dir) => PathBuf::from(dir),
                    None => home()?.join(".config"),
                };
                Ok(base.join("goose").join("config.yaml"))
            }
            (Host::Goose, _) => only("a user"),
            (Host::McpJson, Scope::Project) => Ok(cwd()?.join("mcp.json")),
            (Host::McpJson, _) => only("a project's"),
        }
    }

    /// The keys, from the file's root, of the object that holds the servers.
    pub(crate) fn servers_key(self, scope: Scope) -> Result<Vec<String>, String> {
        Ok(match (self, scope) {
            (Host::Vscode, _) => vec!["servers".into()],
            (Host::ClaudeCode, Scope::Local) => {
                let dir = cwd()?;
                vec![
                    "projects".into(),
                    dir.to_string_lossy().into_owned(),
                    "mcpServers".into(),
                ]
            }
            _ => vec!["mcpServers".into()],
        })
    }

    /// One server's entry in this host's JSON shape (its fields in the order the hosts' docs
    /// write them), and the VS Code input it refers to.
    pub(crate) fn json_entry(
        self,
        name: &str,
        entry: &Entry,
    ) -> Result<(Fields, Option<Value>), String> {
        let typed = matches!(self, Host::ClaudeCode | Host::Vscode);
        match entry {
            Entry::Local { command, args, env } => {
                let mut out = Vec::new();
                if typed {
                    out.push(("type".into(), json!("stdio")));
                }
                out.push(("command".into(), json!(command)));
                out.push(("args".into(), json!(args)));
                if !env.is_empty() {
                    let env: Map<String, Value> =
                        env.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                    out.push(("env".into(), Value::Object(env)));
                }
                Ok((out, None))
            }
            Entry::Remote { .. } if self == Host::ClaudeDesktop => Err(
                "Claude Desktop's file takes local servers only: add a remote server in Claude Desktop under Settings → Connectors".into(),
            ),
            Entry::Remote { url, bearer_env } => {
                // Each host's own way to read a secret at start: never the token itself.
                let (reference, input) = match (self, bearer_env) {
                    (_, None) => (None, None),
                    (Host::Vscode, Some(var)) => {
                        let id = format!("{name}-token");
                        let input = json!({
                            "type": "promptString",
                            "id": id,
                            "description": format!("Bearer token for {name} (the value of {var})"),
                            "password": true,
                        });
                        (Some(format!("${{input:{id}}}")), Some(input))
                    }
                    (Host::Cursor, Some(var)) => (Some(format!("${{env:{var}}}")), None),
                    (_, Some(var)) => (Some(format!("${{{var}}}")), None),
                };
                let mut out = Vec::new();
                match self {
                    Host::ClaudeCode | Host::Vscode => {
                        out.push(("type".into(), json!("http")));
                        out.push(("url".into(), json!(url)));
                    }
                    // Gemini CLI's key for Streamable HTTP.
                    Host::Gemini => out.push(("httpUrl".into(), json!(url))),
                    _ => out.push(("url".into(), json!(url))),
                }
                if let Some(reference) = reference {
                    let header = json!({"Authorization": format!("Bearer {reference}")});
                    out.push(("headers".into(), header));
                }
                Ok((out, input))
            }
        }
    }
}
