//! Typed client input: declarative inputs (`InputSet`, used by the macros), the answer types
//! (`Roots`, `Sampled`, `Elicitation<T>`), elicitation forms, and the continuation API for
//! dynamic multi-round flows (`Rounds`, `Ask`, `Step`).

use super::seal::{Answers, Binding, MAX_ROUNDS, Sealed, SealedOut, Sealer, now_ms};
use crate::context::RequestContext;
use crate::protocol::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitAction,
    ElicitRequestFormParams, ElicitRequestParams, InputRequest, InputRequests, InputRequiredResult,
    ListRootsParams, ListRootsResult, ResultType, Root,
};
use crate::registry::{
    IntoPromptResult, IntoResourceResult, IntoToolResult, PromptOutcome, ResourceOutcome,
    ToolOutcome,
};
use crate::{FromContext, McpError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The MRTR data of one request: this round's answers and the opened state.
#[derive(Debug)]
pub struct InputData {
    pub(crate) responses: Responses,
    pub(crate) previous: Option<Sealed>,
    pub(crate) binding: LazyBinding,
    pub(crate) sealer: Arc<Sealer>,
}

/// Answers by input key, each kept as the JSON text the client sent (or that an earlier round
/// sealed): an answer is decoded only into the type its handler asks for. The last of duplicate
/// keys wins.
#[derive(Debug, Default)]
pub(crate) struct Responses(Vec<(String, Box<RawValue>)>);

impl Responses {
    /// Adds an answer (a later one under the same key wins).
    pub(crate) fn push(&mut self, key: String, value: Box<RawValue>) {
        self.0.push((key, value));
    }
    /// The answer under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&RawValue> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| &**v)
    }
}

impl<'de> Deserialize<'de> for Responses {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ResponsesVisitor;
        impl<'de> serde::de::Visitor<'de> for ResponsesVisitor {
            type Value = Responses;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Responses, A::Error> {
                let mut entries = Vec::with_capacity(a.size_hint().unwrap_or(0).min(16));
                while let Some(entry) = a.next_entry::<String, Box<RawValue>>()? {
                    entries.push(entry);
                }
                Ok(Responses(entries))
            }
        }
        d.deserialize_map(ResponsesVisitor)
    }
}

/// Reads `inputResponses` (absent or `null`: no answers) in one pass, keeping each answer as
/// raw JSON.
pub(crate) fn parse_responses(raw: Option<&RawValue>) -> Result<Responses, McpError> {
    let not_an_object = || {
        McpError::invalid_params(
            "Invalid params: `inputResponses` must be an object keyed by the input request keys",
        )
    };
    let Some(raw) = raw else {
        return Ok(Responses::default());
    };
    let text = raw.get().trim_start();
    match text.as_bytes().first() {
        Some(b'n') => Ok(Responses::default()),
        Some(b'{') => serde_json::from_str(text).map_err(|_| not_an_object()),
        _ => Err(not_an_object()),
    }
}

/// The binding of a request, computed (canonical JSON + SHA-256) only when a state is opened or
/// sealed: most requests never need it.
#[derive(Debug)]
pub(crate) enum LazyBinding {
    /// Already computed (a state was opened against it).
    Ready(Binding),
    /// Computed on first use.
    Later {
        cell: OnceLock<Binding>,
        method: &'static str,
        name: Arc<str>,
        arguments: Arc<str>,
        caller: Option<String>,
    },
}

impl LazyBinding {
    /// Computed now (a state is about to be opened against it).
    pub(crate) fn ready(binding: Binding) -> Self {
        LazyBinding::Ready(binding)
    }
    /// Computed on first use. `arguments` is the arguments' JSON text as sent (`{}` when absent).
    pub(crate) fn later(
        method: &'static str,
        name: Arc<str>,
        arguments: Arc<str>,
        caller: Option<&str>,
    ) -> Self {
        LazyBinding::Later {
            cell: OnceLock::new(),
            method,
            name,
            arguments,
            caller: caller.map(str::to_owned),
        }
    }
    pub(crate) fn get(&self) -> &Binding {
        match self {
            LazyBinding::Ready(b) => b,
            LazyBinding::Later {
                cell,
                method,
                name,
                arguments,
                caller,
            } => cell.get_or_init(|| Binding::new(method, name, arguments, caller.as_deref())),
        }
    }
}

