//! What a server is configured with: caching hints, list page size, capabilities to advertise,
//! limits. Built by [`ServerBuilder`](crate::ServerBuilder), read by dispatch.

use crate::protocol::{CacheScope, Implementation, LATEST_PROTOCOL_VERSION};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// A caching hint: `ttlMs` and `cacheScope`.
///
/// ```
/// use mcp_runtime::{CacheHint, protocol::CacheScope};
/// let hint = CacheHint::new(300_000, CacheScope::Public);
/// assert_eq!(hint.ttl_ms, 300_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long a client may reuse the result, in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it: every caller (`Public`) or only this one (`Private`).
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint of `ttl_ms` milliseconds for `scope`.
    pub const fn new(ttl_ms: u64, scope: CacheScope) -> Self {
        CacheHint { ttl_ms, scope }
    }
}

/// Which kind of result a caching hint applies to.
///
/// Defaults: `server/discover` one hour, public; the lists and `skills/get` `ttlMs: 0` (stale at
/// once), public;
/// `resources/read` `ttlMs: 0`, private. Declare how long a result stays true where you know it:
/// per server with [`ServerBuilder::cache`](crate::ServerBuilder::cache), per resource with
/// `Resource::cache` or `#[resource(ttl_ms = …)]`.
///
/// ```
/// use mcp_runtime::{CacheTarget, Server, protocol::CacheScope};
/// let builder = Server::builder().cache(CacheTarget::ToolsList, 60_000, CacheScope::Public);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheTarget {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    TemplatesList,
    /// `prompts/list`.
    PromptsList,
    /// `resources/read` (default for resources that set no hint of their own).
    ResourceRead,
    /// `skills/list`, and `skills/get` of skills whose set has no hint of its own.
    Skills,
}

/// The settings of one server.
#[derive(Clone)]
pub(crate) struct Config {
    /// A mount passes on or exchanges its callers' access tokens: the HTTP transport keeps
    /// each verified caller's token with it.
    pub(crate) keep_caller_tokens: bool,
    pub(crate) info: Arc<Implementation>,
    pub(crate) instructions: Option<String>,
    pub(crate) supported_versions: Vec<String>,
    pub(crate) discover_cache: CacheHint,
    pub(crate) tools_cache: CacheHint,
    pub(crate) resources_cache: CacheHint,
    pub(crate) templates_cache: CacheHint,
    pub(crate) prompts_cache: CacheHint,
    pub(crate) read_cache: CacheHint,
    pub(crate) skills_cache: CacheHint,
    pub(crate) page_size: usize,
    pub(crate) server_info_in_results: bool,
    pub(crate) explicit_is_error: bool,
    pub(crate) logging: bool,
    pub(crate) list_changed: bool,
    pub(crate) resource_subscribe: bool,
    pub(crate) extensions: Map<String, Value>,
    pub(crate) limits: Limits,
    /// Record the metrics of `dispatch::metrics` through the `metrics` facade.
    pub(crate) metrics: bool,
    /// Record tool arguments and results on spans.
    pub(crate) trace_payloads: bool,
    /// A task's lifetime from creation (`None`: no limit).
    #[cfg(feature = "tasks")]
    pub(crate) task_ttl_ms: Option<u64>,
    /// How often clients should poll a task.
    #[cfg(feature = "tasks")]
    pub(crate) task_poll_ms: u64,
    /// How long a running task's lease lasts (its runner renews it every third of this).
    #[cfg(feature = "tasks")]
    pub(crate) task_lease_ms: u64,
    /// The principal of every request that arrives on stdio.
    pub(crate) stdio_caller: Option<Arc<crate::context::Caller>>,
}

impl Config {
    /// The hint of one kind of result, to be changed.
    pub(crate) fn cache_mut(&mut self, target: CacheTarget) -> &mut CacheHint {
        match target {
            CacheTarget::Discover => &mut self.discover_cache,
            CacheTarget::ToolsList => &mut self.tools_cache,
            CacheTarget::ResourcesList => &mut self.resources_cache,
            CacheTarget::TemplatesList => &mut self.templates_cache,
            CacheTarget::PromptsList => &mut self.prompts_cache,
            CacheTarget::ResourceRead => &mut self.read_cache,
            CacheTarget::Skills => &mut self.skills_cache,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            keep_caller_tokens: false,
            info: Arc::new(Implementation::new(
                "mcp-runtime-server",
                env!("CARGO_PKG_VERSION"),
            )),
            instructions: None,
            supported_versions: vec![LATEST_PROTOCOL_VERSION.to_owned()],
            // Only code changes what `server/discover` says (and run-time changes of the lists are
            // announced on listen streams): an hour.
            discover_cache: CacheHint::new(3_600_000, CacheScope::Public),
            // Lists and reads are fresh for no time at all unless the author says how long they
            // stay true: a client must never be served a stale note by default.
            tools_cache: CacheHint::new(0, CacheScope::Public),
            resources_cache: CacheHint::new(0, CacheScope::Public),
            templates_cache: CacheHint::new(0, CacheScope::Public),
            prompts_cache: CacheHint::new(0, CacheScope::Public),
            read_cache: CacheHint::new(0, CacheScope::Private),
            skills_cache: CacheHint::new(0, CacheScope::Public),
            page_size: 100,
            server_info_in_results: true,
            explicit_is_error: true,
            logging: false,
            list_changed: false,
            resource_subscribe: false,
            extensions: Map::new(),
            limits: Limits::default(),
            metrics: false,
            trace_payloads: false,
            // An hour: long enough for a report or a crawl, then the store forgets it.
            #[cfg(feature = "tasks")]
            task_ttl_ms: Some(3_600_000),
            #[cfg(feature = "tasks")]
            task_poll_ms: 1_000,
            // A runner that stopped is noticed within this; renewed every 5 s, one store
            // write per running task.
            #[cfg(feature = "tasks")]
            task_lease_ms: 15_000,
            stdio_caller: None,
        }
    }
}

