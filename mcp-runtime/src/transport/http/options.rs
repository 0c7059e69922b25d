//! What the Streamable HTTP transport can be told: the endpoint path, the hosts and origins it
//! accepts, the body limit, the keep-alive interval of SSE streams, how callers are
//! authenticated, (feature `lab`) where the lab page is served and to whom, and (feature
//! `server-card`) the Server Card served beside the endpoint.

use crate::auth::ResourceServer;
use std::time::Duration;

/// A readiness check of the health endpoint: resolves to whether this instance can serve.
pub(super) type ReadyCheck =
    std::sync::Arc<dyn Fn() -> crate::registry::BoxFuture<'static, bool> + Send + Sync>;

/// Where the lab page is served and to whom.
#[cfg(feature = "lab")]
#[derive(Debug, Clone)]
pub(crate) struct LabOptions {
    pub(super) path: String,
    pub(super) any_client: bool,
}

#[cfg(feature = "lab")]
impl Default for LabOptions {
    fn default() -> Self {
        LabOptions {
            path: "/lab".into(),
            any_client: false,
        }
    }
}

/// What a Server Card's URL adds to the endpoint's: the location SEP-2127 reserves.
#[cfg(feature = "server-card")]
pub(super) const SERVER_CARD_SUFFIX: &str = "/server-card";

