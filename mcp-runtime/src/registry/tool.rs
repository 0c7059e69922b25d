//! Tool definitions.

use super::{BoxFuture, ToolOutcome};
use crate::context::RequestContext;
use crate::error::SourceLocation;
use crate::protocol::{Icon, ToolAnnotations, ToolInfo};
use crate::registry::output::IntoToolResult;
use crate::{McpError, schema};
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
    pub arguments: Map<String, Value>,
    /// The request context (client input of MRTR rounds is reached through it).
    pub context: RequestContext,
}

impl ToolCall {
    /// Deserializes the arguments into `T`.
    pub fn parse_arguments<T: DeserializeOwned>(&self) -> Result<T, String> {
        let pairs = self.arguments.iter().map(|(k, v)| (k.as_str(), v));
        T::deserialize(serde::de::value::MapDeserializer::<_, serde_json::Error>::new(pairs))
            .map_err(|e| e.to_string())
    }
}

pub(crate) type ToolFnAlias =
    dyn Fn(ToolCall) -> BoxFuture<'static, Result<ToolOutcome, McpError>> + Send + Sync;

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
    pub(crate) handler: Option<Arc<ToolFnAlias>>,
    pub(crate) source: Option<SourceLocation>,
    pub(crate) schema_explicit: bool,
    pub(crate) problems: Vec<String>,
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
            schema_explicit: false,
            problems: Vec::new(),
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
            self.info.input_schema = schema::schema_for::<A>();
        }
        if self.info.output_schema.is_none() {
            self.info.output_schema = R::output_schema();
        }
        let f = Arc::new(f);
        self.handler = Some(Arc::new(move |call: ToolCall| {
            let f = f.clone();
            Box::pin(async move {
                let args: A = match call.parse_arguments() {
                    Ok(a) => a,
                    Err(e) => {
                        return Ok(ToolOutcome::Complete(
                            crate::protocol::CallToolResult::error(format!(
                                "Invalid arguments for tool `{}`: {e}",
                                call.name
                            )),
                        ));
                    }
                };
                f(args, call.context).await.into_tool_result()
            })
        }));
        self
    }

    /// A low-level handler receiving the whole [`ToolCall`].
    pub fn raw_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutcome, McpError>> + Send + 'static,
    {
        self.handler = Some(Arc::new(move |call| Box::pin(f(call))));
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
