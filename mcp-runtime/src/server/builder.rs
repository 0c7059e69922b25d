//! [`ServerBuilder`]: what a server is built from, each setting, and `build`.

use super::built::Server;
use super::options::LegacyOptions;
#[cfg(feature = "tasks")]
use super::options::TaskOptions;
use crate::bus::{ChangeBus, LocalBus};
use crate::config::{CacheHint, CacheTarget, Config, Limits};
use crate::context::StateMap;
#[cfg(feature = "metrics")]
use crate::dispatch::metrics;
use crate::dispatch::{Dispatcher, Slots};
use crate::error::BuildError;
use crate::layers::Layer;
use crate::legacy::{Legacy, MemorySessionStore, SessionSettings, SessionStore};
use crate::protocol::meta::InfoJson;
use crate::protocol::{CacheScope, Implementation};
#[cfg(feature = "mounts")]
use crate::proxy::Mount;
use crate::registry::{
    AccessCheck, Catalog, Handlers, IntoPrimitive, IntoPrompt, IntoResource, IntoResourceTemplate,
    IntoTool, Items, PrimitiveKind, Registration,
};
#[cfg(feature = "skills")]
use crate::registry::{SkillSet, Skills};
use crate::schema::SchemaDialect;
use crate::seal::{DEFAULT_STATE_TTL, KeyRing, Sealer};
#[cfg(feature = "tasks")]
use crate::tasks::{MemoryTaskStore, TaskStore};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

impl Server {
    /// A builder with nothing registered.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// A builder holding every `#[tool]`, `#[resource]` and `#[prompt]` of the program, each kind
    /// sorted by name (resources by URI). Duplicates are reported by [`ServerBuilder::build`].
    pub fn from_inventory() -> ServerBuilder {
        Registration::all()
            .into_iter()
            .fold(ServerBuilder::default(), |builder, reg| {
                builder.register(reg.build.primitive().with_source(reg.location))
            })
    }
}

/// Builds a [`Server`]. Items are listed in the order they are added.
///
/// ```
/// use mcp_runtime::{CacheTarget, Server, protocol::CacheScope};
/// let server = Server::builder()
///     .name("study-server")
///     .version("2.0.0")
///     .instructions("Use narrow tools.")
///     .cache(CacheTarget::Discover, 300_000, CacheScope::Public)
///     .build()
///     .unwrap();
/// ```
#[derive(Default)]
#[must_use]
pub struct ServerBuilder {
    config: Config,
    items: Items,
    state: StateMap,
    keys: Option<KeyRing>,
    state_ttl: Option<Duration>,
    bus: Option<Arc<dyn ChangeBus>>,
    #[cfg(feature = "tasks")]
    tasks: Option<Arc<dyn TaskStore>>,
    policy: Option<AccessCheck>,
    /// Scopes added to registered items: (kind, key, scopes).
    required: Vec<(PrimitiveKind, String, Vec<String>)>,
    layers: Vec<Arc<dyn Layer>>,
    /// Skills, loaded by `build`.
    #[cfg(feature = "skills")]
    skills: Vec<Skills>,
    modern_only: bool,
    sessions: Option<Arc<dyn SessionStore>>,
    legacy: SessionSettings,
    /// Other servers mounted in this one, by prefix.
    #[cfg(feature = "mounts")]
    mounts: Vec<(String, Mount)>,
}