/// A server's Server Card (SEP-2127, a draft), checked: made by
/// [`Server::server_card`](crate::Server::server_card) from what the server says of itself and
/// its [`ServerJson`](crate::ServerJson) entry, by the code and under the rules of
/// `server.json`; served by [`HttpOptions::server_card`] at `<endpoint>/server-card`, its
/// remotes listing the protocol versions the endpoint serves. Feature `server-card`.
///
/// ```
/// use mcp_runtime::{Server, ServerJson};
/// let server = Server::builder().version("0.3.0").instructions("Weather.").build().unwrap();
/// let entry = ServerJson::new("io.github.owner/weather").remote("https://weather.example.com/mcp");
/// let card = server.server_card(&entry).unwrap();
/// assert_eq!(card.url().as_deref(), Some("https://weather.example.com/mcp/server-card"));
/// ```
#[cfg(feature = "server-card")]
#[derive(Debug, Clone, PartialEq)]
pub struct ServerCard {
    /// `$schema` and every field but `remotes`, checked.
    pub(super) fields: serde_json::Map<String, serde_json::Value>,
    /// The remotes' URLs, checked.
    pub(super) remotes: Vec<String>,
    /// The server info and the instructions the card was made from.
    pub(super) made_from: (crate::protocol::Implementation, Option<String>),
}

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
    pub(super) body_timeout: Duration,
    pub(super) head_timeout: Option<Duration>,
    pub(super) max_connections: Option<usize>,
    pub(super) keepalive: Duration,
    pub(super) auth: Option<ResourceServer>,
    /// The principal of requests from loopback clients, on an endpoint without `auth`.
    pub(super) local_caller: Option<std::sync::Arc<crate::context::Caller>>,
    pub(super) rate: Option<(u32, Duration)>,
    pub(super) proxies: super::proxies::Proxies,
    pub(super) ipv6_prefix: u8,
    pub(super) connections_per_address: Option<usize>,
    pub(super) min_body_rate: u32,
    pub(super) shutdown_grace: Duration,
    #[cfg(feature = "lab")]
    pub(super) lab: Option<LabOptions>,
    pub(super) health: Option<String>,
    pub(super) ready_checks: Vec<ReadyCheck>,
    #[cfg(feature = "server-card")]
    pub(super) server_card: Option<ServerCard>,
    /// Whether a Server Card with a public URL is also listed in an AI Catalog.
    #[cfg(feature = "server-card")]
    pub(super) ai_catalog: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            hosts: Vec::new(),
            origins: Vec::new(),
            body_limit: 4 * 1024 * 1024,
            body_timeout: Duration::from_secs(10),
            head_timeout: Some(Duration::from_secs(30)),
            max_connections: None,
            keepalive: Duration::from_secs(15),
            auth: None,
            local_caller: None,
            rate: None,
            proxies: super::proxies::Proxies::default(),
            ipv6_prefix: 64,
            connections_per_address: None,
            min_body_rate: 16 * 1024,
            shutdown_grace: Duration::from_secs(10),
            #[cfg(feature = "lab")]
            lab: Some(LabOptions::default()),
            health: None,
            ready_checks: Vec::new(),
            #[cfg(feature = "server-card")]
            server_card: None,
            #[cfg(feature = "server-card")]
            ai_catalog: true,
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("HttpOptions");
        f.field("path", &self.path)
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("body_limit", &self.body_limit)
            .field("body_timeout", &self.body_timeout)
            .field("head_timeout", &self.head_timeout)
            .field("max_connections", &self.max_connections)
            .field("keepalive", &self.keepalive)
            .field("auth", &self.auth)
            .field("local_caller", &self.local_caller)
            .field("rate", &self.rate)
            .field("proxies", &self.proxies)
            .field("ipv6_prefix", &self.ipv6_prefix)
            .field("connections_per_address", &self.connections_per_address)
            .field("min_body_rate", &self.min_body_rate)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("health", &self.health)
            .field("ready_checks", &self.ready_checks.len());
        #[cfg(feature = "lab")]
        f.field("lab", &self.lab);
        #[cfg(feature = "server-card")]
        f.field("server_card", &self.server_card)
            .field("ai_catalog", &self.ai_catalog);
        f.finish_non_exhaustive()
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
    ///
    /// An accepted origin may also call the endpoint from a browser page (CORS): its `OPTIONS`
    /// preflight is answered with the endpoint's methods and the MCP request headers, and every
    /// answer names it (`Access-Control-Allow-Origin`) and exposes `Mcp-Session-Id`,
    /// `WWW-Authenticate`, `MCP-Protocol-Version` and `Retry-After`. Credentials mode is not
    /// allowed: send the token in `Authorization`.
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
    /// How long the body of a request may take before it must keep up a minimum rate (default
    /// 10 s): a body still arriving after this time gets 408 unless it has come at
    /// [`min_body_rate`](Self::min_body_rate) since the request began (each byte buys its share
    /// of a second), so that a client sending a few bytes at a time cannot hold a request open,
    /// while a large body on a slow link still arrives.
    ///
    /// ```
    /// use std::time::Duration;
    /// let options = mcp_runtime::HttpOptions::default().body_timeout(Duration::from_secs(5));
    /// # let _ = options;
    /// ```
    pub fn body_timeout(mut self, within: Duration) -> Self {
        self.body_timeout = within;
        self
    }
    /// The slowest a request body may arrive once [`body_timeout`](Self::body_timeout) has
    /// passed, in bytes per second averaged since the request began (default 16 KiB/s: a 4 MiB
    /// body may take 10 s + 256 s). A body making no progress at all can also be closed to make
    /// room when the server is at its connection cap.
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().min_body_rate(64 * 1024);
    /// # let _ = options;
    /// ```
    pub fn min_body_rate(mut self, bytes_per_second: u32) -> Self {
        self.min_body_rate = bytes_per_second.max(1);
        self
    }
    /// Longest time a connection may stay idle (default 30 s): a connection with no request in
    /// flight (a new one, or one whose last response was written) that does not bring a whole
    /// request head within it is closed, so that clients that connect and send nothing, or a
    /// byte at a time, cannot hold connections, and an idle keep-alive connection is let go. A
    /// request being answered is not idle; a streamed response (a listen stream, an SSE call)
    /// whose client stops reading is closed once no write has gone through for the longer of
    /// this and four keep-alive intervals. `None` turns both off.
    ///
    /// A reverse proxy in front usually has its own (nginx: `client_header_timeout`). Cheap
    /// enough to leave on: a request costs a few atomic stores, and one task walks the open
    /// connections every quarter of the time (at most every second; BENCHMARKS.md,
    /// "Connection hygiene"). Applies to [`Server::serve`](crate::Server::serve) and the other
    /// ways of serving that accept connections; a router from `into_router` is served by
    /// whatever serves it.
    ///
    /// ```
    /// use std::time::Duration;
    /// let options = mcp_runtime::HttpOptions::default().head_timeout(Some(Duration::from_secs(10)));
    /// # let _ = options;
    /// ```
    pub fn head_timeout(mut self, within: Option<Duration>) -> Self {
        self.head_timeout = within;
        self
    }
    /// Most connections open at once (default: the process's soft file-descriptor limit less
    /// 64, read at start; at most 100,000). At the cap, a new connection makes room by closing
    /// the connections idle the longest (those waiting for a request head); when every open
    /// connection is answering a request, it gets `503` with `Retry-After: 1` at once. Either
    /// way a new client is answered instead of left hanging while the process is out of file
    /// descriptors. (Raise the limit itself with `ulimit -n`, or `LimitNOFILE=` in systemd.)
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().max_connections(10_000);
    /// # let _ = options;
    /// ```
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = Some(n.max(1));
        self
    }
    /// Most connections open at once from one client address (an IPv6 client: its network, see
    /// [`ipv6_prefix`](Self::ipv6_prefix)); default: an eighth of
    /// [`max_connections`](Self::max_connections), at least 16. A client at its share makes
    /// room by closing its own longest-idle connection (or one whose request body has stopped
    /// coming), else its new connection gets `503`: one client cannot take every connection
    /// from the others. Trusted proxies ([`trusted_proxies`](Self::trusted_proxies)) carry
    /// everyone's connections and have no share.
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().max_connections_per_address(64);
    /// # let _ = options;
    /// ```
    pub fn max_connections_per_address(mut self, n: usize) -> Self {
        self.connections_per_address = Some(n.max(1));
        self
    }
    /// What the accept loop enforces.
    pub(super) fn hygiene(&self) -> super::hygiene::Hygiene {
        let max_connections = self
            .max_connections
            .unwrap_or_else(super::hygiene::default_max_connections);
        super::hygiene::Hygiene {
            idle: self.head_timeout,
            stall: self
                .head_timeout
                .unwrap_or_default()
                .max(self.keepalive.saturating_mul(4)),
            max_connections,
            per_address: self
                .connections_per_address
                .unwrap_or((max_connections / 8).max(16)),
            exempt: self.proxies.networks.clone(),
            ipv6_prefix: self.ipv6_prefix,
        }
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
    /// The principal of every request a loopback client sends to an endpoint without
    /// [`auth`](Self::auth): what a desktop host on this machine may do, by its scopes (a tool
    /// with `scopes = [...]` is otherwise hidden from, and refused to, an anonymous caller).
    /// Only a request that came straight from this machine gets it: its connection from a
    /// loopback address, no header a proxy or a tunnel adds (`X-Forwarded-For`, `Forwarded`,
    /// `Via`, `X-Real-IP`, …), a loopback `Host`, and no `Origin` but its own or one named by
    /// [`allow_origin`](Self::allow_origin). Every other request is anonymous: behind a proxy or
    /// a tunnel on the same machine, whose connections come from loopback too, its clients are
    /// not the local caller. (A tunnel that adds no header and rewrites `Host` to a loopback name
    /// cannot be told from a local program: do not serve a local caller through one.) Browser
    /// pages get CORS only from origins named by `allow_origin` on such an endpoint, so that a
    /// page on another loopback port cannot call with the local caller's rights. An endpoint
    /// with `auth` refuses this setting: its callers are the tokens'. Lambda never gives it.
    ///
    /// ```
    /// use mcp_runtime::{Caller, HttpOptions};
    /// let options = HttpOptions::default()
    ///     .local_caller(Caller::new("desktop-user").with_scopes(["tickets:write"]));
    /// ```
    pub fn local_caller(mut self, caller: crate::context::Caller) -> Self {
        self.local_caller = Some(std::sync::Arc::new(caller));
        self
    }
    /// Limits each caller to `requests` per `per` (token buckets: bursts of up to `requests`,
    /// refilled evenly). Callers are told apart by their token's issuer and subject; anonymous
    /// requests by the client's address. A request over the limit gets 429 with `Retry-After`
    /// (seconds). Off by default. (To budget the *tool calls* a model makes, see
    /// [`layers::RateLimit`](crate::layers::RateLimit).) A router from
    /// [`Server::into_router`](crate::Server::into_router) knows client addresses when served
    /// with `into_make_service_with_connect_info::<SocketAddr>()`; without them, anonymous
    /// callers share one bucket.
    ///
    /// ```
    /// use mcp_runtime::HttpOptions;
    /// use std::time::Duration;
    /// let options = HttpOptions::default().rate_limit(600, Duration::from_secs(60));
    /// ```
    pub fn rate_limit(mut self, requests: u32, per: Duration) -> Self {
        self.rate = Some((requests.max(1), per));
        self
    }
    /// Trusts the proxies on this machine (all of `127.0.0.0/8` and `::1`) to say who their clients are in
    /// `X-Forwarded-For` (off by default: anyone can send one), unless
    /// [`trusted_proxies`](Self::trusted_proxies) names others; `false` trusts none. Turn it on
    /// behind a reverse proxy on the same machine that sets the header (the repository's
    /// `deploy/nginx.conf` does): without it, every client of the proxy counts as the proxy's
    /// one address, so the per-caller shares of [`Limits`](crate::Limits) and the rate limit
    /// make one client of them all. Every local program counts as a proxy then: where other
    /// users of the machine could reach the server, name the proxy's own address instead
    /// ([`trusted_proxies`](Self::trusted_proxies), `["127.0.0.1"]`).
    ///
    /// Behind a reverse proxy, the `Host` and `Origin` checks see what the proxy forwards: have
    /// it pass the public `Host` (nginx: `proxy_set_header Host $host;`) and
    /// [`allow_host`](Self::allow_host) that name, and [`allow_origin`](Self::allow_origin) the
    /// web origins of browser clients. `X-Forwarded-Host` is never consulted.
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().trust_forwarded_for(true);
    /// # let _ = options;
    /// ```
    pub fn trust_forwarded_for(mut self, on: bool) -> Self {
        match on {
            true if self.proxies.networks.is_empty() => {
                self.proxies.networks = crate::net::Network::LOOPBACK.to_vec();
            }
            true => {}
            false => self.proxies.networks.clear(),
        }
        self
    }
    /// The proxies in front of the server, by address or network (`10.0.0.0/8`, `127.0.0.1`,
    /// `fd00::/8`): a request whose connection comes from one of them has its client's address
    /// read from the forwarding header ([`forwarded_header`](Self::forwarded_header)), right to
    /// left, each hop a trusted proxy added, up to the first address that is not a trusted
    /// proxy: that is the client. From any other peer the header is ignored. Name every proxy
    /// hop you run (a load balancer and the nginx behind it: both), and only those: a proxy
    /// trusted by mistake lets its clients choose their address. Something that is no address
    /// or network is refused when serving ([`check`](Self::check)).
    ///
    /// Behind a cloud load balancer, its addresses (or the VPC's network); on Kubernetes, the
    /// ingress controller's pods (the cluster's pod network); behind a tunnel on the same
    /// machine (cloudflared, ngrok), `127.0.0.1`.
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().trusted_proxies(["10.0.0.0/8", "127.0.0.1"]);
    /// assert!(options.check().is_ok());
    /// let typo = mcp_runtime::HttpOptions::default().trusted_proxies(["10.0.0/8"]);
    /// assert!(typo.check().unwrap_err().contains("10.0.0/8"));
    /// ```
    pub fn trusted_proxies<I, S>(mut self, proxies: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.proxies.networks.clear();
        for proxy in proxies {
            match crate::net::Network::parse(proxy.as_ref()) {
                Ok(network) => self.proxies.networks.push(network),
                Err(why) => self.proxies.invalid.push(why),
            }
        }
        self
    }
    /// The header the trusted proxies write their clients' addresses in (default
    /// `X-Forwarded-For`). Only that one is read: a proxy passes on whatever other header its
    /// client made up.
    ///
    /// ```
    /// use mcp_runtime::transport::http::ForwardedHeader;
    /// let options = mcp_runtime::HttpOptions::default()
    ///     .trusted_proxies(["127.0.0.1"])
    ///     .forwarded_header(ForwardedHeader::Forwarded);
    /// # let _ = options;
    /// ```
    pub fn forwarded_header(mut self, header: super::proxies::ForwardedHeader) -> Self {
        self.proxies.header = header;
        self
    }
    /// How many leading bits of an IPv6 client address tell clients apart (default 64, 1 to
    /// 128): the per-caller shares, the connection share and the rate limit count a whole /64
    /// as one client, since one subscriber is usually given that many addresses and could
    /// otherwise pass for 2^64 clients. IPv4 clients are counted by address.
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().ipv6_prefix(56);
    /// # let _ = options;
    /// ```
    pub fn ipv6_prefix(mut self, bits: u8) -> Self {
        self.ipv6_prefix = bits.clamp(1, 128);
        self
    }
    /// On shutdown (Ctrl-C or SIGTERM for [`Server::run`](crate::Server::run)), how long
    /// requests and tasks in flight may take to finish (default 10 s). The instance drains:
    /// the health endpoint answers 503 at once, no connection is accepted (a proxy sends new
    /// ones to another instance), every answer says `Connection: close`, open connections close
    /// once such an answer ends them or a second has passed (a proxy may have just taken an
    /// idle one for a request: it is served rather than cut), and listen streams (and
    /// 2025-11-25 session streams) end at once with their final result, so that their clients
    /// open them again elsewhere. When the grace is over, the connections still open close, and the
    /// tasks still running are marked failed in the task store (with several instances, every
    /// instance then answers that). Give an orchestrator's termination grace period more than
    /// this (Kubernetes: `terminationGracePeriodSeconds`, after its `preStop` delay).
    ///
    /// ```
    /// use std::time::Duration;
    /// let options = mcp_runtime::HttpOptions::default().shutdown_grace(Duration::from_secs(20));
    /// # let _ = options;
    /// ```
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }
    /// Serves a readiness endpoint at `path` (GET, no token needed): 200 `{"status":"ready"}`
    /// while the server serves and every [`ready_when`](Self::ready_when) check passes, 503
    /// otherwise (and once shutdown has begun), for load balancers and orchestrators. The
    /// endpoint's own path and `/.well-known/` are refused ([`check`](Self::check)).
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().health("/health");
    /// ```
    pub fn health(mut self, path: impl Into<String>) -> Self {
        let path: String = path.into();
        self.health = Some(match path.starts_with('/') {
            true => path,
            false => format!("/{path}"),
        });
        self
    }
    /// A readiness check the [`health`](Self::health) endpoint asks (within 3 s) on each GET:
    /// Redis answering, say.
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default()
    ///     .health("/health")
    ///     .ready_when(|| Box::pin(async { true }));
    /// ```
    pub fn ready_when<F>(mut self, check: F) -> Self
    where
        F: Fn() -> crate::registry::BoxFuture<'static, bool> + Send + Sync + 'static,
    {
        self.ready_checks.push(std::sync::Arc::new(check));
        self
    }
    /// The endpoint path.
    pub fn endpoint_path(&self) -> &str {
        &self.path
    }

    /// Paths that cannot be served as configured: the health endpoint (or, with the `lab`
    /// feature, the lab page) on a path the endpoint, its metadata or the other already takes.
    /// [`Server::serve`](crate::Server::serve) and the other ways of serving refuse such
    /// options; [`Server::into_router`](crate::Server::into_router) leaves the path out with a
    /// warning.
    ///
    /// ```
    /// use mcp_runtime::HttpOptions;
    /// assert!(HttpOptions::default().health("/health").check().is_ok());
    /// let clash = HttpOptions::default().health("/mcp").check().unwrap_err();
    /// assert!(clash.contains("`/mcp`"), "{clash}");
    /// ```
    pub fn check(&self) -> Result<(), String> {
        if let Some(why) = self.proxies.invalid.first() {
            return Err(format!("trusted proxies: {why}"));
        }
        if self.auth.is_some() && self.local_caller.is_some() {
            return Err(
                "an endpoint with `auth` authenticates every caller by its token: a \
                 `local_caller` would bypass it"
                    .into(),
            );
        }
        #[cfg(feature = "lab")]
        let lab = self.lab_clash();
        #[cfg(not(feature = "lab"))]
        let lab = None;
        #[cfg(feature = "server-card")]
        let lab = lab.or_else(|| self.server_card_clash());
        match self.health_clash().or(lab) {
            Some(why) => Err(why),
            None => Ok(()),
        }
    }

    /// Why the health endpoint cannot be served at its path, if it cannot.
    pub(crate) fn health_clash(&self) -> Option<String> {
        self.taken(self.health.as_deref()?, "health endpoint")
    }

    /// Why the lab page cannot be served at its path, if it cannot.
    #[cfg(feature = "lab")]
    pub(crate) fn lab_clash(&self) -> Option<String> {
        let path = self.lab.as_ref()?.path.as_str();
        self.taken(path, "lab page").or_else(|| {
            (self.health.as_deref() == Some(path)).then(|| {
                format!(
                    "the lab page and the health endpoint both ask for `{path}`: give one another path"
                )
            })
        })
    }

    /// Serves `card` (made by [`Server::server_card`](crate::Server::server_card)) at
    /// `<path>/server-card`, and when it has a remote an AI Catalog naming its
    /// [`url`](ServerCard::url) at `/.well-known/ai-catalog.json`. Both are public (no token,
    /// even with [`auth`](Self::auth); CORS for any origin), written once when serving starts,
    /// with `Cache-Control: public, max-age=3600` and an `ETag` (`304` on `If-None-Match`). A
    /// card made from another server's info is not served. Feature `server-card`.
    ///
    /// ```
    /// use mcp_runtime::{HttpOptions, Server, ServerJson};
    /// let server = Server::builder().version("0.3.0").instructions("Weather.").build()?;
    /// let entry = ServerJson::new("io.github.owner/weather").remote("https://weather.example.com/mcp");
    /// let options = HttpOptions::default().server_card(server.server_card(&entry)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "server-card")]
    pub fn server_card(mut self, card: ServerCard) -> Self {
        self.server_card = Some(card);
        self
    }
    /// Serves the [Server Card](Self::server_card) without the AI Catalog at
    /// `/.well-known/ai-catalog.json` (for an app of several servers that publishes a catalog
    /// of its own, say). Feature `server-card`.
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().without_ai_catalog();
    /// # let _ = options;
    /// ```
    #[cfg(feature = "server-card")]
    pub fn without_ai_catalog(mut self) -> Self {
        self.ai_catalog = false;
        self
    }
    /// Where the [Server Card](Self::server_card) is served, if one is:
    /// `<path>/server-card`. Feature `server-card`.
    ///
    /// ```
    /// use mcp_runtime::HttpOptions;
    /// assert_eq!(HttpOptions::default().server_card_path(), None);
    /// ```
    #[cfg(feature = "server-card")]
    pub fn server_card_path(&self) -> Option<String> {
        let path = self.path.trim_end_matches('/');
        self.server_card
            .as_ref()
            .map(|_| format!("{path}{SERVER_CARD_SUFFIX}"))
    }
    /// Why the Server Card cannot be served at its path, if it cannot: another route takes it.
    #[cfg(feature = "server-card")]
    pub(super) fn server_card_clash(&self) -> Option<String> {
        let path = self.server_card_path()?;
        #[cfg(feature = "lab")]
        let lab = self.lab.as_ref().map(|lab| lab.path.as_str());
        #[cfg(not(feature = "lab"))]
        let lab = None;
        [
            (self.health.as_deref(), "health endpoint"),
            (lab, "lab page"),
        ]
        .into_iter()
        .find(|(taken, _)| *taken == Some(path.as_str()))
        .map(|(_, what)| {
            format!(
                "the Server Card and the {what} both ask for `{path}`: give the {what} another path"
            )
        })
    }

    /// Why `path` cannot serve the `what`: the endpoint's own path, or its metadata's.
    fn taken(&self, path: &str, what: &str) -> Option<String> {
        if path == self.path {
            return Some(format!(
                "the {what} path `{path}` is the MCP endpoint's: give it another path"
            ));
        }
        if path.starts_with("/.well-known/") {
            return Some(format!(
                "the {what} path `{path}` is under `/.well-known/`, kept for the endpoint's metadata: give it another path"
            ));
        }
        None
    }

    /// Serves the [lab page](crate::transport::http#the-lab-page) at `path` (default `/lab`)
    /// instead. Feature `lab`.
    ///
    /// A path the endpoint, its metadata or the health endpoint already takes is refused when
    /// serving ([`check`](Self::check)); a router from
    /// [`Server::into_router`](crate::Server::into_router) leaves the page out with a warning.
    ///
    /// ```
    /// use mcp_runtime::HttpOptions;
    /// let options = HttpOptions::default().lab_path("/inspect");
    /// ```
    #[cfg(feature = "lab")]
    pub fn lab_path(mut self, path: impl Into<String>) -> Self {
        let mut lab = self.lab.take().unwrap_or_default();
        let path: String = path.into();
        lab.path = match path.trim_end_matches('/') {
            "" => "/lab".to_owned(),
            p if p.starts_with('/') => p.to_owned(),
            p => format!("/{p}"),
        };
        self.lab = Some(lab);
        self
    }
    /// Serves the lab page to every client the endpoint serves, not only to loopback ones (off
    /// by default). Turn it on only where anyone who can reach the page may also call every
    /// tool: the page is an MCP client with the caller's own rights, nothing more, but it makes
    /// calling them one click away. The page's requests carry its `Origin`: allow the name it
    /// is opened on with [`allow_host`](Self::allow_host) and
    /// [`allow_origin`](Self::allow_origin). Feature `lab`.
    ///
    /// ```
    /// use mcp_runtime::HttpOptions;
    /// let options = HttpOptions::default()
    ///     .allow_host("mcp.internal")
    ///     .allow_origin("http://mcp.internal:8000")
    ///     .lab_for_any_client(true);
    /// ```
    #[cfg(feature = "lab")]
    pub fn lab_for_any_client(mut self, on: bool) -> Self {
        let mut lab = self.lab.take().unwrap_or_default();
        lab.any_client = on;
        self.lab = Some(lab);
        self
    }
    /// Does not serve the lab page, although the `lab` feature is on.
    ///
    /// ```
    /// use mcp_runtime::HttpOptions;
    /// let options = HttpOptions::default().without_lab();
    /// assert_eq!(options.lab_page_path(), None);
    /// ```
    #[cfg(feature = "lab")]
    pub fn without_lab(mut self) -> Self {
        self.lab = None;
        self
    }
    /// Where the lab page is served, if it is. Feature `lab`.
    ///
    /// ```
    /// use mcp_runtime::HttpOptions;
    /// assert_eq!(HttpOptions::default().lab_page_path(), Some("/lab"));
    /// ```
    #[cfg(feature = "lab")]
    pub fn lab_page_path(&self) -> Option<&str> {
        self.lab.as_ref().map(|lab| lab.path.as_str())
    }
}
