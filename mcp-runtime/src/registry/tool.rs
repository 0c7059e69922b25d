//! Tool definitions.

use super::access::Requirement;
use super::arguments::Arguments;
use super::future::BoxFuture;
use super::output::{IntoToolResult, ToolOutcome};
use crate::context::{RequestContext, StateNeed};
use crate::error::{McpError, SourceLocation};
use crate::protocol::{CallToolResult, Icon, ToolAnnotations, ToolInfo};
use crate::schema::{self, SchemaDialect};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;

/// One `tools/call` as seen by a handler.
#[derive(Debug)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The arguments object (already validated against `inputSchema`).
    pub arguments: Arguments,
    /// The request context (client input of MRTR rounds is reached through it).
    pub context: RequestContext,
}

/// Deserializes a tool's (already validated) arguments into the handler's type with
/// [`Arguments::parse`]; a ready `isError` answer when they do not fit it. What typed handlers
/// and `#[tool]` functions use (through `__private`).
#[allow(clippy::result_large_err)] // the error is a ready answer, built at most once per call
pub fn parse_arguments<T: DeserializeOwned>(call: &ToolCall) -> Result<T, ToolOutcome> {
    match call.arguments.parse::<T>() {
        Ok(args) => Ok(args),
        Err(e) => Err(invalid_arguments(&call.name, &e)),
    }
}

/// The answer to arguments that do not fit the handler's type (the same for every type).
#[cold]
#[inline(never)]
fn invalid_arguments(tool: &str, why: &str) -> ToolOutcome {
    ToolOutcome::Complete(CallToolResult::error(format!(
        "Invalid arguments for tool `{tool}`: {why}"
    )))
}

/// What `#[tool]` generates for a function, as data (a `static` of its expansion): every part of
/// the tool the same code builds for any function, so that it is built by one non-generic
/// function ([`generated_tool`]) rather than by code expanded and compiled once per tool.
#[doc(hidden)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// The display title.
    pub title: Option<&'static str>,
    /// The description (the attribute's, else the doc comment's).
    pub description: Option<&'static str>,
    /// schemars' schema of the arguments ([`schema::schema_for`] of the arguments struct).
    pub input_schema: fn() -> Map<String, Value>,
    /// The return type's output schema ([`IntoToolResult::output_schema`]), if it can be
    /// named.
    pub output_schema: Option<OutputSchemaFn>,
    /// The handler.
    pub handler: HandlerFn,
}

/// [`IntoToolResult::output_schema`] of a return type.
#[doc(hidden)]
pub type OutputSchemaFn = fn() -> Option<Map<String, Value>>;

/// A generated handler: a plain function, or one returning its boxed future.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum HandlerFn {
    /// Runs when the request is dispatched ([`Tool::sync_handler`]).
    Sync(fn(ToolCall) -> Result<ToolOutcome, McpError>),
    /// A future ([`Tool::raw_handler`]).
    Async(fn(ToolCall) -> BoxFuture<'static, Result<ToolOutcome, McpError>>),
}

/// The tool a [`ToolSpec`] describes; the attribute's other settings are builder calls after.
#[doc(hidden)]
pub fn generated_tool(spec: &ToolSpec) -> Tool {
    let mut tool = Tool::new(spec.name);
    tool.info.title = spec.title.map(str::to_owned);
    tool.info.description = spec.description.map(str::to_owned);
    tool = tool.derived_input_schema((spec.input_schema)());
    if let Some(schema) = spec.output_schema.and_then(|of| of()) {
        tool.info.output_schema = Some(schema);
    }
    tool.handler = Some(match spec.handler {
        HandlerFn::Sync(f) => ToolHandler::Sync(Arc::new(f)),
        HandlerFn::Async(f) => ToolHandler::Async(Arc::new(f)),
    });
    tool
}

pub(crate) type ToolFn =
    dyn Fn(ToolCall) -> BoxFuture<'static, Result<ToolOutcome, McpError>> + Send + Sync;

pub(crate) type SyncToolFn = dyn Fn(ToolCall) -> Result<ToolOutcome, McpError> + Send + Sync;

/// How a tool's handler runs.
#[derive(Clone)]
pub(crate) enum ToolHandler {
    /// A future, polled by the request's [`Call`](crate::dispatch::Call).
    Async(Arc<ToolFn>),
    /// A plain function, run as soon as the request is dispatched (no future to allocate).
    Sync(Arc<SyncToolFn>),
}

