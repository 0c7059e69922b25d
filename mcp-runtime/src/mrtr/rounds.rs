//! Dynamic multi-round flows: a handler reads earlier answers and its own typed state through
//! [`Rounds`], and asks for more with an [`Ask`], returning a [`Step`].

use super::answers::{FromAnswer, decode};
use super::form::{ElicitForm, elicit_request};
use super::needs::{missing_capability, need_of};
use crate::context::{FromContext, RequestContext};
use crate::error::{McpError, without_position};
use crate::protocol::{
    CreateMessageRequestParams, InputRequest, InputRequests, InputRequiredResult, ListRootsParams,
    ResultType,
};
use crate::registry::{
    IntoPromptResult, IntoResourceResult, IntoToolResult, PromptOutcome, ResourceOutcome,
    ToolOutcome,
};
use crate::seal::{Answers, InputData};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The result of one round of a dynamic flow: done, or ask the client for more.
#[derive(Debug, Clone)]
pub enum Step<T> {
    /// The final value.
    Done(T),
    /// An `input_required` result.
    Ask(InputRequiredResult),
}

impl<T: IntoToolResult> IntoToolResult for Step<T> {
    fn into_tool_result(self) -> Result<ToolOutcome, McpError> {
        match self {
            Step::Done(v) => v.into_tool_result(),
            Step::Ask(r) => Ok(ToolOutcome::InputRequired(r)),
        }
    }
    fn output_schema() -> Option<Map<String, Value>> {
        T::output_schema()
    }
}

impl<T: IntoPromptResult> IntoPromptResult for Step<T> {
    fn into_prompt_result(self) -> Result<PromptOutcome, McpError> {
        match self {
            Step::Done(v) => v.into_prompt_result(),
            Step::Ask(r) => Ok(PromptOutcome::InputRequired(r)),
        }
    }
}

impl<T: IntoResourceResult> IntoResourceResult for Step<T> {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ResourceOutcome, McpError> {
        match self {
            Step::Done(v) => v.into_resource_result(uri, mime),
            Step::Ask(r) => Ok(ResourceOutcome::InputRequired(r)),
        }
    }
}

/// The input requests of one round of a dynamic flow.
///
/// ```
/// use mcp_runtime::Ask;
/// let ask = Ask::new()
///     .elicit::<String>("name", "What is your name?")
///     .roots("where");
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct Ask {
    requests: InputRequests,
}

impl Ask {
    /// No requests yet (a `requestState`-only round when sent as is).
    pub fn new() -> Self {
        Ask::default()
    }
    /// Adds a form elicitation.
    pub fn elicit<T: ElicitForm>(mut self, key: &str, message: &str) -> Self {
        self.requests
            .insert(key, elicit_request(message, T::shared_schema()));
        self
    }
    /// Adds a form elicitation with an explicit schema.
    pub fn elicit_schema(mut self, key: &str, message: &str, schema: Map<String, Value>) -> Self {
        self.requests
            .insert(key, elicit_request(message, Arc::new(schema)));
        self
    }
    /// Adds a sampling request.
    pub fn sample(mut self, key: &str, params: CreateMessageRequestParams) -> Self {
        self.requests.insert(key, InputRequest::Sample(params));
        self
    }
    /// Adds a roots request.
    pub fn roots(mut self, key: &str) -> Self {
        self.requests.insert(
            key,
            InputRequest::ListRoots(Some(ListRootsParams::default())),
        );
        self
    }
    /// Adds any input request.
    pub fn request(mut self, key: &str, request: InputRequest) -> Self {
        self.requests.insert(key, request);
        self
    }
}

/// The continuation API of dynamic multi-round flows: read earlier answers and your own typed
/// state, and ask for more. Use it as a context parameter (`#[ctx] rounds: Rounds`).
///
/// ```
/// use mcp_runtime::{Ask, Elicitation, McpError, Rounds, Step};
/// async fn wizard(rounds: Rounds) -> Result<Step<String>, McpError> {
///     let step: u32 = rounds.state()?.unwrap_or(0);
///     match (step, rounds.answer::<Elicitation<String>>("name")?) {
///         (0, _) => rounds.ask(Ask::new().elicit::<String>("name", "Your name?"), &1u32),
///         (_, Some(Elicitation::Accepted(name))) => Ok(Step::Done(format!("Hello, {name}"))),
///         _ => Ok(Step::Done("Never mind.".into())),
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Rounds {
    cx: RequestContext,
}

impl FromContext for Rounds {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        cx.input()?;
        Ok(Rounds { cx: cx.clone() })
    }
    fn asks_client_input() -> bool {
        true
    }
}

impl Rounds {
    /// How many rounds came before this one (0 on the first call).
    pub fn round(&self) -> u32 {
        self.cx.input().map_or(0, InputData::round)
    }
    /// The state carried from the previous round, if any.
    pub fn state<S: DeserializeOwned>(&self) -> Result<Option<S>, McpError> {
        let data = self.cx.input()?;
        match data.previous.as_ref().and_then(|p| p.data.as_deref()) {
            Some(raw) => decode::<S>(raw).map(Some).map_err(|e| {
                McpError::internal(format!(
                    "the carried state does not decode: {}",
                    without_position(&e)
                ))
            }),
            None => Ok(None),
        }
    }
    /// This round's answer under `key`, decoded.
    pub fn answer<T: FromAnswer>(&self, key: &str) -> Result<Option<T>, McpError> {
        let data = self.cx.input()?;
        data.responses
            .get(key)
            .map(|v| T::from_answer(key, v))
            .transpose()
    }
    /// Asks the client for `ask`, carrying `state` (sealed) to the next round. Fails with
    /// `-32021` when the client did not declare a capability the requests need.
    pub fn ask<T, S: Serialize>(&self, ask: Ask, state: &S) -> Result<Step<T>, McpError> {
        let data = self.cx.input()?;
        let caps = self.cx.client_capabilities();
        let mut missing = Vec::new();
        for (_, r) in ask.requests.iter() {
            let need = need_of(r);
            if !need.declared(caps) && !missing.contains(&need) {
                missing.push(need);
            }
        }
        if !missing.is_empty() {
            return Err(missing_capability(&missing));
        }
        let encoded = serde_json::to_string(state)
            .map_err(|e| McpError::internal(format!("the state could not be encoded: {e}")))?;
        let value =
            if encoded == "null" {
                None
            } else {
                Some(RawValue::from_string(encoded).map_err(|e| {
                    McpError::internal(format!("the state could not be encoded: {e}"))
                })?)
            };
        let token = data.seal_next(
            Answers::default(),
            value.as_deref(),
            self.cx.inner.round_span(),
        )?;
        Ok(Step::Ask(InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: (!ask.requests.is_empty()).then_some(ask.requests),
            request_state: Some(token),
            meta: None,
        }))
    }
}
