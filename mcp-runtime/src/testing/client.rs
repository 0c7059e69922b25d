//! The test client: [`TestClient`], what it answers the server's requests for input with,
//! and why a request failed ([`ClientError`]).

use crate::context::Caller;
use crate::dispatch::{Call, Outgoing};
use crate::mrtr::MAX_ROUNDS;
use crate::protocol::{
    CallToolResult, ClientCapabilities, CompleteResult, CreateMessageRequestParams, DiscoverResult,
    ElicitRequestParams, ErrorObject, GetPromptResult, GetSkillResult, InputRequest,
    InputRequiredResult, LATEST_PROTOCOL_VERSION, LoggingLevel, PromptInfo, ReadDirectoryResult,
    ReadResourceResult, Resource, ResourceTemplate, Skill, ToolInfo,
};
use crate::server::Server;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// An in-process client of one [`Server`]. See the [module docs](super).
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