impl ServerBuilder {
    /// The server's name (`serverInfo.name`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config.info).name = name.into();
        self
    }
    /// The server's version (`serverInfo.version`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config.info).version = version.into();
        self
    }
    /// The whole `serverInfo`.
    pub fn info(mut self, info: Implementation) -> Self {
        self.config.info = Arc::new(info);
        self
    }
    /// Mounts another server in this one: its tools and prompts named `{prefix}_{name}` (an
    /// empty prefix mounts it flat, names unchanged), its resources kept or rewritten
    /// ([`Mount::uris`](crate::proxy::Mount::uris)), each request relayed to it with the
    /// client's capabilities, progress and rounds of client input passed through. A
    /// [`Server`] of this crate is mounted in process (its lists read now: a name taken twice
    /// fails `build`, naming both origins; its own scopes, layers and state apply); a remote
    /// one through a [`Client`](crate::client::Client) (feature `client`), its lists fetched
    /// when serving starts and kept fresh. `serverInfo` and instructions stay this server's.
    ///
    /// ```
    /// use mcp_runtime::{NoArguments, Server, Tool};
    /// let weather = Server::builder()
    ///     .tool(Tool::new("forecast").handler(|_: NoArguments, _cx| async { "sunny" }))
    ///     .build()
    ///     .unwrap();
    /// let front = Server::builder().mount("weather", weather).build().unwrap();
    /// # let _ = front;
    /// ```
    #[cfg(feature = "mounts")]
    pub fn mount(mut self, prefix: impl Into<String>, server: impl Into<Mount>) -> Self {
        self.mounts.push((prefix.into(), server.into()));
        self
    }
    /// Instructions for the model, sent by `server/discover`.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.config.instructions = Some(text.into());
        self
    }
    /// The caching hint of one kind of result.
    pub fn cache(mut self, target: CacheTarget, ttl_ms: u64, scope: CacheScope) -> Self {
        *self.config.cache_mut(target) = CacheHint::new(ttl_ms, scope);
        self
    }
    /// Page size of the list methods (default 100, at least 1).
    pub fn page_size(mut self, size: usize) -> Self {
        self.config.page_size = size.max(1);
        self
    }
    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]` (default: yes).
    pub fn server_info_in_results(mut self, on: bool) -> Self {
        self.config.server_info_in_results = on;
        self
    }
    /// Whether successful tool results spell out `"isError": false` (default: yes). When off, the
    /// field is sent only when `true`.
    pub fn explicit_is_error(mut self, on: bool) -> Self {
        self.config.explicit_is_error = on;
        self
    }
    /// Which form of the input schemas generated from argument types (`#[tool]`,
    /// [`Tool::handler`](crate::Tool::handler), [`Tool::input_schema_of`](crate::Tool::input_schema_of))
    /// `tools/list` shows. The default, [`SchemaDialect::Portable`], is the form hosts' converters
    /// (Gemini, OpenAI's strict mode, LangChain, the Vercel AI SDK) read without loss: no
    /// `$ref`, `Option<T>` an optional property of `T`'s schema, an object at the root (see
    /// [`schema::portable`](crate::schema::portable)). [`SchemaDialect::Full`] shows schemars'
    /// output as it is, for clients that read all of JSON Schema 2020-12. Arguments are
    /// validated against the full schema in both: only what is listed changes. Both forms are
    /// made once, when the tool is built; a request only copies the listing.
    ///
    /// ```
    /// use mcp_runtime::{Server, Tool, schema::SchemaDialect};
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Args { text: String, times: Option<u32> }
    /// let server = Server::builder()
    ///     .schema_dialect(SchemaDialect::Full)
    ///     .tool(Tool::new("repeat").handler(|a: Args, _cx| async move {
    ///         a.text.repeat(a.times.unwrap_or(1) as usize)
    ///     }))
    ///     .build()
    ///     .unwrap();
    /// ```
    pub fn schema_dialect(mut self, dialect: SchemaDialect) -> Self {
        self.items.dialect = dialect;
        self
    }
    /// Advertise the `logging` capability and send `notifications/message` to requests that opt in.
    pub fn logging(mut self, on: bool) -> Self {
        self.config.logging = on;
        self
    }
    /// Advertise `listChanged` on tools, prompts and resources.
    pub fn list_changed(mut self, on: bool) -> Self {
        self.config.list_changed = on;
        self
    }
    /// Advertise `resources.subscribe` (`resourceSubscriptions` on listen streams).
    pub fn resource_subscriptions(mut self, on: bool) -> Self {
        self.config.resource_subscribe = on;
        self
    }
    /// Advertise an extension in `capabilities.extensions`.
    pub fn extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.config.extensions.insert(id.into(), settings);
        self
    }
    /// The protocol versions accepted (default: `["2026-07-28"]`).
    pub fn supported_versions<I: IntoIterator<Item = S>, S: Into<String>>(mut self, v: I) -> Self {
        self.config.supported_versions = v.into_iter().map(Into::into).collect();
        self
    }
    /// A hard time limit per request (default 5 minutes); past it the handler is cancelled and
    /// the request fails with `-32603`. Also one of the [`Limits`].
    pub fn request_timeout(mut self, limit: Duration) -> Self {
        self.config.limits.request_timeout = Some(limit);
        self
    }
    /// What one request, and the server as a whole, may take (see [`Limits`] for the
    /// defaults).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }
    /// Shared state, available to handlers as [`State<T>`](crate::State).
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(Arc::new(value));
        self
    }
    /// The keys sealing `requestState` (the first seals, all open). Instances behind one load
    /// balancer must share them. Without this, the `MCP_STATE_KEY` environment variable is read;
    /// without that, a random key is generated (and an HTTP endpoint whose primitives ask the
    /// client for input logs a warning, once a process: its multi-round requests then resume
    /// only on this instance).
    pub fn state_keys(mut self, keys: KeyRing) -> Self {
        self.keys = Some(keys);
        self
    }
    /// The bus carrying change notifications between instances (default: this process only).
    pub fn change_bus(mut self, bus: impl ChangeBus) -> Self {
        self.bus = Some(Arc::new(bus));
        self
    }
    /// How the tasks extension keeps and runs tasks: its store, a task's lifetime, the poll
    /// interval clients are told, the runner's lease ([`TaskOptions`]; settings left unset
    /// keep their defaults).
    ///
    /// ```
    /// use mcp_runtime::{Server, TaskOptions};
    /// use std::time::Duration;
    /// let server = Server::builder()
    ///     .tasks(TaskOptions::new().lease(Duration::from_secs(30)))
    ///     .build()
    ///     .unwrap();
    /// ```
    #[cfg(feature = "tasks")]
    pub fn tasks(mut self, options: TaskOptions) -> Self {
        let TaskOptions {
            store,
            ttl_ms,
            poll_ms,
            lease_ms,
        } = options;
        if let Some(store) = store {
            self.tasks = Some(store);
        }
        if let Some(ttl_ms) = ttl_ms {
            self.config.task_ttl_ms = ttl_ms;
        }
        if let Some(poll_ms) = poll_ms {
            self.config.task_poll_ms = poll_ms;
        }
        if let Some(lease_ms) = lease_ms {
            self.config.task_lease_ms = lease_ms;
        }
        self
    }
    /// Whether and how 2025-11-25 clients (which open with `initialize`) are served, from the
    /// same handlers ([`LegacyOptions`]; default: served, sessions in memory).
    /// [`LegacyOptions::off`] makes the server speak 2026-07-28 only, answering a legacy
    /// client's `initialize` with an error naming the version it speaks.
    ///
    /// ```
    /// use mcp_runtime::{LegacyOptions, Server};
    /// let server = Server::builder().legacy(LegacyOptions::off()).build().unwrap();
    /// ```
    pub fn legacy(mut self, options: LegacyOptions) -> Self {
        self.modern_only = options.off;
        if options.store.is_some() {
            self.sessions = options.store;
        }
        self.legacy = options.settings;
        self
    }
    /// Shares this server's changes, tasks and 2025-11-25 sessions with every instance on the
    /// same Redis: the [`change_bus`](Self::change_bus), the tasks' store and the sessions'
    /// store over it (sessions idle for [`LegacyOptions::idle`], as set before this call).
    /// Feature `redis`.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), mcp_runtime::Error> {
    /// use mcp_runtime::redis::Redis;
    /// let mut builder = mcp_runtime::Server::from_inventory();
    /// if let Some(redis) = Redis::from_env().await? {
    ///     builder = builder.redis(&redis);
    /// }
    /// builder.build()?.run().await
    /// # }
    /// ```
    #[cfg(feature = "redis")]
    pub fn redis(self, redis: &crate::redis::Redis) -> Self {
        let idle = self.legacy.idle;
        let mut this = self.change_bus(redis.bus());
        this.tasks = Some(Arc::new(redis.tasks()));
        this.sessions = Some(Arc::new(redis.sessions(idle)));
        this
    }
    /// Lifetime of a `requestState` (default 5 minutes).
    pub fn state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = Some(ttl);
        self
    }
    /// A server-wide authorization check, asked (after each primitive's own scopes and check)
    /// before every use of a tool, resource, template or prompt, and for every item of every
    /// list: what it refuses is neither listed nor run. See [`auth`](crate::auth).
    ///
    /// ```
    /// use mcp_runtime::auth::{AccessCheck, Denied};
    /// use mcp_runtime::{PrimitiveKind, Server};
    /// // Prompts are for staff only.
    /// let builder = Server::builder().authorize(AccessCheck::new(|access| async move {
    ///     let staff = access.caller().is_some_and(|c| c.claim("staff") == Some(&true.into()));
    ///     if access.kind() == PrimitiveKind::Prompt && !staff {
    ///         return Err(Denied::new("prompts are for staff"));
    ///     }
    ///     Ok(())
    /// }));
    /// ```
    pub fn authorize(mut self, check: AccessCheck) -> Self {
        self.policy = Some(check);
        self
    }
    /// Requires scopes of the caller of an item registered elsewhere (a `#[tool]` function, a
    /// `#[handlers]` block), for deployments that decide at startup. Naming an item that is
    /// not registered fails [`build`](Self::build).
    ///
    /// ```
    /// use mcp_runtime::{NoArguments, PrimitiveKind, Server, Tool};
    /// let server = Server::builder()
    ///     .tool(Tool::new("search").handler(|_: NoArguments, _cx| async { "found" }))
    ///     .require_scopes(PrimitiveKind::Tool, "search", ["docs:read"])
    ///     .build()
    ///     .unwrap();
    /// ```
    pub fn require_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        kind: PrimitiveKind,
        key: impl Into<String>,
        scopes: I,
    ) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.required.push((kind, key.into(), scopes));
        self
    }
    /// Adds a [`Layer`] around every call. Layers run in the order they are added: the first
    /// sees each request first and its answer last. Built-in ones are in
    /// [`layers`](crate::layers).
    ///
    /// ```
    /// use mcp_runtime::Server;
    /// use mcp_runtime::layers::{AuditLog, ToolTimeout};
    /// use std::time::Duration;
    /// let server = Server::builder()
    ///     .layer(AuditLog::new())
    ///     .layer(ToolTimeout::new().tool("slow_report", Duration::from_secs(30)))
    ///     .build()
    ///     .unwrap();
    /// ```
    pub fn layer(mut self, layer: impl Layer) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }
    /// Records request counts, durations, errors, open listen streams and multi-round rounds
    /// through the [`metrics`](https://docs.rs/metrics) facade (default: off, so a server without
    /// a recorder pays nothing). Names and labels: [`dispatch::metrics`](crate::dispatch::metrics).
    /// Needs the `metrics` feature (which `otel` turns on): without it the facade is not
    /// compiled at all.
    ///
    /// ```
    /// let server = mcp_runtime::Server::builder().metrics(true).build().unwrap();
    /// ```
    #[cfg(feature = "metrics")]
    pub fn metrics(mut self, on: bool) -> Self {
        self.config.metrics = on;
        self
    }
    /// Records tool arguments and results on the request span (`gen_ai.tool.call.arguments`,
    /// `gen_ai.tool.call.result`) and the reasons of failed requests in its events. Off by
    /// default: they may carry secrets or personal data.
    ///
    /// ```
    /// let server = mcp_runtime::Server::builder().trace_payloads(true).build().unwrap();
    /// ```
    pub fn trace_payloads(mut self, on: bool) -> Self {
        self.config.trace_payloads = on;
        self
    }
    /// Registers any primitive: a tool, resource, template or prompt, or a macro's handle.
    pub fn register(mut self, item: impl IntoPrimitive) -> Self {
        self.items.push(item.into_primitive());
        self
    }
    /// Registers `value` as shared state, and the methods of its `#[handlers]` impl block as
    /// primitives served on it.
    ///
    /// ```
    /// use mcp_runtime::{Server, handlers};
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// #[derive(Default)]
    /// struct Counter(AtomicU64);
    ///
    /// #[handlers]
    /// impl Counter {
    ///     /// Counts one more.
    ///     #[tool]
    ///     fn increment(&self) -> u64 {
    ///         self.0.fetch_add(1, Ordering::SeqCst) + 1
    ///     }
    /// }
    ///
    /// let server = Server::builder().handlers(Counter::default()).build().unwrap();
    /// assert!(server.capabilities().tools.is_some());
    /// ```
    pub fn handlers<H: Handlers>(self, value: H) -> Self {
        Registration::of::<H>()
            .into_iter()
            .fold(self.state(value), |builder, reg| {
                builder.register(reg.build.primitive().with_source(reg.location))
            })
    }
    /// Registers a tool: a [`Tool`](crate::Tool), or the handle of a `#[tool]` function
    /// (`.tool(add {})`).
    pub fn tool(self, tool: impl IntoTool) -> Self {
        self.register(tool.into_tool())
    }
    /// Registers a resource with a fixed URI: a [`Resource`](crate::Resource), or the handle of
    /// a `#[resource]` function.
    pub fn resource(self, resource: impl IntoResource) -> Self {
        self.register(resource.into_resource())
    }
    /// Registers a resource template: a [`ResourceTemplate`](crate::ResourceTemplate), or the
    /// handle of a `#[resource]` function whose URI has `{variables}`.
    pub fn resource_template(self, template: impl IntoResourceTemplate) -> Self {
        self.register(template.into_resource_template())
    }
    /// Registers a prompt: a [`Prompt`](crate::Prompt), or the handle of a `#[prompt]` function.
    pub fn prompt(self, prompt: impl IntoPrompt) -> Self {
        self.register(prompt.into_prompt())
    }

    /// The principal of every request that arrives on stdio: the local user who started the
    /// process. Its scopes open scoped primitives (`#[tool(scopes = [...])]`) to a desktop host,
    /// which over stdio has no token to send; without it, stdio requests are anonymous. (An
    /// HTTP endpoint without `auth` takes one for its loopback clients:
    /// [`HttpOptions::local_caller`](crate::HttpOptions::local_caller).)
    ///
    /// ```
    /// use mcp_runtime::{Caller, Server};
    /// let server = Server::builder()
    ///     .stdio_caller(Caller::new("desktop-user").with_scopes(["tickets:write"]))
    ///     .build();
    /// # assert!(server.is_ok());
    /// ```
    pub fn stdio_caller(mut self, caller: crate::context::Caller) -> Self {
        self.config.stdio_caller = Some(Arc::new(caller));
        self
    }

    /// Serves a set of skills (the Skills extension, `io.modelcontextprotocol/skills`): a
    /// folder read when the server is built (`Skills::dir`), or one embedded at compile time
    /// (`skills!`), both with the `skills` feature. Declares the extension (with
    /// `directoryRead`) in `server/discover` and `initialize`; each skill's files become
    /// resources. Several sets may be served; their skills' names must differ.
    ///
    /// ```no_run
    /// # #[cfg(feature = "skills")] {
    /// use mcp_runtime::{Server, Skills};
    /// let server = Server::builder().skills(Skills::dir("skills")).build()?;
    /// # }
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// ```
    #[cfg(feature = "skills")]
    pub fn skills(mut self, skills: Skills) -> Self {
        self.skills.push(skills);
        self
    }

    /// Validates everything and builds the server. Every problem is reported, none panics.
    pub fn build(mut self) -> Result<Server, BuildError> {
        crate::registry::result_view::attach(&mut self.items)?;
        // Folders to watch.
        #[cfg(feature = "skills")]
        let mut watched = Vec::new();
        #[cfg(feature = "skills")]
        for declared in std::mem::take(&mut self.skills) {
            // A watched folder is looked at before it is read: a change made meanwhile is seen.
            if let Some((root, every)) = declared.watched() {
                let seen = super::watch::fingerprint(root);
                watched.push((self.items.skills.len(), root.to_path_buf(), every, seen));
            }
            let loaded = Arc::new(declared.load()?);
            self.items.skills.push(SkillSet { declared, loaded });
        }
        #[cfg(feature = "skills")]
        if !watched.is_empty() {
            // A watched folder's changes are announced: the capabilities that let clients hear them.
            self.config.list_changed = true;
            self.config.resource_subscribe = true;
        }
        for (kind, key, scopes) in std::mem::take(&mut self.required) {
            match self.items.access_mut(kind, &key) {
                Some(access) => access.add_scopes(scopes),
                None => {
                    return Err(BuildError::setting(
                        "require_scopes",
                        format!("no {kind:?} `{key}` is registered"),
                    ));
                }
            }
        }
        #[cfg(feature = "mounts")]
        let mounts = Arc::new(self.take_mounts()?);
        #[cfg(feature = "mounts")]
        let asks_input = self.items.ask_client_input() || mounts.any_remote();
        #[cfg(not(feature = "mounts"))]
        let asks_input = self.items.ask_client_input();
        let state = Arc::new(self.state);
        let catalog = Catalog::new(self.items, state.clone())?;
        let mut ring = match self.keys {
            Some(ring) => ring,
            None => state_keys_from_env()?,
        };
        let limits = self.config.limits.clone();
        ring.set_max_bytes(limits.state_bytes);
        let sealer = Arc::new(Sealer {
            ring,
            ttl: self.state_ttl.unwrap_or(DEFAULT_STATE_TTL),
            max_rounds: limits.rounds,
            asks_input,
        });
        let changes = self.bus.unwrap_or_else(|| Arc::new(LocalBus::default()));
        #[cfg(feature = "tasks")]
        let tasks = self.tasks.unwrap_or_else(|| {
            Arc::new(MemoryTaskStore::default().per_share(limits.stored_tasks_per_caller))
        });
        let info_json = InfoJson::new(self.config.info.clone());
        #[cfg(feature = "metrics")]
        if self.config.metrics {
            metrics::describe();
        }
        let dispatcher = Arc::new(Dispatcher {
            info_json,
            config: self.config,
            catalog,
            state,
            changes,
            #[cfg(feature = "tasks")]
            tasks,
            shutdown: CancellationToken::new(),
            halt: CancellationToken::new(),
            sealer,
            policy: self.policy,
            requests: Slots::new(
                "requests",
                limits.concurrent_requests,
                limits.requests_per_caller,
            ),
            listens: Slots::new(
                "listen streams",
                limits.listen_streams,
                limits.listens_per_caller,
            ),
            running_tasks: Slots::new(
                "running tasks",
                limits.running_tasks,
                limits.tasks_per_caller,
            ),
            layers: Arc::from(self.layers),
            #[cfg(feature = "mounts")]
            relayed_tasks: std::sync::OnceLock::new(),
            caller_views: std::sync::OnceLock::new(),
        });
        #[cfg(feature = "mounts")]
        super::mount_set::plug_in(&dispatcher, &mounts);
        let legacy = (!self.modern_only).then(|| {
            let store = self.sessions.unwrap_or_else(|| {
                Arc::new(
                    MemorySessionStore::new(self.legacy.max_sessions, self.legacy.idle)
                        .per_share(self.legacy.sessions_per_caller),
                )
            });
            Arc::new(Legacy::new(dispatcher.clone(), store, self.legacy))
        });
        #[cfg(feature = "skills")]
        for (set, root, every, seen) in watched {
            super::watch::spawn(&dispatcher, set, root, every, seen);
        }
        Ok(Server {
            dispatcher,
            legacy,
            #[cfg(feature = "mounts")]
            mounts,
        })
    }

    /// The mounted servers taken out of the builder, and the capabilities serving them needs.
    #[cfg(feature = "mounts")]
    fn take_mounts(&mut self) -> Result<super::mount_set::Mounts, BuildError> {
        if !self.mounts.is_empty() {
            // Mounted servers' log messages are passed on.
            self.config.logging = true;
        }
        if super::mount_set::has_remote(&self.mounts) {
            // A remote mount's lists change while serving, and its resources' updates are
            // relayed: clients are told.
            self.config.list_changed = true;
            self.config.resource_subscribe = true;
        }
        let mounts = super::mount_set::take(&mut self.items, std::mem::take(&mut self.mounts))?;
        // A mount that passes on or exchanges its callers' tokens needs them kept.
        self.config.keep_caller_tokens = mounts.all.iter().any(|b| b.client.needs_caller_token());
        Ok(mounts)
    }
}

/// The `requestState` keys from `MCP_STATE_KEY`; without it, a random key (an HTTP endpoint
/// whose primitives ask the client for input says, once, that its multi-round requests then
/// resume only on this instance: `transport::http::endpoint`).
fn state_keys_from_env() -> Result<KeyRing, BuildError> {
    let setting = |name: &str, reason: String| BuildError::setting(name, reason);
    if let Ok(value) = std::env::var("MCP_STATE_KEY") {
        return KeyRing::from_env_value(&value).map_err(|reason| setting("MCP_STATE_KEY", reason));
    }
    KeyRing::random().map_err(|reason| setting("requestState key", reason))
}
