//! Typed client input: declarative inputs (`InputSet`, used by the macros), the answer types
//! (`Roots`, `Sampled`, `Elicitation<T>`), elicitation forms, and the continuation API for
//! dynamic multi-round flows (`Rounds`, `Ask`, `Step`).

use super::seal::{Binding, MAX_ROUNDS, Sealed, Sealer, now_ms};
use crate::context::RequestContext;
use crate::protocol::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitAction,
    ElicitRequestFormParams, ElicitRequestParams, ElicitResult, InputRequest, InputRequests,
    InputRequiredResult, ListRootsParams, ListRootsResult, ResultType, Root,
};
use crate::registry::{
    IntoPromptResult, IntoResourceResult, IntoToolResult, PromptOutcome, ResourceOutcome,
    ToolOutcome,
};
use crate::{FromContext, McpError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::marker::PhantomData;
use std::sync::Arc;

/// The MRTR data of one request: this round's answers and the opened state.
#[derive(Debug)]
pub struct InputData {
    pub(crate) responses: Map<String, Value>,
    pub(crate) previous: Option<Sealed>,
    pub(crate) binding: LazyBinding,
    pub(crate) sealer: Arc<Sealer>,
}

/// The binding of a request, computed (canonical JSON + SHA-256) only when a state is opened or
/// sealed: most requests never need it.
#[derive(Debug)]
pub(crate) struct LazyBinding {
    cell: std::sync::OnceLock<Binding>,
    method: &'static str,
    name: String,
    arguments: Value,
    caller: Option<String>,
}

impl LazyBinding {
    /// Computed now (a state is about to be opened against it).
    pub(crate) fn ready(binding: Binding) -> Self {
        let cell = std::sync::OnceLock::new();
        let _ = cell.set(binding);
        LazyBinding {
            cell,
            method: "",
            name: String::new(),
            arguments: Value::Null,
            caller: None,
        }
    }
    /// Computed on first use.
    pub(crate) fn later(
        method: &'static str,
        name: &str,
        arguments: &Value,
        caller: Option<&str>,
    ) -> Self {
        LazyBinding {
            cell: std::sync::OnceLock::new(),
            method,
            name: name.to_owned(),
            arguments: arguments.clone(),
            caller: caller.map(str::to_owned),
        }
    }
    pub(crate) fn get(&self) -> &Binding {
        self.cell.get_or_init(|| {
            Binding::new(
                self.method,
                &self.name,
                &self.arguments,
                self.caller.as_deref(),
            )
        })
    }
}

impl InputData {
    fn answer(&self, key: &str) -> Option<&Value> {
        self.responses
            .get(key)
            .or_else(|| self.previous.as_ref().and_then(|p| p.answers.get(key)))
    }
    fn round(&self) -> u32 {
        self.previous.as_ref().map_or(0, |p| p.round)
    }
    fn seal_next(&self, answers: Map<String, Value>, data: Value) -> Result<String, McpError> {
        let round = self.round() + 1;
        if round > MAX_ROUNDS {
            return Err(McpError::invalid_params(format!(
                "Invalid params: this request has taken {MAX_ROUNDS} rounds of client input, the most allowed"
            )));
        }
        self.sealer.seal(&Sealed {
            binding: self.binding.get().clone(),
            expires_ms: now_ms().saturating_add(self.sealer.ttl.as_millis() as u64),
            round,
            answers,
            data,
        })
    }
}

fn input_data(cx: &RequestContext) -> Result<&InputData, McpError> {
    cx.inner.input.get().ok_or_else(|| {
        McpError::internal(format!(
            "client input is only available to tools/call, prompts/get and resources/read (this is {})",
            cx.method()
        ))
    })
}

/// A value decoded from one entry of `inputResponses`.
pub trait FromAnswer: Sized {
    /// Decodes the answer stored under `key`.
    fn from_answer(key: &str, answer: &Value) -> Result<Self, McpError>;
}

fn malformed(key: &str, what: &str, e: impl std::fmt::Display) -> McpError {
    McpError::invalid_params(format!(
        "Invalid params: inputResponses[\"{key}\"] is not a valid {what}: {e}"
    ))
}

/// The client's roots (answer to `roots/list`).
///
/// ```
/// use mcp_runtime::Roots;
/// fn count(roots: &Roots) -> usize { roots.len() }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Roots(pub Vec<Root>);

impl std::ops::Deref for Roots {
    type Target = Vec<Root>;
    fn deref(&self) -> &Vec<Root> {
        &self.0
    }
}

impl FromAnswer for Roots {
    fn from_answer(key: &str, answer: &Value) -> Result<Self, McpError> {
        ListRootsResult::deserialize_value(answer)
            .map(|r| Roots(r.roots))
            .map_err(|e| malformed(key, "roots/list result", e))
    }
}

/// A message sampled from the client's model (answer to `sampling/createMessage`).
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled(pub CreateMessageResult);

impl Sampled {
    /// The text of the message.
    pub fn text(&self) -> String {
        self.0.content.text()
    }
    /// The model that produced it.
    pub fn model(&self) -> &str {
        &self.0.model
    }
}

impl FromAnswer for Sampled {
    fn from_answer(key: &str, answer: &Value) -> Result<Self, McpError> {
        CreateMessageResult::deserialize_value(answer)
            .map(Sampled)
            .map_err(|e| malformed(key, "sampling/createMessage result", e))
    }
}

/// The user's answer to an elicitation form of type `T`.
///
/// ```
/// use mcp_runtime::Elicitation;
/// fn goal(answer: Elicitation<String>) -> String {
///     match answer {
///         Elicitation::Accepted(g) => g,
///         Elicitation::Declined => "declined".into(),
///         Elicitation::Cancelled => "cancelled".into(),
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form.
    Accepted(T),
    /// The user explicitly refused.
    Declined,
    /// The user dismissed the request.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The form, if accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted(t) => Some(t),
            _ => None,
        }
    }
}

