//! Streamable HTTP to a remote server: pooled keep-alive connections (one hyper client per
//! link, `TCP_NODELAY`), the 2026-07-28 revision when the server speaks it, else a 2025 session
//! (`initialize`, `Mcp-Session-Id`, the server's requests answered by POST).

use super::abandon::Abandon;
use super::credentials::Authorizer;
use super::error::ClientError;
use super::headers::header_text;
use super::link::{Exchange, Link, Outbound};
use super::resume::Resume;
use super::session::{legacy_params, session_meta};
use super::settings::{Revision, Settings};
use super::sse::SseReader;
use crate::protocol::LATEST_PROTOCOL_VERSION;
use crate::registry::BoxFuture;
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client as Pool;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Map, Value, json};
use std::sync::Mutex;
use std::time::Duration;

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

/// The newest 2025 revision a session is opened with (the server may answer an older one).
const LEGACY_VERSION: &str = "2025-11-25";

/// What the link knows of the server's revision.
#[derive(Clone)]
enum Era {
    Unknown,
    Modern,
    Legacy {
        version: String,
        session: Option<HeaderValue>,
    },
}

pub(crate) struct HttpLink {
    uri: Uri,
    url: String,
    pool: Pool<Https, Full<Bytes>>,
    headers: HeaderMap,
    max_bytes: usize,
    wanted: Revision,
    era: Mutex<Era>,
    /// Serializes the probe and the `initialize` of a session, so they happen once.
    opening: tokio::sync::Mutex<()>,
    /// Tokens for its credentials, when it has any.
    auth: Option<Authorizer>,
}