/// What one request, and the server as a whole, may take. Every limit has a default; set them
/// with [`ServerBuilder::limits`](crate::ServerBuilder::limits). The body size is the
/// transport's ([`HttpOptions::body_limit`](crate::HttpOptions::body_limit), 4 MiB; the same for
/// a line of stdio).
///
/// Each pool of the server (requests, listen streams, running tasks) also has a **per-caller
/// share**: a caller (a token's issuer and subject, or, when anonymous, the client's address)
/// holds at most that many at once, so that one client cannot take a pool from the others
/// (shares are counted only once a pool is busy: a client alone always gets its whole share,
/// among several each is sure of three quarters of it, and none holds more than all of it).
/// An anonymous client is its address as the transport decides it (behind trusted proxies,
/// the address they forward; an IPv6 client, its /64). A
/// request with neither (stdio, [`Server::handle_message`](crate::Server::handle_message), a
/// router from [`Server::into_router`](crate::Server::into_router) served without
/// `ConnectInfo`) is one client and only counts against the pool. Behind a reverse proxy, every anonymous client
/// has the proxy's address unless the proxy is trusted
/// ([`HttpOptions::trust_forwarded_for`](crate::HttpOptions::trust_forwarded_for),
/// [`HttpOptions::trusted_proxies`](crate::HttpOptions::trusted_proxies)): trust it, or
/// authenticate callers. Listen streams are a pool of their own: an open stream takes no slot
/// of the requests served at once.
///
/// | limit | default | why | past it |
/// |---|---|---|---|
/// | JSON nesting depth of a message (checked before it is parsed) | 128 | the JSON reader's own limit | `-32602` with the id when the envelope is readable, else `-32600` (HTTP 400) |
/// | bytes of an id, a name, a URI, a cursor, a completion value | 8 KiB | longer than any real URI; bounds the matching work of a read | `-32602` |
/// | requests served at once | 1024 | a few MiB of handler state | `-32603` "server busy" (HTTP 503, `Retry-After: 1`) |
/// | … of them for one caller | 64 | a host runs a handful of calls at once; 16 callers fill the pool | `-32603` "server busy for this caller" (HTTP 503) |
/// | `subscriptions/listen` streams open at once (2025-11-25 session streams, `GET`, too) | 4096 | ≈ 17 KiB each: 70 MiB, a few thousand connected hosts | `-32603` busy |
/// | … of them for one caller | 16 | a host needs one or two | `-32603` busy for this caller |
/// | resources one listen stream subscribes to (or tasks it watches) | 256 | more than a host shows at once | `-32602` |
/// | bytes of those URIs together | 64 KiB | so 4096 streams keep at most 256 MiB of URIs | `-32602` |
/// | tasks running at once | 256 | each holds a tokio task and its handler's state for minutes | `-32603` busy |
/// | … of them for one caller | 16 | a caller's long jobs; 16 callers fill the pool | `-32603` busy for this caller |
/// | tasks one caller keeps in the default task store (running or finished, until their TTL) | 500 | 20 callers fill its 10,000 | its oldest finished task is forgotten; with none finished, `-32603` |
/// | time a handler may take (not listen streams) | 5 minutes | a held request slot comes back; long work belongs in a task | `-32603` "timed out" |
/// | bytes of a `requestState` | 64 KiB | what a client sends back each round, opened before anything runs | `-32602` |
/// | rounds of client input of one request | 16 | no handler asks more; a loop ends | `-32602` |
///
/// ```
/// use mcp_runtime::{Limits, Server};
/// use std::time::Duration;
/// let server = Server::builder()
///     .limits(
///         Limits::default()
///             .concurrent_requests(64)
///             .requests_per_caller(8)
///             .request_timeout(Some(Duration::from_secs(30))),
///     )
///     .build()
///     .unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Limits {
    pub(crate) depth: usize,
    pub(crate) string_bytes: usize,
    pub(crate) concurrent_requests: usize,
    pub(crate) requests_per_caller: usize,
    pub(crate) listen_streams: usize,
    pub(crate) listens_per_caller: usize,
    pub(crate) listen_subscriptions: usize,
    pub(crate) listen_subscription_bytes: usize,
    pub(crate) running_tasks: usize,
    pub(crate) tasks_per_caller: usize,
    pub(crate) stored_tasks_per_caller: usize,
    pub(crate) request_timeout: Option<Duration>,
    pub(crate) state_bytes: usize,
    pub(crate) rounds: u32,
    pub(crate) notification_queue: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            depth: 128,
            string_bytes: 8 * 1024,
            concurrent_requests: 1024,
            requests_per_caller: 64,
            listen_streams: 4096,
            listens_per_caller: 16,
            listen_subscriptions: 256,
            listen_subscription_bytes: 64 * 1024,
            running_tasks: 256,
            tasks_per_caller: 16,
            stored_tasks_per_caller: 500,
            request_timeout: Some(Duration::from_secs(300)),
            state_bytes: crate::seal::MAX_STATE_BYTES,
            rounds: crate::seal::MAX_ROUNDS,
            notification_queue: 64,
        }
    }
}

