//! [`ResultView`]: which view of a tool's structured result to generate (a file of its own,
//! below `result_view/`, that names nothing else, so that `Tool` can hold one).

/// A view of a tool's structured result that the server generates from the tool's output
/// schema (`Structured<T>`'s `T`), for hosts that render MCP Apps: no HTML to write. The tool is
/// linked to it as to any view (`_meta.ui.resourceUri`, `ui://views/<tool>.html`); the view is
/// served with the tool's own scopes; a schema the view cannot show is a startup error naming
/// the tool. `#[tool(view = "table")]` (or `"form"`, `"chart"`, `"auto"`) asks for one. The
/// generation is the `result-views` feature: without it such a tool fails `build`, naming it.
///
/// ```
/// use mcp_runtime::{Json, NoArguments, Server, Tool};
/// use mcp_runtime::apps::ResultView;
/// # use mcp_runtime::McpError;
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Row { name: String, size: u64 }
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Listing { files: Vec<Row> }
///
/// let tool = Tool::new("list_files")
///     .handler(|_: NoArguments, _| async {
///         Ok::<_, McpError>(Json(Listing { files: vec![] }))
///     })
///     .result_view(ResultView::Table);
/// let server = Server::builder().tool(tool).build();
/// // Without the `result-views` feature, `build` refuses the tool, naming the feature.
/// assert_eq!(server.is_ok(), cfg!(feature = "result-views"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultView {
    /// A table when the result is (or has) an array of objects, else a form of its members.
    Auto,
    /// A table: one row per object of the result's array (the result itself, or its first
    /// member that is one), one column per member of those objects, in declared order.
    Table,
    /// A form: each member of the result object, labelled (a member's schema `title`, else
    /// its name made words), read-only.
    Form,
    /// A bar chart: an array of objects with a text member (a bar's label) and a number member
    /// (its length), or an array of texts beside an array of numbers.
    Chart,
}
