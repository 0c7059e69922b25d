//! An in-process client for testing a server: typed calls through the whole pipeline (the same
//! entry the transports use, minus HTTP), no sockets.
//!
//! The client answers the server's requests for client input itself (elicitation, sampling,
//! roots) with the answers you configure, collects progress and log notifications, and can
//! honour caching hints (`ttlMs`) like a real client, to show what a client would be served.
//! With the `jwt` feature, `TestIssuer` mints access tokens for tests of a protected server.
//! [`assert_portable_schemas`] fails a test when a tool's listed `inputSchema` is one hosts'
//! converters would misread.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use mcp_runtime::testing::TestClient;
//! use mcp_runtime::{NoArguments, Server, Tool};
//! use serde_json::json;
//!
//! let server = Server::builder()
//!     .tool(Tool::new("hello").handler(|_: NoArguments, _cx| async { "Hello!" }))
//!     .build()
//!     .unwrap();
//! let client = TestClient::new(server);
//! let result = client.call_tool("hello", json!({})).await.unwrap();
//! assert_eq!(result.text(), "Hello!");
//! assert_eq!(client.list_tools().await.unwrap()[0].name, "hello");
//! # }
//! ```

#[cfg(feature = "jwt")]
mod issuer;
#[cfg(feature = "jwt")]
pub use issuer::TestIssuer;

use crate::context::Caller;
use crate::dispatch::{Call, Outgoing};
use crate::mrtr::MAX_ROUNDS;
use crate::protocol::{
    CallToolResult, ClientCapabilities, CompleteResult, CreateMessageRequestParams, DiscoverResult,
    ElicitRequestParams, ErrorObject, GetPromptResult, GetSkillResult, InputRequest,
    InputRequiredResult, LATEST_PROTOCOL_VERSION, LoggingLevel, PromptInfo, ReadDirectoryResult,
    ReadResourceResult, Resource, ResourceTemplate, Skill, ToolInfo,
};
use crate::schema::PortabilityIssue;
use crate::server::Server;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A tool whose listed `inputSchema` is not portable, and why (see
/// [`schema::portability_issues`](crate::schema::portability_issues)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NonPortableSchema {
    /// The tool's name.
    pub tool: String,
    /// What hosts would misread, each with its JSON pointer into the schema.
    pub issues: Vec<PortabilityIssue>,
}

impl fmt::Display for NonPortableSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool `{}`:", self.tool)?;
        for issue in &self.issues {
            write!(f, "\n  - {issue}")?;
        }
        Ok(())
    }
}

/// Every registered tool (enabled or not) whose `inputSchema`, as `tools/list` lists it, is not
/// portable, with the reasons. Schemas generated from argument types are portable unless they
/// hold a recursive type (or the server lists [`SchemaDialect::Full`](crate::schema::SchemaDialect::Full));
/// schemas set by hand are listed as written, and checked as they are.
pub fn non_portable_schemas(server: &Server) -> Vec<NonPortableSchema> {
    server
        .listed_input_schemas()
        .into_iter()
        .filter_map(|(tool, schema)| {
            let issues = crate::schema::portability_issues(&schema);
            (!issues.is_empty()).then_some(NonPortableSchema { tool, issues })
        })
        .collect()
}

/// Fails (panics) when a tool's listed `inputSchema` is not portable: one that the converters
/// of common hosts (Gemini's function declarations, OpenAI's strict mode, LangChain, the
/// Vercel AI SDK) would refuse or read with something lost. The message names each tool and
/// each reason, with its JSON pointer.
///
/// ```
/// use mcp_runtime::{Server, Tool, testing::assert_portable_schemas};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// enum Priority { Low, High }
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Args { title: String, priority: Option<Priority> }
/// let server = Server::builder()
///     .tool(Tool::new("file").handler(|a: Args, _cx| async move { a.title }))
///     .build()
///     .unwrap();
/// assert_portable_schemas(&server);
/// ```
///
/// A hand-written schema with a list of types fails, naming the tool and the place:
///
/// ```should_panic
/// # use mcp_runtime::{Server, Tool, handler::ToolOutcome, testing::assert_portable_schemas};
/// # use mcp_runtime::protocol::CallToolResult;
/// let schema = serde_json::json!({"type": "object",
///     "properties": {"limit": {"type": ["integer", "null"]}}});
/// let server = Server::builder()
///     .tool(Tool::new("list").input_schema(schema.as_object().unwrap().clone())
///         .sync_handler(|_| Ok(ToolOutcome::Complete(CallToolResult::new(vec![])))))
///     .build()
///     .unwrap();
/// // panics: 1 tool schema is not portable:
/// // tool `list`:
/// //   - at `/properties/limit/type`: a list of types (["integer", "null"]): ...
/// assert_portable_schemas(&server);
/// ```
#[track_caller]
pub fn assert_portable_schemas(server: &Server) {
    let found = non_portable_schemas(server);
    if found.is_empty() {
        return;
    }
    let tools: Vec<String> = found.iter().map(ToString::to_string).collect();
    let count = match found.len() {
        1 => "1 tool schema is".to_owned(),
        n => format!("{n} tool schemas are"),
    };
    panic!("{count} not portable:\n{}", tools.join("\n"));
}