impl HttpLink {
    pub(crate) fn new(url: &str, remote: &Settings) -> Result<HttpLink, ClientError> {
        let uri: Uri = url
            .parse()
            .map_err(|e| ClientError::Unreachable(format!("`{url}` is not a URL: {e}")))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err(ClientError::Unreachable(format!(
                "`{url}` is not an http:// or https:// URL"
            )));
        }
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(Duration::from_secs(5)));
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map_err(|e| ClientError::Unreachable(format!("TLS setup failed: {e}")))?
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let pool = Pool::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .build(connector);
        let mut headers = HeaderMap::new();
        for (name, value) in &remote.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|e| ClientError::Unreachable(format!("bad header name `{name}`: {e}")))?;
            let value = HeaderValue::try_from(value.as_str()).map_err(|e| {
                ClientError::Unreachable(format!("bad value for header `{name}`: {e}"))
            })?;
            headers.append(name, value);
        }
        Ok(HttpLink {
            uri,
            url: url.to_owned(),
            pool,
            headers,
            max_bytes: remote.max_message_bytes,
            wanted: remote.revision.clone(),
            era: Mutex::new(match &remote.revision {
                Revision::Modern => Era::Modern,
                _ => Era::Unknown,
            }),
            opening: tokio::sync::Mutex::new(()),
            auth: remote
                .credentials
                .clone()
                .map(Authorizer::new)
                .transpose()?,
        })
    }

    fn era(&self) -> Era {
        super::link::lock(&self.era).clone()
    }

    /// The revision to speak, found on the first request (asked as its caller, whose token
    /// the credentials may pass on): `server/discover` answered means 2026-07-28; a refusal
    /// for want of credentials settles nothing; anything else opens a 2025 session.
    async fn settle(
        &self,
        first: &Map<String, Value>,
        caller: Option<&crate::context::Caller>,
    ) -> Result<Era, ClientError> {
        if !matches!(self.era(), Era::Unknown) {
            return Ok(self.era());
        }
        let _once = self.opening.lock().await;
        if !matches!(self.era(), Era::Unknown) {
            return Ok(self.era());
        }
        let era = match &self.wanted {
            Revision::Legacy(version) => self.initialize(first, version, caller).await?,
            _ => {
                let mut probe = Map::new();
                probe.insert("jsonrpc".into(), json!("2.0"));
                probe.insert("id".into(), json!("mcp-runtime-probe"));
                probe.insert("method".into(), json!("server/discover"));
                probe.insert(
                    "params".into(),
                    json!({"_meta": first.get("params").and_then(|p| p.get("_meta")).cloned().unwrap_or(json!({}))}),
                );
                match self.post_as(&probe, &Era::Modern, &[], caller).await {
                    Ok(response) if response.status() == StatusCode::UNAUTHORIZED => {
                        return Err(ClientError::Credentials(format!(
                            "{} answered HTTP 401 to `server/discover`{}",
                            self.url,
                            match caller.is_some() || self.auth.is_none() {
                                true => "",
                                false => " (the request had no caller whose token to pass on)",
                            }
                        )));
                    }
                    Ok(response) => match self.json_of(response).await {
                        Ok(answer) if answer.get("result").is_some() => Era::Modern,
                        _ => self.initialize(first, LEGACY_VERSION, caller).await?,
                    },
                    Err(e) if e.is_transport() && !matches!(e, ClientError::Protocol(_)) => {
                        return Err(e);
                    }
                    Err(_) => self.initialize(first, LEGACY_VERSION, caller).await?,
                }
            }
        };
        *super::link::lock(&self.era) = era.clone();
        Ok(era)
    }

    /// Opens a 2025 session: `initialize` with the first request's capabilities and client
    /// info, then `notifications/initialized`.
    async fn initialize(
        &self,
        first: &Map<String, Value>,
        version: &str,
        caller: Option<&crate::context::Caller>,
    ) -> Result<Era, ClientError> {
        let (caps, info) = session_meta(first);
        let mut init = Map::new();
        init.insert("jsonrpc".into(), json!("2.0"));
        init.insert("id".into(), json!("mcp-runtime-initialize"));
        init.insert("method".into(), json!("initialize"));
        init.insert(
            "params".into(),
            json!({"protocolVersion": version, "capabilities": caps, "clientInfo": info}),
        );
        let unknown = Era::Legacy {
            version: version.to_owned(),
            session: None,
        };
        let response = self.post_as(&init, &unknown, &[], caller).await?;
        let session = response.headers().get("mcp-session-id").cloned();
        let answer = self.json_of(response).await?;
        if let Some(error) = answer.get("error") {
            return Err(ClientError::Protocol(format!(
                "{} speaks neither 2026-07-28 (server/discover failed) nor {version} (initialize answered {error})",
                self.url
            )));
        }
        let negotiated = answer["result"]["protocolVersion"]
            .as_str()
            .unwrap_or(version)
            .to_owned();
        let era = Era::Legacy {
            version: negotiated,
            session,
        };
        let mut initialized = Map::new();
        initialized.insert("jsonrpc".into(), json!("2.0"));
        initialized.insert("method".into(), json!("notifications/initialized"));
        let _ = self.post_as(&initialized, &era, &[], caller).await?;
        Ok(era)
    }

    async fn post(
        &self,
        message: &Map<String, Value>,
        era: &Era,
        param_headers: &[(String, String)],
    ) -> Result<http::Response<hyper::body::Incoming>, ClientError> {
        self.post_as(message, era, param_headers, None).await
    }

    /// [`post`](Self::post) as `caller` (its credentials' `Authorization`, when it has any).
    async fn post_as(
        &self,
        message: &Map<String, Value>,
        era: &Era,
        param_headers: &[(String, String)],
        caller: Option<&crate::context::Caller>,
    ) -> Result<http::Response<hyper::body::Incoming>, ClientError> {
        let request = self.prepare(message, era, param_headers, caller).await?;
        self.send_prepared(request).await
    }

    async fn send_prepared(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Result<http::Response<hyper::body::Incoming>, ClientError> {
        self.pool
            .request(request)
            .await
            .map_err(|e| ClientError::Unreachable(format!("{}: {}", self.url, error_chain(&e))))
    }

    /// The POST carrying `message`, with every header it goes with.
    async fn prepare(
        &self,
        message: &Map<String, Value>,
        era: &Era,
        param_headers: &[(String, String)],
        caller: Option<&crate::context::Caller>,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let authorization = match &self.auth {
            Some(auth) => auth.header(&self.pool, caller).await?,
            None => None,
        };
        let body = serde_json::to_vec(message).unwrap_or_default();
        let mut request = Request::post(self.uri.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| ClientError::Unreachable(e.to_string()))?;
        let headers = request.headers_mut();
        for (name, value) in &self.headers {
            headers.append(name, value.clone());
        }
        if let Some(value) = authorization.as_deref() {
            insert(headers, "authorization", value);
        }
        let method = message.get("method").and_then(Value::as_str);
        match era {
            Era::Legacy { version, session } => {
                if method != Some("initialize") {
                    insert(headers, "mcp-protocol-version", version);
                }
                if let Some(session) = session {
                    headers.insert("mcp-session-id", session.clone());
                }
            }
            _ => {
                insert(headers, "mcp-protocol-version", LATEST_PROTOCOL_VERSION);
                if let Some(method) = method {
                    insert(headers, "mcp-method", method);
                }
                let params = message.get("params").unwrap_or(&Value::Null);
                let name = match method {
                    Some("tools/call" | "prompts/get") => params["name"].as_str(),
                    Some("resources/read") => params["uri"].as_str(),
                    Some("tasks/get" | "tasks/update" | "tasks/cancel") => {
                        params["taskId"].as_str()
                    }
                    _ => None,
                };
                if let Some(name) = name {
                    insert(headers, "mcp-name", &header_text(name));
                }
                for (name, value) in param_headers {
                    insert(headers, name, value);
                }
            }
        }
        Ok(request)
    }

    /// Posts a request on a 2025 session and reads its answer, with `notifications/cancelled`
    /// sent should the caller give up first (a closed connection does not cancel there); a
    /// 401 or 404, which the caller may send again after, is handed back unread.
    async fn post_on_session(
        &self,
        message: &Map<String, Value>,
        era: &Era,
        caller: Option<&crate::context::Caller>,
    ) -> Result<Result<Exchange, http::Response<hyper::body::Incoming>>, ClientError> {
        let request = self.prepare(message, era, &[], caller).await?;
        let mut guard = Abandon::new(&self.pool, &request, message);
        let resume = Resume::new(&self.pool, &request, self.max_bytes);
        let response = self.send_prepared(request).await?;
        if matches!(
            response.status(),
            StatusCode::UNAUTHORIZED | StatusCode::NOT_FOUND
        ) {
            guard.disarm();
            return Ok(Err(response));
        }
        let exchange = match is_stream(&response) {
            // Resumed when the server cuts it before its response.
            true => Exchange::stream(resume.reading(response.into_body())),
            false => self.exchange_of(response).await?,
        };
        Ok(Ok(guard.watch(exchange)))
    }

    /// A whole JSON answer (of the probe or `initialize`), SSE or JSON.
    async fn json_of(
        &self,
        response: http::Response<hyper::body::Incoming>,
    ) -> Result<Value, ClientError> {
        let mut exchange = self.exchange_of(response).await?;
        loop {
            match exchange.next().await? {
                Some(super::link::Incoming::Response(answer)) => return Ok(answer),
                Some(_) => continue,
                None => return Err(ClientError::Protocol("no response".into())),
            }
        }
    }

    /// The response as an exchange: JSON read whole (within the limit), SSE read as it comes, an
    /// HTTP error with a JSON-RPC body as that error, any other as a protocol error naming it.
    async fn exchange_of(
        &self,
        response: http::Response<hyper::body::Incoming>,
    ) -> Result<Exchange, ClientError> {
        let status = response.status();
        let kind = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let challenge = response
            .headers()
            .get(http::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if status == StatusCode::ACCEPTED {
            return Ok(Exchange::ready(json!({"jsonrpc": "2.0", "result": {}})));
        }
        if kind.starts_with("text/event-stream") && status.is_success() {
            return Ok(Exchange::stream(SseReader::new(
                response.into_body(),
                self.max_bytes,
            )));
        }
        let body = Limited::new(response.into_body(), self.max_bytes)
            .collect()
            .await
            .map_err(|e| {
                ClientError::Protocol(format!(
                    "{}: the answer could not be read within {} bytes: {e}",
                    self.url, self.max_bytes
                ))
            })?
            .to_bytes();
        let parsed = crate::json::from_bytes::<Value>(&body).ok();
        match parsed {
            Some(answer) if kind.starts_with("application/json") && answer.is_object() => {
                if answer.get("result").is_some() || answer.get("error").is_some() {
                    return Ok(Exchange::ready(answer));
                }
                Err(ClientError::Protocol(format!(
                    "{} answered HTTP {status} with JSON that is not a JSON-RPC response",
                    self.url
                )))
            }
            _ if status == StatusCode::UNAUTHORIZED => Err(ClientError::Protocol(format!(
                "{} wants credentials (HTTP 401{})",
                self.url,
                challenge
                    .map(|c| format!(", WWW-Authenticate: {c}"))
                    .unwrap_or_default()
            ))),
            _ if status.is_success() => Err(ClientError::Protocol(format!(
                "{} answered HTTP {status} with content type `{kind}`, neither application/json nor text/event-stream",
                self.url
            ))),
            _ => Err(ClientError::Protocol(format!(
                "{} answered HTTP {status} without a JSON-RPC error",
                self.url
            ))),
        }
    }
}

impl HttpLink {
    /// A request on a 2025 session: sent again with a fresh token after a 401, and on a new
    /// session when the old one is gone (404: the server restarted).
    async fn send_on_session(
        &self,
        message: &Map<String, Value>,
        mut era: Era,
        caller: Option<&crate::context::Caller>,
    ) -> Result<Exchange, ClientError> {
        let (mut fresh_token, mut new_session) = (false, false);
        loop {
            let refused = match self.post_on_session(message, &era, caller).await? {
                Ok(exchange) => return Ok(exchange),
                Err(refused) => refused,
            };
            match (refused.status(), &self.auth) {
                (StatusCode::UNAUTHORIZED, Some(auth)) if !fresh_token => {
                    fresh_token = true;
                    auth.forget(caller);
                }
                (StatusCode::NOT_FOUND, _) if !new_session => {
                    new_session = true;
                    *super::link::lock(&self.era) = Era::Unknown;
                    era = self.settle(message, caller).await?;
                }
                _ => return self.exchange_of(refused).await,
            }
        }
    }

    /// A listen stream on a 2025 session: each of the filter's resources subscribed
    /// (`resources/subscribe`), then the session's GET stream, which carries its list changes and
    /// resource updates; its first message the acknowledgement a 2026 server would send.
    async fn session_stream(
        &self,
        listen: &Map<String, Value>,
        era: &Era,
    ) -> Result<Exchange, ClientError> {
        let filter = listen["params"]["notifications"].clone();
        let Era::Legacy { version, session } = era else {
            return Err(ClientError::Protocol("not a 2025 session".into()));
        };
        for uri in filter["resourceSubscriptions"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let mut subscribe = Map::new();
            subscribe.insert("jsonrpc".into(), json!("2.0"));
            subscribe.insert("id".into(), json!("mcp-runtime-subscribe"));
            subscribe.insert("method".into(), json!("resources/subscribe"));
            subscribe.insert("params".into(), json!({"uri": uri}));
            // A server that cannot subscribe says so; its other notifications still come.
            let _ = self.post(&subscribe, era, &[]).await?;
        }
        let mut request = Request::get(self.uri.clone())
            .header(ACCEPT, "text/event-stream")
            .body(Full::new(Bytes::new()))
            .map_err(|e| ClientError::Unreachable(e.to_string()))?;
        let headers = request.headers_mut();
        for (name, value) in &self.headers {
            headers.append(name, value.clone());
        }
        insert(headers, "mcp-protocol-version", version);
        if let Some(session) = session {
            headers.insert("mcp-session-id", session.clone());
        }
        let response =
            self.pool.request(request).await.map_err(|e| {
                ClientError::Unreachable(format!("{}: {}", self.url, error_chain(&e)))
            })?;
        if !response.status().is_success() {
            // No GET stream (405): the session has nothing to listen to.
            return Err(ClientError::Rpc(crate::protocol::ErrorObject::new(
                -32601,
                format!(
                    "{} offers its 2025 session no stream to listen on (HTTP {})",
                    self.url,
                    response.status()
                ),
            )));
        }
        let ack = json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {"notifications": filter},
        });
        let reader = SseReader::new(response.into_body(), self.max_bytes).opened_with(ack);
        Ok(Exchange::stream(reader))
    }
}

