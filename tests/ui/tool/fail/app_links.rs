// MCP Apps keys of #[tool]: a view that is no ui:// URI, a visibility without a view, and a
// visibility nobody knows.
use mcp_runtime::tool;

/// Shows a page.
#[tool(ui = "https://example.com/view.html")]
fn web_page() -> String {
    String::new()
}

/// Only the app calls it.
#[tool(visibility = ["app"])]
fn unlinked() -> String {
    String::new()
}

/// Seen by the agent.
#[tool(ui = "ui://board/view.html", visibility = ["agent"])]
fn agent() -> String {
    String::new()
}

fn main() {}
