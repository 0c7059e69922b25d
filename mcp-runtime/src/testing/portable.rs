//! Whether the tools' listed input schemas are portable: what [`assert_portable_schemas`]
//! checks, tool by tool.

use crate::schema::PortabilityIssue;
use crate::server::Server;
use std::fmt;

/// A tool whose listed `inputSchema` is not portable, and why (see
/// [`schema::portability_issues`](crate::schema::portability_issues)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NonPortableSchema {
    /// The tool's name.
    pub tool: String,
    /// What hosts would misread, each with its JSON pointer into the schema.
    pub issues: Vec<PortabilityIssue>,
}

impl fmt::Display for NonPortableSchema {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool `{}`:", self.tool)?;
        for issue in &self.issues {
            write!(f, "\n  - {issue}")?;
        }
        Ok(())
    }
}

/// Every registered tool (enabled or not) whose `inputSchema`, as `tools/list` lists it, is not
/// portable, with the reasons. Schemas generated from argument types are portable unless they
/// hold a recursive type (or the server lists [`SchemaDialect::Full`](crate::schema::SchemaDialect::Full));
/// schemas set by hand are listed as written, and checked as they are.
#[inline]
pub fn non_portable_schemas(server: &Server) -> Vec<NonPortableSchema> {
    server
        .listed_input_schemas()
        .into_iter()
        .filter_map(|(tool, schema)| {
            let issues = crate::schema::portability_issues(&schema);
            (!issues.is_empty()).then_some(NonPortableSchema { tool, issues })
        })
        .collect()
}

/// Fails (panics) when a tool's listed `inputSchema` is not portable: one that the converters
/// of common hosts (Gemini's function declarations, OpenAI's strict mode, LangChain, the
/// Vercel AI SDK) would refuse or read with something lost. The message names each tool and
/// each reason, with its JSON pointer.
///
/// ```
/// use mcp_runtime::{Server, Tool, testing::assert_portable_schemas};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// enum Priority { Low, High }
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Args { title: String, priority: Option<Priority> }
/// let server = Server::builder()
///     .tool(Tool::new("file").handler(|a: Args, _cx| async move { a.title }))
///     .build()
///     .unwrap();
/// assert_portable_schemas(&server);
/// ```
///
/// A hand-written schema with a list of types fails, naming the tool and the place:
///
/// ```should_panic
/// # use mcp_runtime::{Server, Tool, handler::ToolOutcome, testing::assert_portable_schemas};
/// # use mcp_runtime::protocol::CallToolResult;
/// let schema = serde_json::json!({"type": "object",
///     "properties": {"limit": {"type": ["integer", "null"]}}});
/// let server = Server::builder()
///     .tool(Tool::new("list").input_schema(schema.as_object().unwrap().clone())
///         .sync_handler(|_| Ok(ToolOutcome::Complete(CallToolResult::new(vec![])))))
///     .build()
///     .unwrap();
/// // panics: 1 tool schema is not portable:
/// // tool `list`:
/// //   - at `/properties/limit/type`: a list of types (["integer", "null"]): ...
/// assert_portable_schemas(&server);
/// ```
#[track_caller]
// Inline: compiled only by the tests that call it, not into every server.
#[inline]
pub fn assert_portable_schemas(server: &Server) {
    let found = non_portable_schemas(server);
    if found.is_empty() {
        return;
    }
    let tools: Vec<String> = found.iter().map(ToString::to_string).collect();
    let count = match found.len() {
        1 => "1 tool schema is".to_owned(),
        n => format!("{n} tool schemas are"),
    };
    panic!("{count} not portable:\n{}", tools.join("\n"));
}