/// Why a request of the [`TestClient`] failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// The server asked for input the client has no answer for (the input's key).
    Unanswered(String),
    /// The answer did not have the expected shape.
    Unexpected(String),
}

impl ClientError {
    /// The JSON-RPC error code, for [`ClientError::Rpc`].
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Rpc(e) => Some(e.code),
            _ => None,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Rpc(e) => write!(f, "JSON-RPC error {}: {}", e.code, e.message),
            ClientError::Unanswered(key) => write!(
                f,
                "the server asked for input `{key}`, and the test client has no answer for it"
            ),
            ClientError::Unexpected(what) => write!(f, "unexpected answer: {what}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// The view of an app ([`TestClient::app_of`]): its URI, MIME type, HTML and `_meta.ui`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AppView {
    /// Its `ui://` URI.
    pub uri: String,
    /// Its MIME type (`text/html;profile=mcp-app`).
    pub mime_type: Option<String>,
    /// Its HTML document.
    pub html: String,
    /// The `_meta.ui` of its contents (`Value::Null` when it has none).
    pub ui: Value,
}

/// The `ui://` URI a tool is linked to.
fn tool_app(tool: &ToolInfo) -> Option<String> {
    let meta = tool.meta.as_ref()?;
    let uri = meta
        .get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get(crate::protocol::LEGACY_RESOURCE_URI_KEY))?;
    uri.as_str().map(str::to_owned)
}

/// How the client answers an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited {
    /// The user submitted the form with these values.
    Accept(Value),
    /// The user refused.
    Decline,
    /// The user dismissed the request.
    Cancel,
}

type ElicitFn = dyn Fn(&str, &Map<String, Value>) -> Elicited + Send + Sync;
type SampleFn = dyn Fn(&CreateMessageRequestParams) -> String + Send + Sync;

/// An in-process client of one [`Server`]. See the [module docs](self).
pub struct TestClient {
    server: Server,
    capabilities: Option<ClientCapabilities>,
    caller: Option<Caller>,
    elicit: Option<Arc<ElicitFn>>,
    sample: Option<Arc<SampleFn>>,
    roots: Option<Vec<String>>,
    log_level: Option<LoggingLevel>,
    progress: bool,
    honour_ttl: bool,
    next_id: AtomicI64,
    notifications: Mutex<Vec<Value>>,
    cache: Mutex<HashMap<String, (Instant, Value)>>,
}

impl fmt::Debug for TestClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestClient")
            .field("server", &self.server.info().name)
            .finish_non_exhaustive()
    }
}

