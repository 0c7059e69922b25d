//! What the Streamable HTTP transport can be told: the endpoint path, the hosts and origins it
//! accepts, the body limit, the keep-alive interval of SSE streams, and how callers are
//! authenticated.

use crate::auth::ResourceServer;
use std::time::Duration;

/// Options of the Streamable HTTP transport.
///
/// ```
/// use mcp_runtime::HttpOptions;
/// use std::time::Duration;
/// let options = HttpOptions::default()
///     .path("/mcp")
///     .allow_host("mcp.example.com")
///     .allow_origin("https://app.example.com")
///     .body_limit(1 << 20)
///     .keepalive(Duration::from_secs(30));
/// ```
#[derive(Clone)]
#[must_use]
pub struct HttpOptions {
    pub(super) path: String,
    pub(super) hosts: Vec<String>,
    pub(super) origins: Vec<String>,
    pub(super) body_limit: usize,
    pub(super) keepalive: Duration,
    pub(super) auth: Option<ResourceServer>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            hosts: Vec::new(),
            origins: Vec::new(),
            body_limit: 4 * 1024 * 1024,
            keepalive: Duration::from_secs(15),
            auth: None,
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("path", &self.path)
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("body_limit", &self.body_limit)
            .field("keepalive", &self.keepalive)
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

impl HttpOptions {
    /// The endpoint path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }
    /// Also accept this `Host` name (any port). Loopback names are always accepted.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into().to_ascii_lowercase());
        self
    }
    /// Also accept this `Origin` (`scheme://host[:port]`). Loopback origins are always accepted.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.origins
            .push(origin.into().trim_end_matches('/').to_ascii_lowercase());
        self
    }
    /// Largest accepted body in bytes (default 4 MiB); larger bodies get 413.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }
    /// Interval of keep-alive comments on SSE streams that wait (default 15 s), so that proxies
    /// do not close an idle `subscriptions/listen` stream.
    pub fn keepalive(mut self, every: Duration) -> Self {
        self.keepalive = every;
        self
    }
    /// Makes the endpoint an OAuth 2.1 resource server: every request is authenticated by its
    /// bearer token before it is read, and the protected resource metadata is served at the
    /// well-known URIs. See [`auth`](crate::auth).
    pub fn auth(mut self, resource_server: ResourceServer) -> Self {
        self.auth = Some(resource_server);
        self
    }
    /// The endpoint path.
    pub fn endpoint_path(&self) -> &str {
        &self.path
    }
}