/// A tool: its listing and its handler.
///
/// ```
/// use mcp_runtime::{Server, Tool};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add { a: i64, b: i64 }
/// let tool = Tool::new("add")
///     .description("Add two integers.")
///     .handler(|args: Add, _cx| async move { (args.a + args.b).to_string() });
/// let server = Server::builder().tool(tool).build().unwrap();
/// ```
#[derive(Clone)]
#[must_use]
pub struct Tool {
    pub(crate) info: ToolInfo,
    pub(crate) handler: Option<ToolHandler>,
    pub(crate) source: Option<SourceLocation>,
    /// Shared state the handler needs.
    pub(crate) needs: Vec<StateNeed>,
    /// The handler asks the client for input.
    pub(crate) asks_input: bool,
    pub(crate) schema_explicit: bool,
    /// The input schema was generated by schemars: when deserializing enforces all of it, no
    /// checker is compiled.
    pub(crate) schema_derived: bool,
    /// schemars' own schema, when its portable form (`info.input_schema`) differs from it:
    /// what arguments are validated against, and what [`SchemaDialect::Full`] lists.
    pub(crate) full_schema: Option<Arc<Map<String, Value>>>,
    pub(crate) problems: Vec<String>,
    /// What a caller needs to see and call it.
    pub(crate) access: Requirement,
    /// Whether a call runs as a task (the tasks extension).
    pub(crate) task: TaskSupport,
    /// A view of its result to generate when the server is built, and the result's schema when
    /// the macro knew it (else its output schema is used).
    pub(crate) result_view: Option<(super::result_layout::ResultView, Option<Map<String, Value>>)>,
}

