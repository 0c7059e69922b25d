//! The gateway's `mcpServers` file: each entry a backend to mount.

use mcp_runtime::client::{Client, Credentials, OAuthClient};
use mcp_runtime::proxy::{Mount, Uris};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    mcp_servers: BTreeMap<String, Entry>,
    /// The entry whose `serverInfo` and instructions the gateway shows as its own (the
    /// gateway's own unless set).
    server_info_from: Option<String>,
}

/// What the file says.
pub struct Config {
    pub entries: Vec<Entry>,
    pub server_info_from: Option<String>,
}

/// One backend as the file describes it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Entry {
    #[serde(skip)]
    name: String,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    prefix: Option<String>,
    uris: Option<String>,
    /// Seconds a request to it may take (60 unless set).
    timeout: Option<u64>,
    /// Some hosts write `"type": "stdio" | "http"`: read and checked against the entry.
    #[serde(rename = "type")]
    kind: Option<String>,
    /// HTTP: a token of the gateway's own, from an OAuth client (client credentials).
    oauth: Option<OAuth>,
    /// HTTP: each caller's token exchanged for one for this server (RFC 8693).
    token_exchange: Option<OAuth>,
    /// HTTP: the caller's own token passed on (an explicit opt-in, for servers that share the
    /// gateway's audience).
    #[serde(default)]
    forward_caller_token: bool,
}

/// An OAuth client of the gateway's at an authorization server.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OAuth {
    token_url: String,
    client_id: String,
    client_secret: String,
    scope: Option<String>,
    resource: Option<String>,
    audience: Option<String>,
}

impl OAuth {
    fn client(&self, entry: &str) -> Result<OAuthClient, String> {
        let mut client = OAuthClient::new(
            expand(&self.token_url, entry)?,
            expand(&self.client_id, entry)?,
            expand(&self.client_secret, entry)?,
        );
        if let Some(scope) = &self.scope {
            client = client.scope(scope.clone());
        }
        if let Some(resource) = &self.resource {
            client = client.resource(resource.clone());
        }
        if let Some(audience) = &self.audience {
            client = client.audience(audience.clone());
        }
        Ok(client)
    }
}

/// The value of `--config`.
pub fn path_from(args: &[String]) -> Result<String, String> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--config" {
            return args
                .next()
                .cloned()
                .ok_or_else(|| "--config needs a file".to_owned());
        }
        if let Some(path) = arg.strip_prefix("--config=") {
            return Ok(path.to_owned());
        }
    }
    Err("the gateway needs --config FILE, an mcpServers JSON file".to_owned())
}

/// The file at `path`.
pub fn read(path: &str) -> Result<Config, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let file: File = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    if let Some(from) = &file.server_info_from
        && !file.mcp_servers.contains_key(from)
    {
        return Err(format!(
            "{path}: `serverInfoFrom` names `{from}`, which is no entry"
        ));
    }
    let entries = file
        .mcp_servers
        .into_iter()
        .map(|(name, mut entry)| {
            entry.name = name;
            entry
        })
        .collect();
    Ok(Config {
        entries,
        server_info_from: file.server_info_from,
    })
}

/// `${VAR}` replaced by the variable's value (an unset one is an error naming it).
fn expand(text: &str, entry: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            return Err(format!("`{entry}`: an unclosed `${{` in `{text}`"));
        };
        let var = &rest[start + 2..start + end];
        let value = std::env::var(var)
            .map_err(|_| format!("`{entry}` needs the environment variable {var}"))?;
        out.push_str(&value);
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl Entry {
    /// The entry's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The prefix and the mount.
    pub fn mount(self) -> Result<(String, Mount), String> {
        let (prefix, client, uris) = self.connect()?;
        Ok((prefix, Mount::from(client).uris(uris).name(self.name)))
    }

    /// The prefix, a client of the server, and what to do with its URIs.
    pub fn connect(&self) -> Result<(String, Client, Uris), String> {
        let name = &self.name;
        let mut remote = match (&self.command, &self.url, self.kind.as_deref()) {
            (Some(command), None, None | Some("stdio")) => {
                let mut remote = Client::stdio(command.clone(), self.args.clone());
                for (k, v) in &self.env {
                    remote = remote.env(k.clone(), expand(v, name)?);
                }
                remote
            }
            (None, Some(url), None | Some("http" | "streamable-http" | "streamableHttp")) => {
                let mut remote = Client::http(url.clone());
                for (k, v) in &self.headers {
                    remote = remote.header(k.clone(), expand(v, name)?);
                }
                let credentials = match (
                    &self.oauth,
                    &self.token_exchange,
                    self.forward_caller_token,
                ) {
                    (None, None, false) => None,
                    (Some(oauth), None, false) => {
                        Some(Credentials::ClientCredentials(oauth.client(name)?))
                    }
                    (None, Some(exchange), false) => {
                        Some(Credentials::TokenExchange(exchange.client(name)?))
                    }
                    (None, None, true) => Some(Credentials::ForwardCallerToken),
                    _ => {
                        return Err(format!(
                            "`{name}`: choose one of `oauth`, `tokenExchange` and `forwardCallerToken`"
                        ));
                    }
                };
                if let Some(credentials) = credentials {
                    remote = remote.credentials(credentials);
                }
                remote
            }
            _ => {
                return Err(format!(
                    "`{name}` needs either `command` (stdio) or `url` (HTTP), and a `type` that matches"
                ));
            }
        };
        if let Some(seconds) = self.timeout {
            remote = remote.timeout(std::time::Duration::from_secs(seconds));
        }
        let client = remote.connect().map_err(|e| format!("`{name}`: {e}"))?;
        let uris = match self.uris.as_deref() {
            None | Some("keep") => Uris::Keep,
            Some("prefix") => Uris::Prefix,
            Some(other) => {
                return Err(format!(
                    "`{name}`: `uris` is \"keep\" or \"prefix\", not \"{other}\""
                ));
            }
        };
        let prefix = self.prefix.clone().unwrap_or_else(|| name.clone());
        Ok((prefix, client, uris))
    }
}
