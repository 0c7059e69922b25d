//! Tool definitions.

use super::BoxFuture;
use super::access::{AccessCheck, Requirement};
use super::output::{IntoToolResult, ToolOutcome};
use crate::context::{RequestContext, StateNeed};
use crate::error::{McpError, SourceLocation, without_position};
use crate::protocol::{CallToolResult, Icon, ToolAnnotations, ToolInfo};
use crate::schema;
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

impl ToolCall {
    /// Deserializes the arguments into `T` (see [`Arguments::parse`]).
    pub fn parse_arguments<T: DeserializeOwned>(&self) -> Result<T, String> {
        self.arguments.parse()
    }
}

/// The `arguments` object of a `tools/call`, kept as the JSON text the client sent.
///
/// Typed handlers deserialize it once, straight from the text ([`Arguments::parse`]); a JSON
/// tree is only built when something asks for one ([`Arguments::get`], indexing,
/// [`Arguments::as_map`]), and then only once.
///
/// ```
/// use mcp_runtime::Arguments;
/// #[derive(serde::Deserialize)]
/// struct Add { a: i64, b: i64 }
/// let args = Arguments::from_json(r#"{"a": 40, "b": 2}"#).unwrap();
/// let add: Add = args.parse().unwrap();
/// assert_eq!(add.a + add.b, 42);
/// assert_eq!(args["a"], 40);
/// assert!(args.get("c").is_none());
/// assert_eq!(Arguments::from_json("[1]").unwrap_err(), "the arguments must be a JSON object");
/// ```
pub struct Arguments {
    raw: Arc<str>,
    tree: std::sync::OnceLock<Value>,
}

impl Arguments {
    /// Arguments from the JSON text of an object (the text is kept as given).
    pub fn from_json(json: impl Into<Arc<str>>) -> Result<Arguments, String> {
        let raw = json.into();
        match serde_json::from_str::<Value>(&raw) {
            Ok(Value::Object(map)) => {
                let tree = std::sync::OnceLock::new();
                let _ = tree.set(Value::Object(map));
                Ok(Arguments { raw, tree })
            }
            Ok(_) => Err("the arguments must be a JSON object".into()),
            Err(e) => Err(format!("the arguments are not valid JSON: {e}")),
        }
    }

    /// Arguments whose text is known to be one JSON object (read by serde_json as a raw value
    /// whose first byte is `{`).
    pub(crate) fn from_raw_object(raw: Arc<str>) -> Arguments {
        Arguments {
            raw,
            tree: std::sync::OnceLock::new(),
        }
    }

    /// No arguments: `{}`.
    pub fn empty() -> Arguments {
        static EMPTY: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from("{}"));
        Arguments::from_raw_object(EMPTY.clone())
    }

    /// The JSON text as the client sent it.
    pub fn json(&self) -> &str {
        &self.raw
    }

    /// The text, shared (for bindings that outlive the call).
    pub(crate) fn shared_json(&self) -> Arc<str> {
        self.raw.clone()
    }

    /// The arguments as a JSON value (an object), built on first use.
    ///
    /// The runtime builds the tree of every call whose tool mirrors arguments into headers or
    /// validates them against a schema, and refuses the call (`-32602`) when it cannot be built
    /// (a value nested deeper than serde_json's recursion limit, a number out of range, a lone
    /// surrogate escape). Otherwise such text reads as an empty object here: use
    /// [`parse`](Self::parse), which reports the problem.
    pub fn as_value(&self) -> &Value {
        self.tree.get_or_init(|| {
            serde_json::from_str(&self.raw).unwrap_or_else(|_| Value::Object(Map::new()))
        })
    }

    /// The arguments as a JSON value, or why the text cannot be read as one.
    pub(crate) fn try_value(&self) -> Result<&Value, String> {
        if let Some(tree) = self.tree.get() {
            return Ok(tree);
        }
        let tree: Value = serde_json::from_str(&self.raw).map_err(|e| e.to_string())?;
        Ok(self.tree.get_or_init(|| tree))
    }

    /// The arguments as a JSON object, built on first use.
    pub fn as_map(&self) -> &Map<String, Value> {
        static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
        self.as_value().as_object().unwrap_or(&EMPTY)
    }

    /// The argument named `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map().get(key)
    }

    /// Deserializes the arguments into `T`, straight from the text. The error names the path of
    /// the offending value (`` `a.b`: invalid type: ... ``) in JSON terms.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, String> {
        match serde_json::from_str(&self.raw) {
            Ok(v) => Ok(v),
            // Rare: parse again, tracking the path, to say where.
            Err(_) => {
                let mut de = serde_json::Deserializer::from_str(&self.raw);
                match serde_path_to_error::deserialize::<_, T>(&mut de) {
                    Ok(v) => Ok(v),
                    Err(e) => {
                        let path = e.path().to_string();
                        let inner = e.into_inner();
                        let message = without_position(&inner);
                        let message = json_terms(&message);
                        if path.is_empty() || path == "." {
                            Err(message)
                        } else {
                            Err(format!("`{path}`: {message}"))
                        }
                    }
                }
            }
        }
    }
}

impl std::ops::Index<&str> for Arguments {
    type Output = Value;
    /// The argument named `key`, or `null` when absent (like indexing a `serde_json::Value`).
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::fmt::Debug for Arguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.raw)
    }
}