impl TestClient {
    /// A client of `server` that declares the capabilities of the answers it is given (none at
    /// first), asks for no progress or logs, and caches nothing.
    pub fn new(server: Server) -> Self {
        TestClient {
            server,
            capabilities: None,
            caller: None,
            elicit: None,
            sample: None,
            roots: None,
            log_level: None,
            progress: false,
            honour_ttl: false,
            next_id: AtomicI64::new(1),
            notifications: Mutex::new(Vec::new()),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Declares exactly these capabilities (instead of those of the configured answers).
    #[must_use]
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Sends every request as `caller` (what an authentication layer would attach).
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
        self.elicit = Some(Arc::new(answer));
        self
    }

    /// Answers sampling requests with the text `answer(params)` returns (from `test-model`);
    /// declares `sampling`.
    #[must_use]
    pub fn on_sample<F>(mut self, answer: F) -> Self
    where
        F: Fn(&CreateMessageRequestParams) -> String + Send + Sync + 'static,
    {
        self.sample = Some(Arc::new(answer));
        self
    }

    /// Answers `roots/list` with these URIs; declares `roots`.
    #[must_use]
    pub fn roots<I: IntoIterator<Item = S>, S: Into<String>>(mut self, uris: I) -> Self {
        self.roots = Some(uris.into_iter().map(Into::into).collect());
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

    /// The view of the app the tool `name` is linked to (MCP Apps): its `ui://` URI, read, with
    /// the contents' `_meta.ui`. An error when the tool is unknown or linked to no app.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let view = client.app_of("show_board").await.unwrap();
    /// assert!(view.html.starts_with("<!doctype html>"));
    /// # }
    /// ```
    pub async fn app_of(&self, name: &str) -> Result<AppView, ClientError> {
        let tool = self.tool_named(name).await?;
        let uri = tool_app(&tool)
            .ok_or_else(|| ClientError::Unexpected(format!("tool `{name}` is linked to no app")))?;
        let read = self.read_resource(&uri).await?;
        let contents = read
            .contents
            .into_iter()
            .next()
            .ok_or_else(|| ClientError::Unexpected(format!("{uri} answered no contents")))?;
        let html = match contents.body {
            crate::protocol::ResourceBody::Text(text) => text,
            crate::protocol::ResourceBody::Blob(_) => {
                return Err(ClientError::Unexpected(format!("{uri} is not text")));
            }
        };
        let ui = contents
            .meta
            .and_then(|mut m| m.remove("ui"))
            .unwrap_or(Value::Null);
        Ok(AppView {
            uri,
            mime_type: contents.mime_type,
            html,
            ui,
        })
    }

    /// Calls the tool `name` as its app would, through a host that keeps to `visibility`: a
    /// tool the app may not call (`visibility` without `"app"`) is refused here, as a host
    /// refuses it, without reaching the server.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let moved = client
    ///     .call_from_app("move_card", serde_json::json!({"id": 1, "to": "done"}))
    ///     .await
    ///     .unwrap();
    /// # }
    /// ```
    pub async fn call_from_app(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        let tool = self.tool_named(name).await?;
        let visible = tool
            .meta
            .as_ref()
            .and_then(|m| m.get("ui"))
            .and_then(|ui| ui.get("visibility"))
            .and_then(Value::as_array);
        if let Some(visible) = visible
            && !visible.iter().any(|v| v == "app")
        {
            return Err(ClientError::Unexpected(format!(
                "tool `{name}` is not visible to apps (visibility {visible:?})"
            )));
        }
        self.call_tool(name, arguments).await
    }

    async fn tool_named(&self, name: &str) -> Result<ToolInfo, ClientError> {
        self.list_tools()
            .await?
            .into_iter()
            .find(|t| t.name == name)
            .ok_or_else(|| ClientError::Unexpected(format!("no tool `{name}` is listed")))
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

    /// Opens a `subscriptions/listen` stream with this filter (like
    /// `{"toolsListChanged": true}`); the acknowledgement is its first notification.
    pub fn listen(&self, filter: Value) -> Listening {
        let body = self.body("subscriptions/listen", json!({"notifications": filter}));
        Listening {
            call: self.server.handle_message(&body, self.caller.clone()),
        }
    }

    /// Sends any request (with the client's `_meta`) and returns its `result`.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        if let Some(hit) = self.cached(method, &params) {
            return Ok(hit);
        }
        let body = self.body(method, params.clone());
        let call = self
            .server
            .handle_message(&body, self.caller.clone())
            .ok_or_else(|| {
                ClientError::Unexpected(format!("`{method}` was taken for a notification"))
            })?;
        let result = self.finish(call).await?;
        self.remember(method, &params, &result);
        Ok(result)
    }

    /// A request whose `input_required` answers are answered and retried until it completes.
    async fn request_with_input(
        &self,
        method: &str,
        mut params: Value,
    ) -> Result<Value, ClientError> {
        for _ in 0..=MAX_ROUNDS {
            let result = self.request(method, params.clone()).await?;
            if result["resultType"] != "input_required" {
                return Ok(result);
            }
            let asked: InputRequiredResult = parse(result)?;
            let mut answers = Map::new();
            for (key, request) in asked.input_requests.iter().flat_map(|r| r.iter()) {
                answers.insert(key.to_owned(), self.answer(key, request)?);
            }
            params["inputResponses"] = Value::Object(answers);
            params["requestState"] = match asked.request_state {
                Some(state) => Value::String(state),
                None => Value::Null,
            };
        }
        Err(ClientError::Unexpected(format!(
            "`{method}` asked for input more than {MAX_ROUNDS} times"
        )))
    }

    fn answer(&self, key: &str, request: &InputRequest) -> Result<Value, ClientError> {
        let unanswered = || ClientError::Unanswered(key.to_owned());
        match request.typed() {
            InputRequest::Elicit(ElicitRequestParams::Form(form)) => {
                let elicit = self.elicit.as_ref().ok_or_else(unanswered)?;
                Ok(match elicit(&form.message, &form.requested_schema) {
                    Elicited::Accept(content) => json!({"action": "accept", "content": content}),
                    Elicited::Decline => json!({"action": "decline"}),
                    Elicited::Cancel => json!({"action": "cancel"}),
                })
            }
            InputRequest::Elicit(_) => Err(unanswered()),
            InputRequest::Sample(params) => {
                let sample = self.sample.as_ref().ok_or_else(unanswered)?;
                Ok(json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": sample(params)},
                    "model": "test-model",
                }))
            }
            _ => {
                let roots = self.roots.as_ref().ok_or_else(unanswered)?;
                let roots: Vec<Value> = roots.iter().map(|uri| json!({"uri": uri})).collect();
                Ok(json!({"roots": roots}))
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
        loop {
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
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(items),
            }
        }
    }