impl Limits {
    /// Deepest JSON nesting of a message (objects and arrays), from 8 to 128 (the JSON
    /// reader's own recursion limit).
    pub fn depth(mut self, depth: usize) -> Self {
        self.depth = depth.clamp(8, 128);
        self
    }
    /// Longest request id, or string a request's params name things with (tool and prompt
    /// names; resource, skill and directory URIs; cursors; task ids; completion values), in
    /// bytes.
    pub fn string_bytes(mut self, bytes: usize) -> Self {
        self.string_bytes = bytes.max(64);
        self
    }
    /// Most requests served at once (listen streams not included: they have a pool of their
    /// own, [`listen_streams`](Self::listen_streams)), at least 1.
    pub fn concurrent_requests(mut self, n: usize) -> Self {
        self.concurrent_requests = n.max(1);
        self
    }
    /// Most requests one caller has served at once (at least 1; default 64).
    pub fn requests_per_caller(mut self, n: usize) -> Self {
        self.requests_per_caller = n.max(1);
        self
    }
    /// Most `subscriptions/listen` streams open at once, 2025-11-25 session streams (`GET`)
    /// included (default 4096, ≈ 17 KiB each).
    pub fn listen_streams(mut self, n: usize) -> Self {
        self.listen_streams = n;
        self
    }
    /// Most `subscriptions/listen` streams one caller has open at once (at least 1; default 16).
    pub fn listens_per_caller(mut self, n: usize) -> Self {
        self.listens_per_caller = n.max(1);
        self
    }
    /// Most resources one listen stream (`resourceSubscriptions`) or one 2025-11-25 session
    /// (`resources/subscribe`) subscribes to, and tasks one listen stream watches (`taskIds`)
    /// (default 256, at most [`MAX_LISTEN_ENTRIES`](crate::protocol::MAX_LISTEN_ENTRIES)), and
    /// the most bytes their URIs take together (default 64 KiB).
    pub fn subscriptions(mut self, count: usize, bytes: usize) -> Self {
        self.listen_subscriptions = count.clamp(1, crate::protocol::MAX_LISTEN_ENTRIES);
        self.listen_subscription_bytes = bytes.max(64);
        self
    }
    /// Most tasks running at once (default 256), and the most one caller has running (at least
    /// 1; default 16). A finished task holds no running slot.
    pub fn running_tasks(mut self, total: usize, per_caller: usize) -> Self {
        self.running_tasks = total.max(1);
        self.tasks_per_caller = per_caller.max(1);
        self
    }
    /// Most tasks one caller keeps in the default task store, running or finished (default
    /// 500; the store keeps 10,000). Past it, the caller's oldest finished task is forgotten
    /// before its TTL to make room; with none finished, a new task is refused.
    pub fn stored_tasks_per_caller(mut self, n: usize) -> Self {
        self.stored_tasks_per_caller = n.max(1);
        self
    }
    /// Longest time a handler may take (`None`: no limit); past it, it is cancelled and the
    /// request fails with `-32603`. Listen streams have no such limit.
    pub fn request_timeout(mut self, limit: Option<Duration>) -> Self {
        self.request_timeout = limit;
        self
    }
    /// Largest `requestState`, in bytes of its wire form.
    pub fn state_bytes(mut self, bytes: usize) -> Self {
        self.state_bytes = bytes.max(256);
        self
    }
    /// Most notifications waiting to be written to one request's stream, at least 1 (default
    /// 64). A client that reads too slowly does not make the server hold more: a
    /// `subscriptions/listen` stream that falls that far behind is ended with a `-32603` result
    /// (open a new one and fetch the lists again); a call drops the progress and log
    /// notifications that do not fit (later ones supersede them).
    pub fn notification_queue(mut self, n: usize) -> Self {
        self.notification_queue = n.max(1);
        self
    }
    /// Most rounds of client input one request may take.
    pub fn rounds(mut self, n: u32) -> Self {
        self.rounds = n.max(1);
        self
    }
}