impl Clone for Arguments {
    fn clone(&self) -> Self {
        Arguments {
            raw: self.raw.clone(),
            tree: self.tree.clone(),
        }
    }
}

impl From<Map<String, Value>> for Arguments {
    fn from(map: Map<String, Value>) -> Self {
        let value = Value::Object(map);
        let tree = std::sync::OnceLock::new();
        let raw = Arc::from(value.to_string());
        let _ = tree.set(value);
        Arguments { raw, tree }
    }
}

/// Deserializes a tool's (already validated) arguments into the handler's type; a ready
/// `isError` answer when they do not fit it. What typed handlers and `#[tool]` functions use.
///
/// ```
/// # use mcp_runtime::{Arguments, ToolCall};
/// #[derive(serde::Deserialize)]
/// struct Add { a: i64, b: i64 }
/// fn add(call: &ToolCall) -> i64 {
///     match mcp_runtime::parse_arguments::<Add>(call) {
///         Ok(args) => args.a + args.b,
///         Err(_answer) => 0,
///     }
/// }
/// ```
#[allow(clippy::result_large_err)] // the error is a ready answer, built at most once per call
pub fn parse_arguments<T: DeserializeOwned>(call: &ToolCall) -> Result<T, ToolOutcome> {
    call.parse_arguments::<T>().map_err(|e| {
        ToolOutcome::Complete(CallToolResult::error(format!(
            "Invalid arguments for tool `{}`: {e}",
            call.name
        )))
    })
}

pub(crate) type ToolFn =
    dyn Fn(ToolCall) -> BoxFuture<'static, Result<ToolOutcome, McpError>> + Send + Sync;

pub(crate) type SyncToolFn = dyn Fn(ToolCall) -> Result<ToolOutcome, McpError> + Send + Sync;

/// How a tool's handler runs.
#[derive(Clone)]
pub(crate) enum ToolHandler {
    /// A future, polled by the request's [`Call`](crate::Call).
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
    /// The input schema was generated by schemars (valid by construction): its validator is
    /// compiled on first use instead of at startup.
    pub(crate) schema_derived: bool,
    pub(crate) problems: Vec<String>,
    /// What a caller needs to see and call it.
    pub(crate) access: Requirement,
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
            problems: Vec::new(),
            access: Requirement::default(),
        }
    }
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.info.name
    }
    /// The listing as sent by `tools/list`.
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
    /// Sets the input schema explicitly (root must be `type: object`).
    pub fn input_schema(mut self, schema: Map<String, Value>) -> Self {
        self.info.input_schema = schema;
        self.schema_explicit = true;
        self.schema_derived = false;
        self
    }
    /// Sets the input schema generated from `T` (what the macros and typed handlers use). It is
    /// valid by construction, so its validator is compiled on the first call, not at startup.
    ///
    /// ```
    /// #[derive(schemars::JsonSchema)]
    /// #[allow(dead_code)]
    /// struct Args { city: String }
    /// let t = mcp_runtime::Tool::new("weather").input_schema_of::<Args>();
    /// assert_eq!(t.info().input_schema["required"][0], "city");
    /// ```
    pub fn input_schema_of<T: schemars::JsonSchema>(mut self) -> Self {
        self.info.input_schema = schema::schema_for::<T>();
        self.schema_explicit = true;
        self.schema_derived = true;
        self
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
    /// Declares that the handler asks the client for input (multi round-trip requests): a
    /// server with such a primitive and no shared `requestState` key warns at startup (the
    /// macros declare it themselves).
    pub fn asks_client_input(mut self) -> Self {
        self.asks_input = true;
        self
    }
    /// Requires these OAuth scopes of the caller (all of them): a caller without them does not
    /// see it listed, and is refused with a challenge naming them (HTTP 401 without a token,
    /// 403 `insufficient_scope` with one).
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.access.add_scopes(scopes);
        self
    }
    /// A custom authorization check, run (after the scopes are checked) before every use and
    /// for every listing: a refused caller does not see it listed, and it never runs for them.
    pub fn authorize(mut self, check: AccessCheck) -> Self {
        self.access.check = Some(check);
        self
    }

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
    /// use mcp_runtime::{Server, Tool, ToolOutcome};
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

/// Speaks JSON to the model: serde's Rust type names (`expected i64`) become JSON Schema terms.
fn json_terms(message: &str) -> String {
    const TERMS: [(&str, &str); 14] = [
        ("expected i8", "expected an integer"),
        ("expected i16", "expected an integer"),
        ("expected i32", "expected an integer"),
        ("expected i64", "expected an integer"),
        ("expected i128", "expected an integer"),
        ("expected isize", "expected an integer"),
        ("expected u8", "expected a non-negative integer"),
        ("expected u16", "expected a non-negative integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected u64", "expected a non-negative integer"),
        ("expected u128", "expected a non-negative integer"),
        ("expected usize", "expected a non-negative integer"),
        ("expected f32", "expected a number"),
        ("expected f64", "expected a number"),
    ];
    for (rust, json) in TERMS {
        if let Some(head) = message.strip_suffix(rust) {
            return format!("{head}{json}");
        }
    }
    message.to_owned()
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
