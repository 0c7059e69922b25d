//! A server run as a child process, spoken to over stdio: one line a message, a writer task and
//! a reader task that routes each message to the request it belongs to (a response by its id,
//! progress by its token, a listen stream's events by their subscription id, a 2026-07-28 log
//! message to the one request that asked for log messages, anything else to the one request
//! waiting beside any listen streams; a message that names none of them when several could take
//! it is dropped rather than given to the wrong one).

use super::error::ClientError;
use super::link::{Exchange, Incoming, Link, Messages, Outbound};
use super::session::{legacy_params, session_meta};
use super::settings::{Revision, Settings};
use super::sse::classify;
use crate::protocol::LATEST_PROTOCOL_VERSION;
use crate::registry::BoxFuture;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};
use tokio::sync::mpsc;

type Route = mpsc::Sender<Result<Incoming, ClientError>>;

/// What the reader task and the requests share.
struct Shared {
    /// Requests waiting, by their id as JSON text.
    waiting: Mutex<HashMap<String, Route>>,
    /// Progress tokens (as JSON text) of waiting requests, to their ids.
    tokens: Mutex<HashMap<String, String>>,
    /// The ids of the waiting requests that are listen streams: their events carry their
    /// subscription id, so a message that names no request is never theirs.
    listens: Mutex<HashSet<String>>,
    /// The ids of the waiting requests that asked for log messages (`logLevel` in their
    /// `_meta`): on 2026-07-28 a log message goes to one of them only, never to a request that
    /// did not ask (a mount's list fetches run beside the calls it relays).
    logging: Mutex<HashSet<String>>,
    /// Lines to write to the child's stdin.
    lines: mpsc::Sender<Vec<u8>>,
    /// Why the process can no longer be spoken to, once it cannot.
    gone: Mutex<Option<String>>,
    /// The revision spoken, once known.
    revision: Mutex<Option<(String, bool)>>,
}

pub(crate) struct StdioLink {
    shared: Arc<Shared>,
    describe: String,
    wanted: Revision,
    opening: tokio::sync::Mutex<()>,
    _child: Mutex<Child>,
}

