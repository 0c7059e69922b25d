//! [`Client`]: one API over every link, the in-process one of tests and the remote ones
//! (feature `client`).

use super::answers::{Answers, Elicited};
use super::error::ClientError;
use super::link::{Exchange, Incoming, Link, Outbound, lock};
use super::listening::Listening;
use crate::context::Caller;
use crate::protocol::{
    CallToolResult, ClientCapabilities, CompleteResult, CreateMessageRequestParams, DiscoverResult,
    ErrorObject, GetPromptResult, GetSkillResult, LATEST_PROTOCOL_VERSION, LoggingLevel,
    PromptInfo, ReadDirectoryResult, ReadResourceResult, Resource, ResourceTemplate, Skill,
    ToolInfo,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A client of one MCP server: in process (`Client::new(server)`, the
/// [`TestClient`](crate::testing::TestClient) of tests), over Streamable HTTP
/// (`Client::http`, feature `client`) or to a child process over stdio (`Client::stdio`), with one API, so a
/// test written against one runs against the others unchanged. See the
/// [module docs](crate::client).
///
/// Requests for client input (`input_required`) are *driven* by the typed calls
/// ([`call_tool`](Client::call_tool), [`read_resource`](Client::read_resource),
/// [`get_prompt`](Client::get_prompt)): answered with the callbacks configured
/// ([`on_elicit`](Client::on_elicit), [`on_sample`](Client::on_sample),
/// [`roots`](Client::roots)) and retried until the request completes. [`request`](Client::request)
/// *relays* instead: it returns whatever the server answered, an `input_required` round
/// included, untouched.
pub struct Client {
    link: Arc<dyn Link>,
    capabilities: Option<ClientCapabilities>,
    caller: Option<Caller>,
    pub(super) answers: Answers,
    log_level: Option<LoggingLevel>,
    progress: bool,
    honour_ttl: bool,
    timeout: Option<Duration>,
    next_id: AtomicI64,
    notifications: Mutex<Vec<Value>>,
    /// Handed each notification as it comes, instead of keeping it.
    on_notification: Option<Arc<NotifiedFn>>,
    cache: Mutex<HashMap<String, (Instant, Value)>>,
    /// `x-mcp-header` arguments of the tools listed so far, by tool name.
    param_headers: Mutex<HashMap<String, Vec<crate::registry::ParamHeader>>>,
}

type NotifiedFn = dyn Fn(&Value) + Send + Sync;

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.link.describe())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client over `link`, declaring the capabilities of the answers it is given (none at
    /// first), asking for no progress or logs, caching nothing.
    pub(crate) fn over(link: Arc<dyn Link>, timeout: Option<Duration>) -> Self {
        Client {
            link,
            capabilities: None,
            caller: None,
            answers: Answers::default(),
            log_level: None,
            progress: false,
            honour_ttl: false,
            timeout,
            next_id: AtomicI64::new(1),
            notifications: Mutex::new(Vec::new()),
            on_notification: None,
            cache: Mutex::new(HashMap::new()),
            param_headers: Mutex::new(HashMap::new()),
        }
    }

    /// What the client talks to: a URL, a command, or `in-process`.
    pub fn server(&self) -> &str {
        self.link.describe()
    }

    /// Whether requests need their caller's access token (see `Credentials`).
    #[cfg(feature = "mounts")]
    pub(crate) fn needs_caller_token(&self) -> bool {
        self.link.needs_caller_token()
    }

    /// The protocol revision spoken with the server, once a request was answered
    /// (`2026-07-28`, or the revision a 2025 session negotiated).
    pub fn revision(&self) -> Option<String> {
        self.link.revision()
    }

    /// Declares exactly these capabilities (instead of those of the configured answers).
    #[must_use]
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Sends every request as `caller` (what an authentication layer would attach; in process
    /// only, since a remote server authenticates the link's own headers).
    #[must_use]
    pub fn caller(mut self, caller: Caller) -> Self {
        self.caller = Some(caller);
        self
    }

    /// Answers elicitations with `answer(message, requested_schema)`; declares `elicitation`.
    #[must_use]
    pub fn on_elicit<F>(mut self, answer: F) -> Self
    where
        F: Fn(&str, &Map<String, Value>) -> Elicited + Send + Sync + 'static,
    {
        self.answers.elicit = Some(Arc::new(answer));
        self
    }

    /// Answers sampling requests with the text `answer(params)` returns (from `test-model`);
    /// declares `sampling`.
    #[must_use]
    pub fn on_sample<F>(mut self, answer: F) -> Self
    where
        F: Fn(&CreateMessageRequestParams) -> String + Send + Sync + 'static,
    {
        self.answers.sample = Some(Arc::new(answer));
        self
    }

    /// Answers `roots/list` with these URIs; declares `roots`.
    #[must_use]
    pub fn roots<I: IntoIterator<Item = S>, S: Into<String>>(mut self, uris: I) -> Self {
        self.answers.roots = Some(uris.into_iter().map(Into::into).collect());
        self
    }

    /// Asks for `notifications/message` at or above `level` on every request.
    #[must_use]
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Asks for progress notifications on every request.
    #[must_use]
    pub fn progress(mut self) -> Self {
        self.progress = true;
        self
    }

    /// Serves lists and reads from a cache while their `ttlMs` says they are fresh, as a real
    /// client may (to test that a server never has a client serve stale data).
    #[must_use]
    pub fn honour_ttl(mut self) -> Self {
        self.honour_ttl = true;
        self
    }

    /// Gives up on a request the server has not answered within `limit` (listen streams
    /// excepted), with [`ClientError::Timeout`]. Remote clients start with 60 s, the in-process
    /// one with none.
    #[must_use]
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Hands each notification of a request (progress, logs) to `notified` as it comes, rather
    /// than keeping it for [`take_notifications`](Client::take_notifications): a progress bar, a
    /// live log.
    ///
    /// ```
    /// use mcp_runtime::client::Client;
    /// use mcp_runtime::Server;
    /// let client = Client::new(Server::builder().build().unwrap())
    ///     .progress()
    ///     .on_notification(|note| eprintln!("{}", note["method"]));
    /// ```
    #[must_use]
    pub fn on_notification<F>(mut self, notified: F) -> Self
    where
        F: Fn(&Value) + Send + Sync + 'static,
    {
        self.on_notification = Some(Arc::new(notified));
        self
    }

    /// The notifications received so far (progress, logs), oldest first; empties the list.
    pub fn take_notifications(&self) -> Vec<Value> {
        std::mem::take(&mut *lock(&self.notifications))
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        parse(self.request("server/discover", json!({})).await?)
    }

    /// Every tool, across pages.
    pub async fn list_tools(&self) -> Result<Vec<ToolInfo>, ClientError> {
        // Each page's `x-mcp-header` parameters are learnt as it passes `request_as`.
        self.list("tools/list", "tools").await
    }

    /// Every fixed resource, across pages.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list("resources/list", "resources").await
    }

    /// Every resource template, across pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list("resources/templates/list", "resourceTemplates")
            .await
    }

    /// Every prompt, across pages.
    pub async fn list_prompts(&self) -> Result<Vec<PromptInfo>, ClientError> {
        self.list("prompts/list", "prompts").await
    }

    /// Every skill (the Skills extension's `skills/list`), across pages.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let skills = client.list_skills().await.unwrap();
    /// # }
    /// ```
    pub async fn list_skills(&self) -> Result<Vec<Skill>, ClientError> {
        self.list("skills/list", "skills").await
    }

    /// The entry of the skill whose `SKILL.md` is `uri` (`skills/get`).
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let skill = client.get_skill("skill://pdf/SKILL.md").await.unwrap();
    /// # }
    /// ```
    pub async fn get_skill(&self, uri: &str) -> Result<GetSkillResult, ClientError> {
        parse(self.request("skills/get", json!({"uri": uri})).await?)
    }

    /// Every child of the directory resource `uri` (`resources/directory/read`), across pages.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let children = client.read_directory("skill://pdf/templates").await.unwrap();
    /// # }
    /// ```
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<Resource>, ClientError> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut params = json!({"uri": uri});
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let page: ReadDirectoryResult =
                parse(self.request("resources/directory/read", params).await?)?;
            all.extend(page.resources);
            match page.next_cursor {
                Some(next) if cursor.as_deref() != Some(next.as_str()) => cursor = Some(next),
                _ => return Ok(all),
            }
        }
    }

    /// Calls a tool, answering its requests for client input; an `isError` result is `Ok`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        parse(self.request_with_input("tools/call", params).await?)
    }

    /// Calls a tool and reads its `structuredContent` as a `T`.
    pub async fn call_tool_as<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<T, ClientError> {
        let result = self.call_tool(name, arguments).await?;
        let structured = result.structured_content.ok_or_else(|| {
            ClientError::Unexpected(format!("tool `{name}` returned no structuredContent"))
        })?;
        serde_json::from_value(structured).map_err(|e| ClientError::Unexpected(e.to_string()))
    }

    /// Reads a resource, answering its requests for client input.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let params = json!({"uri": uri});
        if let Some(hit) = self.cached("resources/read", &params) {
            return parse(hit);
        }
        let result = self
            .request_with_input("resources/read", params.clone())
            .await?;
        self.remember("resources/read", &params, &result);
        parse(result)
    }

    /// Gets a prompt with string `arguments`, answering its requests for client input.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        parse(self.request_with_input("prompts/get", params).await?)
    }

    /// Completes `argument` of the prompt `name` from `value`.
    pub async fn complete_prompt_argument(
        &self,
        name: &str,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, ClientError> {
        let params = json!({
            "ref": {"type": "ref/prompt", "name": name},
            "argument": {"name": argument, "value": value},
        });
        parse(self.request("completion/complete", params).await?)
    }

    /// Completes the variable `variable` of the resource template `uri_template` from `value`.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let done = client
    ///     .complete_template_variable("notes://{topic}", "topic", "ru")
    ///     .await
    ///     .unwrap();
    /// # }
    /// ```
    pub async fn complete_template_variable(
        &self,
        uri_template: &str,
        variable: &str,
        value: &str,
    ) -> Result<CompleteResult, ClientError> {
        let params = json!({
            "ref": {"type": "ref/resource", "uri": uri_template},
            "argument": {"name": variable, "value": value},
        });
        parse(self.request("completion/complete", params).await?)
    }

    /// Opens a `subscriptions/listen` stream with this filter (like
    /// `{"toolsListChanged": true}`); the acknowledgement is its first notification.
    ///
    /// The stream is open once its first message came (within the client's timeout): a server
    /// that refuses it answers here, with its error.
    // Only a remote 2025-11-25 session sends requests, which the loop passes over.
    #[cfg_attr(not(feature = "client"), allow(clippy::never_loop))]
    pub async fn listen(&self, filter: Value) -> Result<Listening, ClientError> {
        let out = self.outbound("subscriptions/listen", json!({"notifications": filter}));
        let opening = async {
            let mut exchange = self.link.send(out).await?;
            loop {
                match exchange.next().await? {
                    Some(Incoming::Notification(first)) => {
                        return Ok(Listening {
                            exchange: Some(exchange),
                            first: Some(first),
                        });
                    }
                    #[cfg(feature = "client")]
                    Some(Incoming::Request(_)) => continue,
                    Some(Incoming::Response(mut answer)) => {
                        if let Some(error) = answer.get_mut("error").map(Value::take) {
                            return Err(ClientError::Rpc(serde_json::from_value(error).map_err(
                                |e| {
                                    ClientError::Protocol(format!(
                                        "an error object is malformed: {e}"
                                    ))
                                },
                            )?));
                        }
                        return Ok(Listening {
                            exchange: None,
                            first: None,
                        });
                    }
                    None => {
                        return Ok(Listening {
                            exchange: None,
                            first: None,
                        });
                    }
                }
            }
        };
        match self.timeout {
            None => opening.await,
            Some(limit) => tokio::time::timeout(limit, opening)
                .await
                .map_err(|_| ClientError::Timeout(self.link.describe().to_owned()))?,
        }
    }

    /// Sends any request (with the client's `_meta`, merged under any `_meta` in `params`) and
    /// returns its `result` as the server wrote it: an `input_required` round is handed back
    /// untouched (the *relay* mode), and nothing is retried.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.request_with(method, params, &mut |n| match &self.on_notification {
            Some(notified) => notified(&n),
            None => lock(&self.notifications).push(n),
        })
        .await
    }

    /// [`request`](Client::request), with each notification of the request handed to
    /// `notified` (progress, logs) rather than kept.
    pub async fn request_with(
        &self,
        method: &str,
        params: Value,
        notified: &mut (dyn FnMut(Value) + Send),
    ) -> Result<Value, ClientError> {
        self.request_as(method, params, self.caller.as_ref(), notified)
            .await
    }

    /// [`request_with`](Client::request_with) as `caller` (in process; a remote link sends its
    /// own credentials whoever the caller is).
    pub(crate) async fn request_as(
        &self,
        method: &str,
        params: Value,
        caller: Option<&Caller>,
        notified: &mut (dyn FnMut(Value) + Send),
    ) -> Result<Value, ClientError> {
        if let Some(hit) = self.cached(method, &params) {
            return Ok(hit);
        }
        // Kept only for the cache.
        let kept = self.honour_ttl.then(|| params.clone());
        let mut out = self.outbound(method, params);
        out.caller = caller;
        let exchange = async {
            let exchange = self.link.send(out).await?;
            self.finish(exchange, notified).await
        };
        let result = match self.timeout {
            None => exchange.await?,
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .map_err(|_| ClientError::Timeout(self.link.describe().to_owned()))??,
        };
        if let Some(params) = kept {
            self.remember(method, &params, &result);
        }
        if method == "tools/list" {
            self.learn_param_headers(&result);
        }
        Ok(result)
    }

    /// Keeps the `x-mcp-header` parameters of each tool of a `tools/list` page, so that calls
    /// of them carry their `Mcp-Param-*` headers however the list was read (a relay reads it
    /// with [`request`](Client::request)).
    #[inline]
    fn learn_param_headers(&self, page: &Value) {
        let Some(tools) = page["tools"].as_array() else {
            return;
        };
        let mut headers = lock(&self.param_headers);
        for tool in tools {
            let (Some(name), Some(schema)) =
                (tool["name"].as_str(), tool["inputSchema"].as_object())
            else {
                continue;
            };
            if let Ok(found) = crate::registry::collect_param_headers(schema) {
                headers.insert(name.to_owned(), found);
            }
        }
    }

    async fn list<T: DeserializeOwned>(
        &self,
        method: &str,
        field: &str,
    ) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                None => json!({}),
                Some(c) => json!({"cursor": c}),
            };
            let mut page = self.request(method, params).await?;
            let Some(Value::Array(batch)) = page.get_mut(field).map(Value::take) else {
                return Err(ClientError::Unexpected(format!(
                    "`{method}` has no `{field}`"
                )));
            };
            for item in batch {
                items.push(parse(item)?);
            }
            match page["nextCursor"].as_str() {
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
                _ => return Ok(items),
            }
        }
        Err(ClientError::Protocol(format!(
            "`{method}` went on for more than {MAX_PAGES} pages"
        )))
    }

    #[inline]
    pub(crate) fn declared_capabilities(&self) -> ClientCapabilities {
        if let Some(caps) = &self.capabilities {
            return caps.clone();
        }
        let mut caps = ClientCapabilities::default();
        if self.answers.elicit.is_some() {
            caps.elicitation = Some(Map::new());
        }
        if self.answers.sample.is_some() {
            caps.sampling = Some(Map::new());
        }
        if self.answers.roots.is_some() {
            caps.roots = Some(Map::new());
        }
        caps
    }

    /// The request as sent: the client's `_meta` keys added where `params` has none of its own.
    #[inline]
    fn outbound(&self, method: &str, mut params: Value) -> Outbound<'_> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if !params.is_object() {
            params = json!({});
        }
        let meta = params
            .as_object_mut()
            .map(|p| p.entry("_meta").or_insert_with(|| json!({})))
            .and_then(Value::as_object_mut);
        if let Some(meta) = meta {
            // Each made only when `params` brought none of its own (a relay brings its
            // client's).
            meta.entry("io.modelcontextprotocol/protocolVersion")
                .or_insert_with(|| json!(LATEST_PROTOCOL_VERSION));
            meta.entry("io.modelcontextprotocol/clientCapabilities")
                .or_insert_with(|| {
                    serde_json::to_value(self.declared_capabilities()).unwrap_or_default()
                });
            meta.entry("io.modelcontextprotocol/clientInfo")
                .or_insert_with(
                    || json!({"name": "mcp-runtime-client", "version": env!("CARGO_PKG_VERSION")}),
                );
            if self.progress {
                meta.entry("progressToken")
                    .or_insert_with(|| json!(format!("progress-{id}")));
            }
            if let Some(level) = self.log_level {
                meta.entry("io.modelcontextprotocol/logLevel")
                    .or_insert_with(|| json!(level));
            }
        }
        let param_headers = match method {
            "tools/call" => self.param_headers_of(&params),
            _ => Vec::new(),
        };
        let mut message = Map::new();
        message.insert("jsonrpc".into(), json!("2.0"));
        message.insert("id".into(), json!(id));
        message.insert("method".into(), json!(method));
        message.insert("params".into(), params);
        Outbound {
            message,
            caller: self.caller.as_ref(),
            param_headers,
        }
    }

    #[inline]
    fn param_headers_of(&self, params: &Value) -> Vec<(String, String)> {
        let Some(name) = params["name"].as_str() else {
            return Vec::new();
        };
        let headers = lock(&self.param_headers);
        let Some(declared) = headers.get(name) else {
            return Vec::new();
        };
        super::headers::param_headers(declared, &params["arguments"])
    }

    async fn finish(
        &self,
        mut exchange: Exchange,
        notified: &mut (dyn FnMut(Value) + Send),
    ) -> Result<Value, ClientError> {
        loop {
            match exchange.next().await? {
                Some(Incoming::Notification(n)) => notified(n),
                #[cfg(feature = "client")]
                Some(Incoming::Request(request)) => {
                    let reply = self.answers.answer_server_request(&request);
                    self.link.reply(reply).await?;
                }
                Some(Incoming::Response(mut answer)) => {
                    if let Some(error) = answer.get_mut("error").map(Value::take) {
                        let error: ErrorObject = serde_json::from_value(error).map_err(|e| {
                            ClientError::Protocol(format!("an error object is malformed: {e}"))
                        })?;
                        return Err(ClientError::Rpc(error));
                    }
                    return match answer.get_mut("result").map(Value::take) {
                        Some(mut result) => {
                            // A 2025 result has no `resultType`: every one of them is complete.
                            if let Some(fields) = result.as_object_mut() {
                                fields
                                    .entry("resultType")
                                    .or_insert_with(|| json!("complete"));
                            }
                            Ok(result)
                        }
                        None => Err(ClientError::Protocol(
                            "a response has neither result nor error".into(),
                        )),
                    };
                }
                None => return Err(ClientError::Protocol("no response".into())),
            }
        }
    }

    #[inline]
    fn cache_key(method: &str, params: &Value) -> String {
        format!("{method} {params}")
    }

    #[inline]
    fn cached(&self, method: &str, params: &Value) -> Option<Value> {
        if !self.honour_ttl {
            return None;
        }
        let key = Client::cache_key(method, params);
        let cache = lock(&self.cache);
        let (fresh_until, result) = cache.get(&key)?;
        (Instant::now() < *fresh_until).then(|| result.clone())
    }

    #[inline]
    fn remember(&self, method: &str, params: &Value, result: &Value) {
        let ttl = result["ttlMs"].as_u64().unwrap_or(0);
        if !self.honour_ttl || ttl == 0 || result["resultType"] != "complete" {
            return;
        }
        let fresh_until = Instant::now() + Duration::from_millis(ttl);
        let mut cache = lock(&self.cache);
        if cache.len() >= MAX_CACHED {
            cache.retain(|_, (until, _)| Instant::now() < *until);
        }
        if cache.len() < MAX_CACHED {
            cache.insert(
                Client::cache_key(method, params),
                (fresh_until, result.clone()),
            );
        }
    }
}

/// Pages one list may take before the client stops following cursors.
const MAX_PAGES: usize = 10_000;
/// Answers kept by [`Client::honour_ttl`]'s cache.
const MAX_CACHED: usize = 1_000;

pub(super) fn parse<T: DeserializeOwned>(value: Value) -> Result<T, ClientError> {
    serde_json::from_value(value).map_err(|e| ClientError::Unexpected(e.to_string()))
}