/// Whether a tool's calls run as tasks of the tasks extension (`io.modelcontextprotocol/tasks`):
/// the call is answered at once with a task handle that the client polls (`tasks/get`), answers
/// (`tasks/update`) and cancels (`tasks/cancel`), while the handler runs.
///
/// ```
/// use mcp_runtime::{NoArguments, TaskSupport, Tool};
/// let report = Tool::new("report")
///     .task(TaskSupport::Optional)
///     .handler(|_: NoArguments, _cx| async { "done" });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task: the call answers with its result (the default).
    #[default]
    Forbidden,
    /// A task when this request's client capabilities declare the extension, a plain call
    /// otherwise.
    Optional,
    /// Always a task: a client that does not declare the extension gets `-32021`.
    Required,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool named `name` taking no arguments, with no handler yet.
    pub fn new(name: impl Into<String>) -> Self {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("additionalProperties".into(), false.into());
        Tool {
            info: ToolInfo {
                name: name.into(),
                title: None,
                description: None,
                icons: None,
                input_schema: schema,
                output_schema: None,
                annotations: None,
                meta: None,
            },
            handler: None,
            source: None,
            needs: Vec::new(),
            asks_input: false,
            schema_explicit: false,
            schema_derived: false,
            full_schema: None,
            problems: Vec::new(),
            access: Requirement::default(),
            task: TaskSupport::Forbidden,
            result_view: None,
        }
    }
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.info.name
    }
    /// The listing as sent by `tools/list` (by a server of the default
    /// [`SchemaDialect::Portable`]).
    pub fn info(&self) -> &ToolInfo {
        &self.info
    }
    /// Display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }
    /// Description for the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }
    /// Behaviour hints.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.info.annotations = Some(annotations);
        self
    }
    /// Adds an icon.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.info.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }
    /// Sets `_meta` of the listing.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.info.meta = Some(meta);
        self
    }
    /// Sets the input schema explicitly (root must be `type: object`). It is listed as written,
    /// whatever the server's [`SchemaDialect`], and arguments are validated against it.
    ///
    /// The built-in checker reads every keyword schemars derives; a schema that uses one it does
    /// not (`if`/`then`/`else`, `patternProperties`, `unevaluatedProperties`, a remote `$ref`,
    /// a `duration` format, a pattern only ECMA-262 reads) is refused at
    /// [`build`](crate::ServerBuilder::build) with the keyword named, unless the
    /// `full-json-schema` feature brings the full 2020-12 engine, which then checks it (with
    /// the same sentences).
    pub fn input_schema(mut self, schema: Map<String, Value>) -> Self {
        self.info.input_schema = schema;
        self.schema_explicit = true;
        self.schema_derived = false;
        self.full_schema = None;
        self
    }
    /// Sets the input schema generated from `T` (what the macros and typed handlers use). When
    /// deserializing `T` enforces every keyword of it (types, required fields, enums) nothing
    /// else checks the arguments; otherwise (lengths, ranges, patterns, formats) the built-in
    /// checker does, compiled at [`build`](crate::ServerBuilder::build).
    ///
    /// Both forms are made here, once: schemars' own ([`schema::schema_for`]), which arguments
    /// are validated against, and its [`schema::portable`] form, which servers list by default
    /// ([`info`](Self::info) shows it; [`SchemaDialect::Full`] lists the other).
    ///
    /// ```
    /// #[derive(schemars::JsonSchema)]
    /// #[allow(dead_code)]
    /// struct Args { city: String, days: Option<u8> }
    /// let t = mcp_runtime::Tool::new("weather").input_schema_of::<Args>();
    /// let schema = &t.info().input_schema;
    /// assert_eq!(schema["required"], serde_json::json!(["city"]));
    /// assert_eq!(schema["properties"]["days"]["type"], "integer");
    /// ```
    pub fn input_schema_of<T: schemars::JsonSchema>(self) -> Self {
        self.derived_input_schema(schema::schema_for::<T>())
    }
    /// [`input_schema_of`](Self::input_schema_of) given schemars' schema.
    fn derived_input_schema(mut self, full: Map<String, Value>) -> Self {
        let portable = schema::portable(&full);
        self.full_schema = (portable != full).then(|| Arc::new(full));
        self.info.input_schema = portable;
        self.schema_explicit = true;
        self.schema_derived = true;
        self
    }
    /// The schema arguments are validated against: schemars' own for a generated schema, else
    /// the one set.
    pub(crate) fn validation_schema(&self) -> &Map<String, Value> {
        self.full_schema
            .as_deref()
            .unwrap_or(&self.info.input_schema)
    }
    /// The `inputSchema` a server of `dialect` lists.
    pub(crate) fn listed_schema(&self, dialect: SchemaDialect) -> &Map<String, Value> {
        match dialect {
            SchemaDialect::Full => self.validation_schema(),
            _ => &self.info.input_schema,
        }
    }
    /// Sets the output schema.
    pub fn output_schema(mut self, schema: Map<String, Value>) -> Self {
        self.info.output_schema = Some(schema);
        self
    }
    /// Marks the definition as invalid: [`ServerBuilder::build`](crate::ServerBuilder::build)
    /// reports `reason` as a startup error naming the tool.
    pub fn invalid(mut self, reason: impl Into<String>) -> Self {
        self.problems.push(reason.into());
        self
    }
    /// Records where the tool was declared (used in duplicate-name errors).
    pub fn source(mut self, location: SourceLocation) -> Self {
        self.source = Some(location);
        self
    }
    /// Declares shared state the handler takes from the context: building a server that
    /// registers it without the state fails, naming it (the macros declare `State<T>`
    /// parameters themselves).
    pub fn needs(mut self, need: StateNeed) -> Self {
        if !self.needs.contains(&need) {
            self.needs.push(need);
        }
        self
    }
    /// Runs the tool's calls as tasks (see [`TaskSupport`]). A task tool needs an `async`
    /// handler ([`handler`](Self::handler) or [`raw_handler`](Self::raw_handler)).
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task = support;
        self
    }
    /// Declares that the handler asks the client for input (multi round-trip requests): a
    /// server with such a primitive and no shared `requestState` key warns at startup (the
    /// macros declare it themselves).
    pub fn asks_client_input(mut self) -> Self {
        self.asks_input = true;
        self
    }
    super::access::access_setters!();

    /// A typed handler: arguments are deserialized into `A` (whose schema becomes the
    /// `inputSchema` unless one was set), the return value is converted with [`IntoToolResult`].
    pub fn handler<A, F, Fut, R>(mut self, f: F) -> Self
    where
        A: DeserializeOwned + schemars::JsonSchema + Send + 'static,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult + 'static,
    {
        if !self.schema_explicit {
            self = self.input_schema_of::<A>();
        }
        if self.info.output_schema.is_none() {
            self.info.output_schema = R::output_schema();
        }
        let f = Arc::new(f);
        self.handler = Some(ToolHandler::Async(Arc::new(move |call: ToolCall| {
            let f = f.clone();
            Box::pin(async move {
                let args: A = match parse_arguments(&call) {
                    Ok(a) => a,
                    Err(answer) => return Ok(answer),
                };
                f(args, call.context).await.into_tool_result()
            })
        })));
        self
    }

    /// A low-level handler receiving the whole [`ToolCall`].
    pub fn raw_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutcome, McpError>> + Send + 'static,
    {
        self.handler = Some(ToolHandler::Async(Arc::new(move |call| Box::pin(f(call)))));
        self
    }

    /// A low-level handler that is a plain function: it runs as soon as the request is
    /// dispatched, on the task serving it, with no future allocated. For work that does not
    /// wait (computations, lookups in memory); anything that waits belongs in
    /// [`raw_handler`](Self::raw_handler). `#[tool]` on a non-`async` function uses this.
    ///
    /// ```
    /// use mcp_runtime::{handler::ToolOutcome, Server, Tool};
    /// use mcp_runtime::protocol::{CallToolResult, Content};
    /// let tool = Tool::new("ping").sync_handler(|_call| {
    ///     Ok(ToolOutcome::Complete(CallToolResult::new(vec![Content::text("pong")])))
    /// });
    /// let server = Server::builder().tool(tool).build().unwrap();
    /// ```
    pub fn sync_handler<F>(mut self, f: F) -> Self
    where
        F: Fn(ToolCall) -> Result<ToolOutcome, McpError> + Send + Sync + 'static,
    {
        self.handler = Some(ToolHandler::Sync(Arc::new(f)));
        self
    }
}

/// The arguments of a tool that takes none: `inputSchema` is
/// `{"type": "object", "additionalProperties": false}`.
///
/// ```
/// use mcp_runtime::{NoArguments, Tool};
/// let t = Tool::new("now").handler(|_: NoArguments, _cx| async { "12:00" });
/// ```
#[derive(Debug, Clone, Copy, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArguments {}

impl schemars::JsonSchema for NoArguments {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoArguments".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object", "additionalProperties": false})
    }
}