impl StdioLink {
    pub(crate) fn spawn(
        command: &str,
        args: &[String],
        remote: &Settings,
    ) -> Result<StdioLink, ClientError> {
        let mut cmd = Command::new(command);
        cmd.args(args)
            .envs(remote.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let describe = std::iter::once(command)
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let mut child = cmd.spawn().map_err(|e| {
            ClientError::Unreachable(format!("`{describe}` could not be started: {e}"))
        })?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Unreachable(format!(
                "`{describe}` has no stdin or stdout"
            )));
        };
        let (lines, mut to_write) = mpsc::channel::<Vec<u8>>(256);
        let shared = Arc::new(Shared {
            waiting: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            listens: Mutex::new(HashSet::new()),
            logging: Mutex::new(HashSet::new()),
            lines,
            gone: Mutex::new(None),
            revision: Mutex::new(match remote.revision {
                Revision::Modern => Some((LATEST_PROTOCOL_VERSION.to_owned(), true)),
                _ => None,
            }),
        });
        tokio::spawn(async move {
            while let Some(mut line) = to_write.recv().await {
                line.push(b'\n');
                if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        tokio::spawn(read(stdout, shared.clone(), remote.max_message_bytes));
        Ok(StdioLink {
            shared,
            describe,
            wanted: remote.revision.clone(),
            opening: tokio::sync::Mutex::new(()),
            _child: Mutex::new(child),
        })
    }

    fn known(&self) -> Option<(String, bool)> {
        super::link::lock(&self.shared.revision).clone()
    }

    /// The revision, found on the first request: `server/discover` answered in time (or with a
    /// 2026 error) means 2026-07-28; anything else, a 2025 session opened with `initialize`.
    async fn settle(&self, first: &Map<String, Value>) -> Result<bool, ClientError> {
        if let Some((_, modern)) = self.known() {
            return Ok(modern);
        }
        let _once = self.opening.lock().await;
        if let Some((_, modern)) = self.known() {
            return Ok(modern);
        }
        let modern = match &self.wanted {
            Revision::Legacy(_) => false,
            _ => {
                let mut probe = Map::new();
                probe.insert("jsonrpc".into(), json!("2.0"));
                probe.insert("id".into(), json!("mcp-runtime-probe"));
                probe.insert("method".into(), json!("server/discover"));
                let meta = first["params"]["_meta"].clone();
                probe.insert("params".into(), json!({"_meta": meta}));
                let answer = tokio::time::timeout(Duration::from_secs(5), self.whole(probe)).await;
                match answer {
                    Ok(Ok(answer)) => answer.get("result").is_some(),
                    Ok(Err(e)) => return Err(e),
                    Err(_) => false,
                }
            }
        };
        if modern {
            *super::link::lock(&self.shared.revision) =
                Some((LATEST_PROTOCOL_VERSION.to_owned(), true));
            return Ok(true);
        }
        let version = match &self.wanted {
            Revision::Legacy(v) => v.clone(),
            _ => "2025-11-25".to_owned(),
        };
        let (caps, info) = session_meta(first);
        let mut init = Map::new();
        init.insert("jsonrpc".into(), json!("2.0"));
        init.insert("id".into(), json!("mcp-runtime-initialize"));
        init.insert("method".into(), json!("initialize"));
        init.insert(
            "params".into(),
            json!({"protocolVersion": version, "capabilities": caps, "clientInfo": info}),
        );
        let answer = self.whole(init).await?;
        let Some(negotiated) = answer["result"]["protocolVersion"].as_str() else {
            return Err(ClientError::Protocol(format!(
                "`{}` speaks neither 2026-07-28 nor {version} (initialize answered {answer})",
                self.describe
            )));
        };
        *super::link::lock(&self.shared.revision) = Some((negotiated.to_owned(), false));
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.write(&initialized).await?;
        Ok(false)
    }

    /// Sends `message` and waits for its response.
    async fn whole(&self, message: Map<String, Value>) -> Result<Value, ClientError> {
        let mut exchange = self.start(message).await?;
        loop {
            match exchange.next().await? {
                Some(Incoming::Response(answer)) => return Ok(answer),
                Some(_) => continue,
                None => return Err(ClientError::Protocol("no response".into())),
            }
        }
    }

    async fn start(&self, message: Map<String, Value>) -> Result<Exchange, ClientError> {
        let id = message.get("id").map(Value::to_string).unwrap_or_default();
        let token = message
            .get("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"))
            .map(Value::to_string);
        let (tx, rx) = mpsc::channel(64);
        super::link::lock(&self.shared.waiting).insert(id.clone(), tx);
        if let Some(token) = &token {
            super::link::lock(&self.shared.tokens).insert(token.clone(), id.clone());
        }
        if message.get("method").and_then(Value::as_str) == Some("subscriptions/listen") {
            super::link::lock(&self.shared.listens).insert(id.clone());
        }
        let meta = message.get("params").and_then(|p| p.get("_meta"));
        if meta.is_some_and(|m| m.get("io.modelcontextprotocol/logLevel").is_some()) {
            super::link::lock(&self.shared.logging).insert(id.clone());
        }
        let routed = Routed {
            rx,
            id,
            token,
            shared: self.shared.clone(),
            done: false,
        };
        self.write(&Value::Object(message)).await?;
        Ok(Exchange::stream(routed))
    }

    async fn write(&self, message: &Value) -> Result<(), ClientError> {
        if let Some(why) = super::link::lock(&self.shared.gone).clone() {
            return Err(ClientError::Unreachable(format!(
                "`{}` {why}",
                self.describe
            )));
        }
        let line = serde_json::to_vec(message).unwrap_or_default();
        self.shared.lines.send(line).await.map_err(|_| {
            ClientError::Unreachable(format!("`{}` no longer reads its stdin", self.describe))
        })
    }
}

impl Link for StdioLink {
    fn send<'a>(&'a self, out: Outbound<'a>) -> BoxFuture<'a, Result<Exchange, ClientError>> {
        Box::pin(async move {
            let modern = self.settle(&out.message).await?;
            let mut message = out.message;
            if !modern {
                legacy_params(&mut message);
            }
            self.start(message).await
        })
    }

    fn reply(&self, response: Value) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move { self.write(&response).await })
    }

    fn revision(&self) -> Option<String> {
        self.known().map(|(v, _)| v)
    }

    fn describe(&self) -> &str {
        &self.describe
    }
}

/// The messages of one request, routed to it by the reader task.
pub(crate) struct Routed {
    rx: mpsc::Receiver<Result<Incoming, ClientError>>,
    id: String,
    token: Option<String>,
    shared: Arc<Shared>,
    done: bool,
}