impl<T: ElicitForm> FromAnswer for Elicitation<T> {
    fn from_answer(key: &str, answer: &Value) -> Result<Self, McpError> {
        let result = ElicitResult::deserialize_value(answer)
            .map_err(|e| malformed(key, "elicitation result", e))?;
        Ok(match result.action {
            ElicitAction::Decline => Elicitation::Declined,
            ElicitAction::Cancel => Elicitation::Cancelled,
            ElicitAction::Accept => {
                let content = result.content.unwrap_or_default();
                Elicitation::Accepted(
                    T::from_content(content)
                        .map_err(|e| malformed(key, "answer to the requested form", e))?,
                )
            }
        })
    }
}

trait DeserializeValue: Sized {
    fn deserialize_value(v: &Value) -> Result<Self, serde_json::Error>;
}
impl<T: DeserializeOwned> DeserializeValue for T {
    fn deserialize_value(v: &Value) -> Result<Self, serde_json::Error> {
        T::deserialize(v)
    }
}

/// A form that can be elicited: a struct of flat primitive fields. Derive it with
/// `#[derive(serde::Deserialize, mcp_runtime::ElicitForm)]`.
pub trait ElicitForm: DeserializeOwned {
    /// The `requestedSchema` of the form.
    fn requested_schema() -> Map<String, Value>;
    /// Decodes the submitted `content`.
    fn from_content(content: Map<String, Value>) -> Result<Self, serde_json::Error> {
        serde_json::from_value(Value::Object(content))
    }
}

/// A field type allowed in an elicitation form (flat: strings, numbers, booleans, string enums).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a flat form field",
    note = "form fields are `String`, `bool`, integers, floats, a fieldless enum deriving `ElicitForm`, or an `Option` of one of these"
)]
pub trait FormField {
    /// The property schema.
    fn field_schema() -> Map<String, Value>;
    /// Whether the field may be left out.
    const OPTIONAL: bool = false;
}

fn typed(t: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), Value::from(t));
    m
}

macro_rules! form_fields {
    ($kind:literal: $($t:ty),*) => {$(
        impl FormField for $t {
            fn field_schema() -> Map<String, Value> {
                typed($kind)
            }
        }
    )*};
}
form_fields!("string": String);
form_fields!("boolean": bool);
form_fields!("integer": i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
form_fields!("number": f32, f64);

impl<T: FormField> FormField for Option<T> {
    fn field_schema() -> Map<String, Value> {
        T::field_schema()
    }
    const OPTIONAL: bool = true;
}

/// A one-field form holding a string (`{"value": "..."}`), for quick questions.
impl ElicitForm for String {
    fn requested_schema() -> Map<String, Value> {
        let mut props = Map::new();
        props.insert("value".into(), Value::Object(typed("string")));
        let mut m = typed("object");
        m.insert("properties".into(), Value::Object(props));
        m.insert("required".into(), Value::from(vec!["value"]));
        m
    }
    fn from_content(mut content: Map<String, Value>) -> Result<Self, serde_json::Error> {
        serde_json::from_value(content.remove("value").unwrap_or(Value::Null))
    }
}

/// Which client capability an input request needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Roots,
    Sampling,
    ElicitForm,
    ElicitUrl,
}