impl Link for HttpLink {
    fn send<'a>(&'a self, out: Outbound<'a>) -> BoxFuture<'a, Result<Exchange, ClientError>> {
        Box::pin(async move {
            let era = self.settle(&out.message, out.caller).await?;
            let mut message = out.message;
            let caller = out.caller;
            if let Era::Legacy { .. } = era {
                if message.get("method").and_then(Value::as_str) == Some("subscriptions/listen") {
                    return self.session_stream(&message, &era).await;
                }
                legacy_params(&mut message);
                return self.send_on_session(&message, era, caller).await;
            }
            let mut response = self
                .post_as(&message, &era, &out.param_headers, caller)
                .await?;
            if response.status() == StatusCode::UNAUTHORIZED
                && let Some(auth) = &self.auth
            {
                // The client's own token expired early or was revoked: a fresh one, once.
                auth.forget(caller);
                response = self
                    .post_as(&message, &era, &out.param_headers, caller)
                    .await?;
            }
            self.exchange_of(response).await
        })
    }

    fn reply(&self, response: Value) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            let era = self.era();
            let Value::Object(message) = response else {
                return Ok(());
            };
            let answered = self.post(&message, &era, &[]).await?;
            match answered.status() {
                s if s.is_success() => Ok(()),
                s => Err(ClientError::Protocol(format!(
                    "{} answered HTTP {s} to the client's response",
                    self.url
                ))),
            }
        })
    }

    fn revision(&self) -> Option<String> {
        match self.era() {
            Era::Unknown => None,
            Era::Modern => Some(LATEST_PROTOCOL_VERSION.to_owned()),
            Era::Legacy { version, .. } => Some(version),
        }
    }

    fn describe(&self) -> &str {
        &self.url
    }

    fn needs_caller_token(&self) -> bool {
        self.auth
            .as_ref()
            .is_some_and(Authorizer::needs_caller_token)
    }
}

/// A successful SSE response.
fn is_stream(response: &http::Response<hyper::body::Incoming>) -> bool {
    let kind = response.headers().get(CONTENT_TYPE);
    let kind = kind.and_then(|v| v.to_str().ok()).unwrap_or("");
    response.status().is_success() && kind.to_ascii_lowercase().starts_with("text/event-stream")
}

fn insert(headers: &mut HeaderMap, name: &str, value: &str) {
    if let (Ok(name), Ok(value)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
        headers.insert(name, value);
    }
}

/// An error with its sources, as one line ("connection refused" is usually the last).
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