impl Routed {
    pub(crate) async fn next(&mut self) -> Result<Option<Incoming>, ClientError> {
        if self.done {
            return Ok(None);
        }
        match self.rx.recv().await {
            Some(Ok(message)) => {
                if matches!(message, Incoming::Response(_)) {
                    self.done = true;
                }
                Ok(Some(message))
            }
            Some(Err(e)) => {
                self.done = true;
                Err(e)
            }
            None => {
                self.done = true;
                Err(ClientError::Unreachable("the process exited".into()))
            }
        }
    }
}

impl Messages for Routed {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Incoming>, ClientError>> {
        Box::pin(Routed::next(self))
    }
}

impl Drop for Routed {
    fn drop(&mut self) {
        super::link::lock(&self.shared.waiting).remove(&self.id);
        super::link::lock(&self.shared.listens).remove(&self.id);
        super::link::lock(&self.shared.logging).remove(&self.id);
        if let Some(token) = &self.token {
            super::link::lock(&self.shared.tokens).remove(token);
        }
        if !self.done {
            // Abandoned before its response: tell the server (stdio's cancellation).
            if let Ok(id) = serde_json::from_str::<Value>(&self.id) {
                let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
                let _ = self
                    .shared
                    .lines
                    .try_send(serde_json::to_vec(&cancel).unwrap_or_default());
            }
        }
    }
}

/// Reads the child's stdout, one message a line (at most `limit` bytes), and routes each.
async fn read(stdout: ChildStdout, shared: Arc<Shared>, limit: usize) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    let why = loop {
        line.clear();
        let mut limited = (&mut reader).take(limit as u64 + 1);
        match limited.read_until(b'\n', &mut line).await {
            Ok(0) => break "exited".to_owned(),
            Ok(_) if line.len() > limit && line.last() != Some(&b'\n') => {
                break format!("wrote a message larger than the client reads ({limit} bytes)");
            }
            Ok(_) => {}
            Err(e) => break format!("could not be read: {e}"),
        }
        let Ok(message) = crate::json::from_bytes::<Value>(&line) else {
            continue; // not a message (a stray line of output)
        };
        route(&shared, classify(message)).await;
    };
    *super::link::lock(&shared.gone) = Some(why.clone());
    let waiting: Vec<Route> = super::link::lock(&shared.waiting)
        .drain()
        .map(|(_, r)| r)
        .collect();
    for route in waiting {
        let _ = route
            .send(Err(ClientError::Unreachable(format!("the process {why}"))))
            .await;
    }
}

async fn route(shared: &Shared, message: Incoming) {
    let id = match &message {
        Incoming::Response(m) => m.get("id").map(Value::to_string),
        Incoming::Notification(m) => {
            let params = &m["params"];
            if let Some(token) = params.get("progressToken") {
                super::link::lock(&shared.tokens)
                    .get(&token.to_string())
                    .cloned()
            } else if let Some(sub) = params["_meta"].get("io.modelcontextprotocol/subscriptionId")
            {
                Some(sub.to_string())
            } else if m["method"] == "notifications/message" && modern(shared) {
                only_logging(shared)
            } else {
                only_waiting(shared)
            }
        }
        Incoming::Request(_) => only_waiting(shared),
    };
    let Some(id) = id else { return };
    let route = super::link::lock(&shared.waiting).get(&id).cloned();
    if let Some(route) = route {
        let _ = route.send(Ok(message)).await;
    }
}

/// Whether the link speaks 2026-07-28 (where each request asks for its own log messages).
fn modern(shared: &Shared) -> bool {
    super::link::lock(&shared.revision)
        .as_ref()
        .is_some_and(|(_, modern)| *modern)
}

/// The id of the one request waiting that asked for log messages, when exactly one did.
fn only_logging(shared: &Shared) -> Option<String> {
    let logging = super::link::lock(&shared.logging);
    let mut asked = logging.iter();
    match (asked.next(), asked.next()) {
        (Some(id), None) => Some(id.clone()),
        _ => None,
    }
}

/// The id of the one request waiting, when exactly one is (listen streams, held open beside
/// requests, not counted).
fn only_waiting(shared: &Shared) -> Option<String> {
    let waiting = super::link::lock(&shared.waiting);
    let listens = super::link::lock(&shared.listens);
    let mut requests = waiting.keys().filter(|id| !listens.contains(*id));
    match (requests.next(), requests.next()) {
        (Some(id), None) => Some(id.clone()),
        _ => None,
    }
}
