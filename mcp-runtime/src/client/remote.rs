//! [`Remote`]: how to reach a server in another process, over Streamable HTTP or stdio, and
//! with what (credentials, limits, the protocol revision).

use super::api::Client;
use super::error::ClientError;
use super::settings::{Revision, Settings};
use std::sync::Arc;
use std::time::Duration;

/// A remote server to connect a [`Client`] to: a URL ([`Client::http`]) or a command
/// ([`Client::stdio`]), then [`connect`](Remote::connect).
///
/// ```no_run
/// # async fn demo() -> Result<(), mcp_runtime::client::ClientError> {
/// use mcp_runtime::client::Client;
/// let client = Client::http("https://example.com/mcp")
///     .bearer(std::env::var("EXAMPLE_TOKEN").unwrap_or_default())
///     .connect()?;
/// let tools = client.list_tools().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Remote {
    target: Target,
    settings: Settings,
}

#[derive(Debug, Clone)]
enum Target {
    Http(String),
    Stdio { command: String, args: Vec<String> },
}

impl Remote {
    fn new(target: Target) -> Remote {
        Remote {
            target,
            settings: Settings {
                headers: Vec::new(),
                env: Vec::new(),
                timeout: Duration::from_secs(60),
                max_message_bytes: 16 * 1024 * 1024,
                revision: Revision::Auto,
                credentials: None,
            },
        }
    }

    /// Authenticates each HTTP request with these credentials (an OAuth client of its own, the
    /// caller's token exchanged, or passed on as an explicit opt-in).
    pub fn credentials(mut self, credentials: super::credentials::Credentials) -> Remote {
        self.settings.credentials = Some(credentials);
        self
    }

    /// Sends `Authorization: Bearer {token}` with every HTTP request.
    pub fn bearer(self, token: impl AsRef<str>) -> Remote {
        let value = format!("Bearer {}", token.as_ref());
        self.header("authorization", value)
    }

    /// Sends this header with every HTTP request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Remote {
        self.settings.headers.push((name.into(), value.into()));
        self
    }

    /// Sets this environment variable for the child process (stdio).
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Remote {
        self.settings.env.push((name.into(), value.into()));
        self
    }

    /// Gives up on a request not answered within `limit` (60 s unless set).
    pub fn timeout(mut self, limit: Duration) -> Remote {
        self.settings.timeout = limit;
        self
    }

    /// Refuses any message larger than `bytes` (16 MiB unless set).
    pub fn max_message_bytes(mut self, bytes: usize) -> Remote {
        self.settings.max_message_bytes = bytes;
        self
    }

    /// Speaks this revision (found by asking unless set).
    pub fn revision(mut self, revision: Revision) -> Remote {
        self.settings.revision = revision;
        self
    }

    /// The client. An HTTP one connects on its first request (and keeps its connections);
    /// a stdio one starts its process now, so this is called inside a tokio runtime.
    pub fn connect(self) -> Result<Client, ClientError> {
        let timeout = Some(self.settings.timeout);
        match &self.target {
            Target::Http(url) => {
                let link = super::http::HttpLink::new(url, &self.settings)?;
                Ok(Client::over(Arc::new(link), timeout))
            }
            Target::Stdio { command, args } => {
                let link = super::stdio::StdioLink::spawn(command, args, &self.settings)?;
                Ok(Client::over(Arc::new(link), timeout))
            }
        }
    }
}

impl Client {
    /// A server at a Streamable HTTP endpoint.
    pub fn http(url: impl Into<String>) -> Remote {
        Remote::new(Target::Http(url.into()))
    }

    /// A server run as a child process, spoken to over its stdin and stdout (its stderr is
    /// passed through). The process ends when the client is dropped.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Remote
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Remote::new(Target::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
        })
    }
}