    fn declared_capabilities(&self) -> ClientCapabilities {
        if let Some(caps) = &self.capabilities {
            return caps.clone();
        }
        let mut caps = ClientCapabilities::default();
        if self.elicit.is_some() {
            caps.elicitation = Some(Map::new());
        }
        if self.sample.is_some() {
            caps.sampling = Some(Map::new());
        }
        if self.roots.is_some() {
            caps.roots = Some(Map::new());
        }
        caps
    }

    fn body(&self, method: &str, mut params: Value) -> Vec<u8> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": LATEST_PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": self.declared_capabilities(),
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-runtime-test-client", "version": env!("CARGO_PKG_VERSION")},
        });
        if self.progress {
            meta["progressToken"] = json!(format!("progress-{id}"));
        }
        if let Some(level) = self.log_level {
            meta["io.modelcontextprotocol/logLevel"] = json!(level);
        }
        params["_meta"] = meta;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        serde_json::to_vec(&request).unwrap_or_default()
    }

    async fn finish(&self, mut call: Call) -> Result<Value, ClientError> {
        loop {
            match call.next_message().await {
                Some(Outgoing::Notification(bytes)) => {
                    if let Ok(n) = serde_json::from_slice::<Value>(&bytes) {
                        lock(&self.notifications).push(n);
                    }
                }
                Some(Outgoing::Response(response)) => {
                    let mut answer: Value = serde_json::from_slice(&response.body)
                        .map_err(|e| ClientError::Unexpected(e.to_string()))?;
                    if let Some(error) = answer.get_mut("error").map(Value::take) {
                        return Err(ClientError::Rpc(parse(error)?));
                    }
                    return Ok(answer["result"].take());
                }
                None => return Err(ClientError::Unexpected("no response".into())),
            }
        }
    }

    fn cache_key(method: &str, params: &Value) -> String {
        format!("{method} {params}")
    }

    fn cached(&self, method: &str, params: &Value) -> Option<Value> {
        if !self.honour_ttl {
            return None;
        }
        let key = TestClient::cache_key(method, params);
        let cache = lock(&self.cache);
        let (fresh_until, result) = cache.get(&key)?;
        (Instant::now() < *fresh_until).then(|| result.clone())
    }

    fn remember(&self, method: &str, params: &Value, result: &Value) {
        let ttl = result["ttlMs"].as_u64().unwrap_or(0);
        if !self.honour_ttl || ttl == 0 || result["resultType"] != "complete" {
            return;
        }
        let fresh_until = Instant::now() + Duration::from_millis(ttl);
        lock(&self.cache).insert(
            TestClient::cache_key(method, params),
            (fresh_until, result.clone()),
        );
    }
}

/// An open `subscriptions/listen` stream of a [`TestClient`]; dropping it ends the stream.
#[derive(Debug)]
pub struct Listening {
    call: Option<Call>,
}

impl Listening {
    /// The next notification; `None` once the stream ended (its final result was received).
    pub async fn next(&mut self) -> Option<Value> {
        let call = self.call.as_mut()?;
        match call.next_message().await? {
            Outgoing::Notification(bytes) => serde_json::from_slice(&bytes).ok(),
            Outgoing::Response(_) => {
                self.call = None;
                None
            }
        }
    }
}

fn parse<T: DeserializeOwned>(value: Value) -> Result<T, ClientError> {
    serde_json::from_value(value).map_err(|e| ClientError::Unexpected(e.to_string()))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
