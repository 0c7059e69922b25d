// Generated result views (`view = "…"`): a layout nobody knows, a tool with two views, and a
// return type with no structured result to draw.
use mcp_runtime::{Structured, tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Row {
    name: String,
}

/// A grid.
#[tool(view = "grid")]
fn grid() -> Structured<Vec<Row>> {
    Structured::new(Vec::new())
}

/// Two views.
#[tool(ui = "ui://mine/view.html", view = "table")]
fn two_views() -> Structured<Vec<Row>> {
    Structured::new(Vec::new())
}

/// Only text.
#[tool(view = "table")]
fn only_text() -> String {
    String::new()
}

fn main() {}