impl InputData {
    fn answer(&self, key: &str) -> Option<&RawValue> {
        self.responses
            .get(key)
            .or_else(|| self.previous.as_ref().and_then(|p| p.answers.get(key)))
    }
    fn round(&self) -> u32 {
        self.previous.as_ref().map_or(0, |p| p.round)
    }
    fn seal_next(&self, answers: Answers<'_>, data: Option<&RawValue>) -> Result<String, McpError> {
        let round = self.round() + 1;
        if round > MAX_ROUNDS {
            return Err(McpError::invalid_params(format!(
                "Invalid params: this request has taken {MAX_ROUNDS} rounds of client input, the most allowed"
            )));
        }
        self.sealer.seal(&SealedOut {
            binding: self.binding.get(),
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

/// A value decoded from one entry of `inputResponses`, straight from the JSON text the client
/// sent.
///
/// ```
/// use mcp_runtime::McpError;
/// use mcp_runtime::mrtr::FromAnswer;
/// use serde_json::value::RawValue;
///
/// /// How many roots the client has.
/// struct RootCount(usize);
///
/// impl FromAnswer for RootCount {
///     fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError> {
///         #[derive(serde::Deserialize)]
///         struct List {
///             roots: Vec<serde::de::IgnoredAny>,
///         }
///         serde_json::from_str::<List>(answer.get())
///             .map(|l| RootCount(l.roots.len()))
///             .map_err(|e| McpError::invalid_params(format!("inputResponses[\"{key}\"]: {e}")))
///     }
/// }
///
/// let answer = RawValue::from_string(r#"{"roots": [{"uri": "file:///a"}]}"#.into()).unwrap();
/// assert_eq!(RootCount::from_answer("scope", &answer).unwrap().0, 1);
/// ```
pub trait FromAnswer: Sized {
    /// Decodes the answer stored under `key` (its raw JSON text).
    fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError>;
}

/// Decodes raw JSON into `T`.
fn decode<'a, T: Deserialize<'a>>(raw: &'a RawValue) -> Result<T, serde_json::Error> {
    serde_json::from_str(raw.get())
}

/// A decoding error worded as for an in-memory value: without its position in the text (the
/// position in one answer's text means nothing to the client).
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if e.line() == 0 {
        return text;
    }
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(t) => t.to_owned(),
        None => text,
    }
}

fn malformed(key: &str, what: &str, e: &serde_json::Error) -> McpError {
    McpError::invalid_params(format!(
        "Invalid params: inputResponses[\"{key}\"] is not a valid {what}: {}",
        without_position(e)
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
    fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError> {
        decode::<ListRootsResult>(answer)
            .map(|r| Roots(r.roots))
            .map_err(|e| malformed(key, "roots/list result", &e))
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
    fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError> {
        // The usual answer, one text block and nothing else, is read directly; any other shape
        // (and every malformed one) goes through the general, untagged reading.
        if let Ok(plain) = decode::<PlainSample>(answer) {
            return Ok(Sampled(plain.into()));
        }
        decode::<CreateMessageResult>(answer)
            .map(Sampled)
            .map_err(|e| malformed(key, "sampling/createMessage result", &e))
    }
}

/// A sampling answer of exactly one text block (read without serde's untagged buffering).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PlainSample {
    role: crate::protocol::Role,
    content: PlainText,
    model: String,
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainText {
    #[serde(rename = "type")]
    _kind: TextTag,
    text: String,
}

#[derive(Deserialize)]
enum TextTag {
    #[serde(rename = "text")]
    Text,
}

impl From<PlainSample> for CreateMessageResult {
    fn from(p: PlainSample) -> Self {
        CreateMessageResult {
            role: p.role,
            content: crate::protocol::SamplingContent::One(
                crate::protocol::SamplingBlock::Content(crate::protocol::Content::text(
                    p.content.text,
                )),
            ),
            model: p.model,
            stop_reason: p.stop_reason,
            meta: None,
        }
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

/// An `elicitation/create` answer with its `content` left as raw JSON (decoded by the form). Named
/// like [`crate::protocol::ElicitResult`] so that decoding errors read the same.
#[derive(Deserialize)]
struct ElicitResult<'a> {
    action: ElicitAction,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(rename = "_meta", default)]
    _meta: Option<Map<String, Value>>,
}

/// `{}`: the content of an accepted answer that has none.
fn empty_object() -> &'static RawValue {
    static EMPTY: OnceLock<Box<RawValue>> = OnceLock::new();
    EMPTY.get_or_init(|| RawValue::from_string("{}".to_owned()).expect("`{}` is JSON"))
}

impl<T: ElicitForm> FromAnswer for Elicitation<T> {
    fn from_answer(key: &str, answer: &RawValue) -> Result<Self, McpError> {
        let result: ElicitResult<'_> =
            decode(answer).map_err(|e| malformed(key, "elicitation result", &e))?;
        if let Some(content) = result.content
            && !content.get().trim_start().starts_with('{')
        {
            // Worded as when `content` is decoded as an object.
            if let Err(e) = decode::<Map<String, Value>>(content) {
                return Err(malformed(key, "elicitation result", &e));
            }
        }
        Ok(match result.action {
            ElicitAction::Decline => Elicitation::Declined,
            ElicitAction::Cancel => Elicitation::Cancelled,
            ElicitAction::Accept => {
                let content: &RawValue = match result.content {
                    Some(c) => c,
                    None => empty_object(),
                };
                Elicitation::Accepted(
                    T::from_content(content)
                        .map_err(|e| malformed(key, "answer to the requested form", &e))?,
                )
            }
        })
    }
}

/// A form that can be elicited: a struct of flat primitive fields. Derive it with
/// `#[derive(serde::Deserialize, mcp_runtime::ElicitForm)]`.
///
/// ```
/// use mcp_runtime::ElicitForm;
/// use serde_json::value::RawValue;
///
/// #[derive(serde::Deserialize, ElicitForm)]
/// struct Goal {
///     /// What to look for.
///     goal: String,
/// }
///
/// let schema = Goal::shared_schema();
/// assert_eq!(schema["required"], serde_json::json!(["goal"]));
/// // Built once per type: every call shares it.
/// assert!(std::sync::Arc::ptr_eq(&schema, &Goal::shared_schema()));
/// let content = RawValue::from_string(r#"{"goal": "risks"}"#.into()).unwrap();
/// assert_eq!(Goal::from_content(&content).unwrap().goal, "risks");
/// ```
pub trait ElicitForm: DeserializeOwned {
    /// The `requestedSchema` of the form.
    fn requested_schema() -> Map<String, Value>;
    /// The `requestedSchema`, shared: the derive builds it once per type and hands out the same
    /// one each time (this default builds it on every call).
    fn shared_schema() -> Arc<Map<String, Value>> {
        Arc::new(Self::requested_schema())
    }
    /// Decodes the submitted `content` (a JSON object, as raw text).
    fn from_content(content: &RawValue) -> Result<Self, serde_json::Error> {
        decode(content)
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
    fn shared_schema() -> Arc<Map<String, Value>> {
        static SCHEMA: OnceLock<Arc<Map<String, Value>>> = OnceLock::new();
        SCHEMA
            .get_or_init(|| Arc::new(Self::requested_schema()))
            .clone()
    }
    fn from_content(content: &RawValue) -> Result<Self, serde_json::Error> {
        #[derive(Deserialize)]
        struct One {
            #[serde(default)]
            value: Option<String>,
        }
        decode::<One>(content)?
            .value
            .ok_or_else(|| serde::de::Error::invalid_type(serde::de::Unexpected::Unit, &"a string"))
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

fn elicit_request(message: &str, schema: Arc<Map<String, Value>>) -> InputRequest {
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

struct SlotSpec {
    key: &'static str,
    required: bool,
    need: Need,
    /// The request, handed over to the `input_required` result when it is asked.
    request: Option<InputRequest>,
    /// Checks an answer by decoding it into the slot's type.
    check: fn(&str, &RawValue) -> Result<(), McpError>,
}

fn check_as<T: FromAnswer>(key: &str, v: &RawValue) -> Result<(), McpError> {
    T::from_answer(key, v).map(drop)
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
        InputSet::with_capacity(cx, 0)
    }

    /// An empty set with room for `inputs` declarations (what `#[tool]` uses: it knows how many
    /// inputs the function declares).
    pub fn with_capacity(cx: &RequestContext, inputs: usize) -> Result<InputSet, McpError> {
        input_data(cx)?;
        Ok(InputSet {
            cx: cx.clone(),
            slots: Vec::with_capacity(inputs),
        })
    }

    /// Declares an input; its request is only built when the input has no answer yet (on a
    /// retry that answers it, nothing is built to be thrown away).
    fn push<T: FromAnswer + Send + 'static>(
        &mut self,
        key: &'static str,
        required: bool,
        need: Need,
        request: impl FnOnce() -> InputRequest,
    ) -> Slot<T> {
        let answered = input_data(&self.cx).is_ok_and(|d| d.answer(key).is_some());
        self.slots.push(SlotSpec {
            key,
            required,
            need,
            request: (!answered).then(request),
            check: check_as::<T>,
        });
        Slot {
            index: self.slots.len() - 1,
            _t: PhantomData,
        }
    }

    /// Declares a `roots/list` input.
    pub fn roots(&mut self, key: &'static str, required: bool) -> Slot<Roots> {
        self.push(key, required, Need::Roots, || {
            InputRequest::ListRoots(Some(ListRootsParams::default()))
        })
    }

    /// Declares a `sampling/createMessage` input.
    pub fn sample(
        &mut self,
        key: &'static str,
        required: bool,
        params: CreateMessageRequestParams,
    ) -> Slot<Sampled> {
        self.push(key, required, Need::Sampling, || {
            InputRequest::Sample(params)
        })
    }

    /// Declares a `sampling/createMessage` input of one user prompt (what `#[sample]` uses):
    /// the request is only built when the input is not answered yet.
    pub fn sample_prompt(
        &mut self,
        key: &'static str,
        required: bool,
        prompt: &str,
        max_tokens: u64,
        system_prompt: Option<&str>,
    ) -> Slot<Sampled> {
        self.push(key, required, Need::Sampling, || {
            InputRequest::Sample(sample_params(prompt, max_tokens, system_prompt))
        })
    }

    /// Declares a form elicitation.
    pub fn elicit<T: ElicitForm + Send + 'static>(
        &mut self,
        key: &'static str,
        required: bool,
        message: &str,
    ) -> Slot<Elicitation<T>> {
        self.push(key, required, Need::ElicitForm, || {
            elicit_request(message, T::shared_schema())
        })
    }

    /// Checks the answers: `Ok(None)` when the body can run, `Ok(Some(result))` to ask the client
    /// for everything still missing, or `-32021` when a required input needs a capability the
    /// client did not declare. The result takes the declared requests over: call it once.
    ///
    /// An answer is decoded once: here when the client is asked again (a malformed answer fails
    /// the request rather than riding along), else by [`take`](Self::take), which reports a
    /// malformed answer in declaration order as this check would.
    pub fn finish(&mut self) -> Result<Option<InputRequiredResult>, McpError> {
        let data = input_data(&self.cx)?;
        let caps = self.cx.client_capabilities();
        let mut missing = Vec::new();
        let mut asking = false;
        for slot in &self.slots {
            if data.answer(slot.key).is_some() {
                continue;
            }
            if slot.need.declared(caps) {
                asking = true;
            } else if slot.required && !missing.contains(&slot.need) {
                missing.push(slot.need);
            }
        }
        if !asking && missing.is_empty() {
            return Ok(None);
        }
        // Answers given so far are checked, then ride, sealed, to the next round.
        // Sized up front: an entry is about 300 bytes, and a grown vector would leave the
        // allocator's per-thread cache.
        let mut asks = InputRequests::with_capacity(self.slots.len());
        let mut answers = Answers::default();
        for slot in &self.slots {
            if let Some(v) = data.answer(slot.key) {
                (slot.check)(slot.key, v)?;
                answers.0.push((slot.key, v));
            }
        }
        if !missing.is_empty() {
            return Err(missing_capability(&missing));
        }
        for slot in &mut self.slots {
            if data.answer(slot.key).is_none() && slot.need.declared(caps) {
                let request = slot.request.take().ok_or_else(|| {
                    McpError::internal("InputSet::finish already asked for these inputs")
                })?;
                asks.insert(slot.key, request);
            }
        }
        let carried = data.previous.as_ref().and_then(|p| p.data.as_deref());
        let state = data.seal_next(answers, carried)?;
        Ok(Some(InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: Some(asks),
            request_state: Some(state),
            meta: None,
        }))
    }

    /// The answer of a required input (after [`finish`](Self::finish) returned `None`), decoded
    /// now: `-32602` when it is malformed.
    pub fn take<T: FromAnswer + Send + 'static>(&mut self, slot: Slot<T>) -> Result<T, McpError> {
        self.take_optional(slot)?.ok_or_else(|| {
            McpError::internal("a required client input was not answered (finish() was not called)")
        })
    }

    /// The answer of an optional input, decoded now: `None` when the client could not provide
    /// it, `-32602` when it is malformed.
    pub fn take_optional<T: FromAnswer + Send + 'static>(
        &mut self,
        slot: Slot<T>,
    ) -> Result<Option<T>, McpError> {
        let key = self.slots[slot.index].key;
        let data = input_data(&self.cx)?;
        data.answer(key).map(|v| T::from_answer(key, v)).transpose()
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
        let token = data.seal_next(Answers::default(), value.as_deref())?;
        Ok(Step::Ask(InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: (!ask.requests.is_empty()).then_some(ask.requests),
            request_state: Some(token),
            meta: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ElicitResult;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    /// The wording of the decoders that read a parsed `Value` (before answers stayed raw).
    fn via_value<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, String> {
        let v: Value = serde_json::from_str(text).unwrap();
        T::deserialize(&v).map_err(|e| {
            format!("Invalid params: inputResponses[\"k\"] is not a valid {what}: {e}")
        })
    }

    fn elicit_via_value<T: DeserializeOwned>(text: &str, one_string: bool) -> Result<(), String> {
        let r: ElicitResult = via_value(text, "elicitation result")?;
        if r.action == ElicitAction::Accept {
            let mut content = r.content.unwrap_or_default();
            let form = if one_string {
                serde_json::from_value::<String>(content.remove("value").unwrap_or(Value::Null))
                    .map(drop)
            } else {
                serde_json::from_value::<T>(Value::Object(content)).map(drop)
            };
            form.map_err(|e| {
                format!(
                    "Invalid params: inputResponses[\"k\"] is not a valid answer to the requested form: {e}"
                )
            })?;
        }
        Ok(())
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Goal {
        goal: String,
        effort: Option<u8>,
    }

    impl ElicitForm for Goal {
        fn requested_schema() -> Map<String, Value> {
            Map::new()
        }
    }

    fn message<T>(r: Result<T, McpError>) -> Result<(), String> {
        r.map(drop).map_err(|e| e.message().to_owned())
    }

    #[test]
    fn plain_sampling_answers_read_like_the_general_path() {
        for text in [
            r#"{"role":"assistant","content":{"type":"text","text":"a"},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a\"b"},"model":"m","stopReason":"endTurn"}"#,
            r#"{"model":"m","content":{"text":"x","type":"text"},"role":"user"}"#,
        ] {
            let fast = decode::<PlainSample>(&raw(text)).map(CreateMessageResult::from);
            let general = decode::<CreateMessageResult>(&raw(text));
            assert_eq!(fast.unwrap(), general.unwrap(), "{text}");
        }
        // Anything else is left to the general reading.
        for text in [
            r#"{"role":"assistant","content":[{"type":"text","text":"a"}],"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a","_meta":{}},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"image","data":"AA==","mimeType":"image/png"},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a"},"model":"m","_meta":{}}"#,
        ] {
            assert!(decode::<PlainSample>(&raw(text)).is_err(), "{text}");
            assert!(Sampled::from_answer("k", &raw(text)).is_ok(), "{text}");
        }
    }

    #[test]
    fn malformed_answers_keep_their_wording() {
        let roots = [
            "7",
            "[]",
            r#"{"roots":5}"#,
            r#"{"roots":[{"name":"x"}]}"#,
            r#"{"roots":[{"uri":3}]}"#,
            r#"{"roots":[{"uri":"file:///a"}],"_meta":1}"#,
            r#"{"roots":[{"uri":"file:///a"}]}"#,
        ];
        for text in roots {
            assert_eq!(
                message(Roots::from_answer("k", &raw(text))),
                via_value::<ListRootsResult>(text, "roots/list result").map(drop),
                "{text}"
            );
        }
        let samples = [
            "{}",
            r#"{"role":"assistant","content":{"type":"text"},"model":"m"}"#,
            r#"{"role":"robot","content":{"type":"text","text":"a"},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a"},"model":7}"#,
            r#"{"role":"assistant","content":[{"type":"text","text":"a"}],"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"a"},"model":"m"}"#,
            r#"{"role":"assistant","content":[{"type":"text","text":"a"},7],"model":"m"}"#,
            r#"{"role":"assistant","content":[[1],{"type":"x"}],"model":"m"}"#,
            r#"{"role":"assistant","content":[],"model":"m"}"#,
            r#"{"role":"assistant","content":"text","model":"m"}"#,
            r#"{"role":"assistant","content":null,"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"image"},"model":"m"}"#,
            r#"{"role":"assistant","model":"m"}"#,
        ];
        for text in samples {
            let new = Sampled::from_answer("k", &raw(text));
            let old = via_value::<CreateMessageResult>(text, "sampling/createMessage result");
            match (&new, &old) {
                (Ok(a), Ok(b)) => assert_eq!(&a.0, b, "{text}"),
                _ => assert_eq!(message(new), old.map(drop), "{text}"),
            }
        }
        let elicits = [
            "12",
            r#"{"action":"maybe"}"#,
            r#"{}"#,
            r#"{"action":"accept","content":5}"#,
            r#"{"action":"accept","content":[1]}"#,
            r#"{"action":"accept","content":null}"#,
            r#"{"action":"accept"}"#,
            r#"{"action":"accept","content":{"value":3,"goal":4}}"#,
            r#"{"action":"accept","content":{"value":null,"goal":"g","effort":300}}"#,
            r#"{"action":"accept","content":{"value":"v","goal":"g","effort":3}}"#,
            r#"{"action":"accept","content":{"value":"v"},"_meta":"x"}"#,
            r#"{"action":"decline","content":{"x":1}}"#,
            r#"{"action":"cancel"}"#,
        ];
        for text in elicits {
            assert_eq!(
                message(Elicitation::<String>::from_answer("k", &raw(text))),
                elicit_via_value::<String>(text, true),
                "{text}"
            );
            assert_eq!(
                message(Elicitation::<Goal>::from_answer("k", &raw(text))),
                elicit_via_value::<Goal>(text, false),
                "{text}"
            );
        }
    }

    #[test]
    fn responses_are_read_raw() {
        assert!(parse_responses(None).unwrap().0.is_empty());
        assert!(parse_responses(Some(&raw("null"))).unwrap().0.is_empty());
        for bad in ["12", "[]", "\"x\"", "true"] {
            let e = parse_responses(Some(&raw(bad))).unwrap_err();
            assert_eq!(e.code(), -32602);
            assert_eq!(
                e.message(),
                "Invalid params: `inputResponses` must be an object keyed by the input request keys"
            );
        }
        let r =
            parse_responses(Some(&raw(r#"{"a": {"x": [1, 2]}, "b\u00e9": 3, "a": 4}"#))).unwrap();
        assert_eq!(r.get("a").unwrap().get(), "4");
        assert_eq!(r.get("bé").unwrap().get(), "3");
        assert!(r.get("c").is_none());
    }

    #[test]
    fn string_form_schema_is_shared() {
        assert!(Arc::ptr_eq(
            &String::shared_schema(),
            &String::shared_schema()
        ));
        assert_eq!(
            Value::Object((*String::shared_schema()).clone()),
            Value::Object(String::requested_schema())
        );
    }
}
