//! A request for a mounted server's primitive, relayed: sent with the front client's
//! capabilities, its progress and log messages passed back, and each `input_required` round
//! handed to the front client with the mounted server's `requestState` sealed inside this
//! server's own (bound to the caller, method and arguments like any other), so that no instance
//! keeps anything between rounds and any instance can take the retry.

use super::names::Naming;
use crate::client::{Client, ClientError};
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::{CallToolResult, InputRequiredResult, LoggingLevel, TASKS_EXTENSION};
use crate::registry::ToolOutcome;
use crate::seal::Answers;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// A mounted server as its relayed requests reach it.
pub(crate) struct Backend {
    /// The mount's name in errors and logs (its prefix, or the name it was given).
    pub(crate) name: String,
    pub(crate) client: Client,
    pub(crate) naming: Naming,
    /// Its `server/discover` advertised the tasks extension (last time it was fetched).
    pub(crate) offers_tasks: std::sync::atomic::AtomicBool,
    /// Its `server/discover` advertised resource subscriptions.
    pub(crate) offers_subscribe: std::sync::atomic::AtomicBool,
}

/// What a relayed request came back with.
pub(crate) enum Relayed {
    /// The mounted server's final result.
    Complete(Value),
    /// A round of client input, ready for the front client.
    Ask(InputRequiredResult),
}

/// The state this server seals around a mounted server's round: its `requestState`, and the
/// task a task tool's call is waiting on.
#[derive(serde::Serialize, serde::Deserialize, Default)]
pub(crate) struct Carried {
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<String>,
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    pub(crate) task: Option<String>,
}

impl Backend {
    /// The error a front client gets when the mounted server could not answer: it names the
    /// mount and the server, so one broken backend is told apart from the others.
    pub(crate) fn failed(&self, e: ClientError) -> McpError {
        match e {
            ClientError::Rpc(error) => {
                let legacy = self
                    .client
                    .revision()
                    .is_some_and(|r| r.starts_with("2025"));
                let about_input = ["elicit", "sampling", "roots"]
                    .iter()
                    .any(|w| error.message.to_ascii_lowercase().contains(w));
                // A 2025 session asks on the call's own stream, which no relay holds open (its
                // SDK may refuse by itself, seeing a session that declared no client input).
                let message = match legacy && (error.code == -32021 || about_input) {
                    true => format!(
                        "{} (the mounted server `{}` speaks a 2025 revision: through a relay it cannot ask for client input)",
                        error.message, self.name
                    ),
                    false => error.message,
                };
                let mut out = McpError::new(error.code, message);
                if let Some(data) = error.data {
                    out = out.with_data(data);
                }
                out
            }
            other => McpError::internal(format!(
                "the mounted server `{}` ({}) failed: {other}",
                self.name,
                self.client.server()
            )),
        }
    }

    /// A tool's result as the mounted server wrote it, read.
    pub(crate) fn tool_result(&self, result: Value) -> Result<ToolOutcome, McpError> {
        let result: CallToolResult = serde_json::from_value(result).map_err(|e| {
            McpError::internal(format!(
                "the mounted server `{}` answered a tool call in a shape this server does not read: {e}",
                self.name
            ))
        })?;
        Ok(ToolOutcome::Complete(result))
    }

    /// What this round carries from the last (inside this server's sealed state).
    pub(crate) fn carried(cx: &RequestContext) -> Carried {
        let Ok(input) = cx.input() else {
            return Carried::default();
        };
        input
            .previous
            .as_ref()
            .and_then(|p| p.data.as_deref())
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default()
    }

    /// The front client's answers of this round, as sent.
    pub(crate) fn answers(cx: &RequestContext) -> Map<String, Value> {
        let mut out = Map::new();
        if let Ok(input) = cx.input() {
            for (key, raw) in input.responses.iter() {
                if let Ok(value) = serde_json::from_str(raw.get()) {
                    out.insert(key.to_owned(), value);
                }
            }
        }
        out
    }