impl Need {
    fn declared(self, caps: &ClientCapabilities) -> bool {
        match self {
            Need::Roots => caps.roots.is_some(),
            Need::Sampling => caps.sampling.is_some(),
            Need::ElicitForm => caps.elicitation_form(),
            Need::ElicitUrl => caps.elicitation_url(),
        }
    }
    fn add_to(self, caps: &mut ClientCapabilities) {
        match self {
            Need::Roots => caps.roots = Some(Map::new()),
            Need::Sampling => caps.sampling = Some(Map::new()),
            Need::ElicitForm => {
                caps.elicitation.get_or_insert_with(Map::new);
            }
            Need::ElicitUrl => {
                caps.elicitation
                    .get_or_insert_with(Map::new)
                    .insert("url".into(), Value::Object(Map::new()));
            }
        }
    }
}

fn need_of(request: &InputRequest) -> Need {
    match request {
        InputRequest::Elicit(ElicitRequestParams::Url(_)) => Need::ElicitUrl,
        InputRequest::Elicit(_) => Need::ElicitForm,
        InputRequest::Sample(_) => Need::Sampling,
        InputRequest::ListRoots(_) => Need::Roots,
    }
}

fn missing_capability(missing: &[Need]) -> McpError {
    let mut caps = ClientCapabilities::default();
    for n in missing {
        n.add_to(&mut caps);
    }
    let names: Vec<&str> = missing
        .iter()
        .map(|n| match n {
            Need::Roots => "roots",
            Need::Sampling => "sampling",
            Need::ElicitForm => "elicitation",
            Need::ElicitUrl => "elicitation.url",
        })
        .collect();
    McpError::missing_capability(
        caps,
        format!(
            "This request needs client input the client did not declare: the {} capabilit{} in this request's clientCapabilities",
            names.join(", "),
            if names.len() == 1 { "y" } else { "ies" }
        ),
    )
}

fn elicit_request(message: &str, schema: Map<String, Value>) -> InputRequest {
    InputRequest::Elicit(ElicitRequestParams::Form(ElicitRequestFormParams {
        mode: Some("form".into()),
        message: message.to_owned(),
        requested_schema: schema,
        meta: None,
    }))
}

/// Parameters of a sampling request with one user message.
pub fn sample_params(
    prompt: &str,
    max_tokens: u64,
    system_prompt: Option<&str>,
) -> CreateMessageRequestParams {
    let mut p = CreateMessageRequestParams::prompt(prompt, max_tokens);
    p.system_prompt = system_prompt.map(str::to_owned);
    p
}

type Decoded = Box<dyn std::any::Any + Send>;

struct SlotSpec {
    key: &'static str,
    required: bool,
    request: InputRequest,
    decode: fn(&str, &Value) -> Result<Decoded, McpError>,
    /// The answer decoded by [`InputSet::finish`], handed out by [`InputSet::take`].
    decoded: Option<Decoded>,
}

fn decode_as<T: FromAnswer + Send + 'static>(key: &str, v: &Value) -> Result<Decoded, McpError> {
    T::from_answer(key, v).map(|t| Box::new(t) as Decoded)
}

/// A typed handle to one declared input, redeemed with [`InputSet::take`].
#[derive(Debug)]
pub struct Slot<T> {
    index: usize,
    _t: PhantomData<fn() -> T>,
}

/// The client inputs a handler declares (generated by the macros for `#[roots]`, `#[sample]`
/// and `#[elicit]` parameters). Everything missing is asked for at once; the body runs only when
/// every required answer is present.
pub struct InputSet {
    cx: RequestContext,
    slots: Vec<SlotSpec>,
}

impl std::fmt::Debug for InputSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputSet")
            .field("slots", &self.slots.len())
            .finish()
    }
}

impl InputSet {
    /// Starts declaring the inputs of the current request.
    pub fn new(cx: &RequestContext) -> Result<InputSet, McpError> {
        input_data(cx)?;
        Ok(InputSet {
            cx: cx.clone(),
            slots: Vec::new(),
        })
    }

