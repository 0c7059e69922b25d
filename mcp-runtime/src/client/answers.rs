//! What a client answers a server's requests for input with: the callbacks configured on it,
//! for an `input_required` round and for a 2025 session's own requests alike.

use super::error::ClientError;
use crate::protocol::{CreateMessageRequestParams, ElicitRequestParams, InputRequest};
use serde_json::{Map, Value, json};
use std::sync::Arc;

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

pub(crate) type ElicitFn = dyn Fn(&str, &Map<String, Value>) -> Elicited + Send + Sync;
pub(crate) type SampleFn = dyn Fn(&CreateMessageRequestParams) -> String + Send + Sync;

/// The answers a client is configured with.
#[derive(Default, Clone)]
pub(crate) struct Answers {
    pub(crate) elicit: Option<Arc<ElicitFn>>,
    pub(crate) sample: Option<Arc<SampleFn>>,
    pub(crate) roots: Option<Vec<String>>,
}

impl Answers {
    /// The answer to the input request `key`, from the callbacks.
    #[inline]
    pub(crate) fn answer(&self, key: &str, request: &InputRequest) -> Result<Value, ClientError> {
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

    /// The answer to a request a 2025-11-25 server sent on its session (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`, `ping`): from the same callbacks as an
    /// `input_required` round, or an error naming what the client lacks.
    #[cfg(feature = "client")]
    pub(crate) fn answer_server_request(&self, message: &Value) -> Value {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let method = message["method"].as_str().unwrap_or("");
        let answered = match method {
            "ping" => Ok(json!({})),
            "elicitation/create" | "sampling/createMessage" | "roots/list" => {
                let request = json!({"method": method, "params": message["params"]});
                serde_json::from_value::<InputRequest>(request)
                    .map_err(|e| ClientError::Unexpected(e.to_string()))
                    .and_then(|r| self.answer(method, &r))
            }
            other => Err(ClientError::Unexpected(format!(
                "unknown request `{other}`"
            ))),
        };
        match answered {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => {
                // Said to the server, which passes it on: a relay (a gateway) has no callbacks,
                // and a 2025 session's request cannot wait for its own client's next round.
                let message = format!(
                    "{e} (a client relaying to its own client cannot answer a 2025 server's `{method}`: the request would have to be held open)"
                );
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": message}})
            }
        }
    }
}