    /// Sends `method` with `params` to the mounted server on behalf of the request `cx`, with
    /// the mounted server's `state` of the last round (what `cx` carried). `tasks` keeps the tasks extension among the capabilities passed on (a task tool's call);
    /// otherwise the mounted server answers plainly and this server runs any task itself.
    pub(crate) async fn relay(
        &self,
        cx: &RequestContext,
        method: &str,
        mut params: Map<String, Value>,
        state: Option<String>,
        tasks: bool,
    ) -> Result<Relayed, McpError> {
        if let Some(state) = state {
            params.insert("requestState".into(), json!(state));
        }
        let answers = Backend::answers(cx);
        if !answers.is_empty() {
            params.insert("inputResponses".into(), Value::Object(answers));
        }
        params.insert("_meta".into(), Value::Object(self.meta(cx, tasks)));
        let result = self.call(cx, method, Value::Object(params)).await?;
        self.answer(cx, result, None)
    }

    /// Sends one request, passing progress and log messages back to `cx`'s client.
    pub(crate) async fn call(
        &self,
        cx: &RequestContext,
        method: &str,
        params: Value,
    ) -> Result<Value, McpError> {
        let progress = cx.progress();
        let logger = cx.logger().named(self.name.clone());
        let mut notified = |n: Value| match n["method"].as_str() {
            Some("notifications/progress") => {
                let p = &n["params"];
                if let Some(value) = p["progress"].as_f64() {
                    progress.report(value, p["total"].as_f64(), p["message"].as_str());
                }
            }
            Some("notifications/message") => {
                let p = &n["params"];
                if let Ok(level) = serde_json::from_value::<LoggingLevel>(p["level"].clone()) {
                    logger.log(level, p["data"].clone());
                }
            }
            _ => {}
        };
        let cancelled = cx.cancellation();
        tokio::select! {
            answered = self.client.request_as(method, params, cx.caller(), &mut notified) => {
                answered.map_err(|e| self.failed(e))
            }
            () = cancelled.cancelled() => Err(McpError::internal("the request was cancelled")),
        }
    }

    /// The mounted server's result as the front client gets it: a round of input sealed with
    /// what it must carry (the mounted server's state, and `task` when waiting on one).
    pub(crate) fn answer(
        &self,
        cx: &RequestContext,
        mut result: Value,
        task: Option<&str>,
    ) -> Result<Relayed, McpError> {
        if result["resultType"] != "input_required" {
            if let Some(obj) = result.as_object_mut() {
                obj.entry("resultType").or_insert_with(|| json!("complete"));
            }
            return Ok(Relayed::Complete(result));
        }
        let mut asked: InputRequiredResult = serde_json::from_value(result).map_err(|e| {
            McpError::internal(format!(
                "the mounted server `{}` asked for input in a shape this server does not read: {e}",
                self.name
            ))
        })?;
        let carried = Carried {
            state: asked.request_state.take(),
            task: task.map(str::to_owned),
        };
        let data = serde_json::to_string(&carried).unwrap_or_else(|_| "{}".into());
        let data = RawValue::from_string(data).map_err(|e| McpError::internal(e.to_string()))?;
        let input = cx.input()?;
        let token = input.seal_next(Answers::default(), Some(&data), cx.inner.round_span())?;
        asked.request_state = Some(token);
        asked.meta = None;
        Ok(Relayed::Ask(asked))
    }

    /// The `_meta` of a relayed request: the front client's capabilities (the tasks extension
    /// only when `tasks`), its client info, a progress token when it asked for progress, and
    /// its log level.
    fn meta(&self, cx: &RequestContext, tasks: bool) -> Map<String, Value> {
        let mut caps = cx.client_capabilities().clone();
        let extensions = caps.extensions.get_or_insert_with(Map::new);
        match tasks {
            // This server runs the task; the mounted server is followed as one of its own.
            true => extensions.insert(TASKS_EXTENSION.into(), json!({})),
            false => extensions.remove(TASKS_EXTENSION),
        };
        if extensions.is_empty() {
            caps.extensions = None;
        }
        let mut meta = Map::new();
        meta.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            serde_json::to_value(caps).unwrap_or_default(),
        );
        if let Some(info) = cx.client_info() {
            meta.insert(
                "io.modelcontextprotocol/clientInfo".into(),
                serde_json::to_value(info).unwrap_or_default(),
            );
        }
        if cx.progress().is_enabled() {
            meta.insert("progressToken".into(), json!("relay"));
        }
        if let Some(level) = cx.logger().level {
            meta.insert(
                "io.modelcontextprotocol/logLevel".into(),
                serde_json::to_value(level).unwrap_or_default(),
            );
        }
        meta
    }
}

/// Shared by every primitive of one mount.
pub(crate) type SharedBackend = Arc<Backend>;