    fn push<T: FromAnswer + Send + 'static>(
        &mut self,
        key: &'static str,
        required: bool,
        request: InputRequest,
    ) -> Slot<T> {
        self.slots.push(SlotSpec {
            key,
            required,
            request,
            decode: decode_as::<T>,
            decoded: None,
        });
        Slot {
            index: self.slots.len() - 1,
            _t: PhantomData,
        }
    }

    /// Declares a `roots/list` input.
    pub fn roots(&mut self, key: &'static str, required: bool) -> Slot<Roots> {
        self.push(
            key,
            required,
            InputRequest::ListRoots(Some(ListRootsParams::default())),
        )
    }

    /// Declares a `sampling/createMessage` input.
    pub fn sample(
        &mut self,
        key: &'static str,
        required: bool,
        params: CreateMessageRequestParams,
    ) -> Slot<Sampled> {
        self.push(key, required, InputRequest::Sample(params))
    }

    /// Declares a form elicitation.
    pub fn elicit<T: ElicitForm + Send + 'static>(
        &mut self,
        key: &'static str,
        required: bool,
        message: &str,
    ) -> Slot<Elicitation<T>> {
        self.push(
            key,
            required,
            elicit_request(message, T::requested_schema()),
        )
    }

    /// Checks the answers: `Ok(None)` when the body can run, `Ok(Some(result))` to ask the client
    /// for everything still missing, or `-32021` when a required input needs a capability the
    /// client did not declare.
    pub fn finish(&mut self) -> Result<Option<InputRequiredResult>, McpError> {
        let data = input_data(&self.cx)?;
        let caps = self.cx.client_capabilities();
        let mut asks = InputRequests::new();
        let mut missing = Vec::new();
        let mut answered = Vec::new();
        for slot in &mut self.slots {
            let need = need_of(&slot.request);
            match data.answer(slot.key) {
                Some(v) => {
                    slot.decoded = Some((slot.decode)(slot.key, v)?);
                    answered.push(slot.key);
                }
                None if need.declared(caps) => asks.insert(slot.key, slot.request.clone()),
                None if slot.required && !missing.contains(&need) => missing.push(need),
                None => {}
            }
        }
        if !missing.is_empty() {
            return Err(missing_capability(&missing));
        }
        if asks.is_empty() {
            return Ok(None);
        }
        // Answers given so far ride, sealed, to the next round (copied only when asking again).
        let answers = answered
            .into_iter()
            .filter_map(|k| data.answer(k).map(|v| (k.to_owned(), v.clone())))
            .collect();
        let data_value = data
            .previous
            .as_ref()
            .map_or(Value::Null, |p| p.data.clone());
        let state = data.seal_next(answers, data_value)?;
        Ok(Some(InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: Some(asks),
            request_state: Some(state),
            meta: None,
        }))
    }

    /// The answer of a required input (after [`finish`](Self::finish) returned `None`).
    pub fn take<T: FromAnswer + Send + 'static>(&mut self, slot: Slot<T>) -> Result<T, McpError> {
        self.take_optional(slot)?.ok_or_else(|| {
            McpError::internal("a required client input was not answered (finish() was not called)")
        })
    }

    /// The answer of an optional input: `None` when the client could not provide it.
    pub fn take_optional<T: FromAnswer + Send + 'static>(
        &mut self,
        slot: Slot<T>,
    ) -> Result<Option<T>, McpError> {
        let spec = &mut self.slots[slot.index];
        if let Some(done) = spec.decoded.take().and_then(|d| d.downcast::<T>().ok()) {
            return Ok(Some(*done));
        }
        // Not decoded yet (finish() was not called): decode now.
        let data = input_data(&self.cx)?;
        data.answer(spec.key)
            .map(|v| T::from_answer(spec.key, v))
            .transpose()
    }
}

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
            .insert(key, elicit_request(message, T::requested_schema()));
        self
    }
    /// Adds a form elicitation with an explicit schema.
    pub fn elicit_schema(mut self, key: &str, message: &str, schema: Map<String, Value>) -> Self {
        self.requests.insert(key, elicit_request(message, schema));
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
        input_data(cx)?;
        Ok(Rounds { cx: cx.clone() })
    }
}

impl Rounds {
    /// How many rounds came before this one (0 on the first call).
    pub fn round(&self) -> u32 {
        input_data(&self.cx).map_or(0, InputData::round)
    }
    /// The state carried from the previous round, if any.
    pub fn state<S: DeserializeOwned>(&self) -> Result<Option<S>, McpError> {
        let data = input_data(&self.cx)?;
        match &data.previous {
            Some(p) if !p.data.is_null() => S::deserialize(&p.data)
                .map(Some)
                .map_err(|e| McpError::internal(format!("the carried state does not decode: {e}"))),
            _ => Ok(None),
        }
    }
    /// This round's answer under `key`, decoded.
    pub fn answer<T: FromAnswer>(&self, key: &str) -> Result<Option<T>, McpError> {
        let data = input_data(&self.cx)?;
        data.responses
            .get(key)
            .map(|v| T::from_answer(key, v))
            .transpose()
    }
    /// Asks the client for `ask`, carrying `state` (sealed) to the next round. Fails with
    /// `-32021` when the client did not declare a capability the requests need.
    pub fn ask<T, S: Serialize>(&self, ask: Ask, state: &S) -> Result<Step<T>, McpError> {
        let data = input_data(&self.cx)?;
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
        let value = serde_json::to_value(state)
            .map_err(|e| McpError::internal(format!("the state could not be encoded: {e}")))?;
        let token = data.seal_next(Map::new(), value)?;
        Ok(Step::Ask(InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: (!ask.requests.is_empty()).then_some(ask.requests),
            request_state: Some(token),
            meta: None,
        }))
    }
}
