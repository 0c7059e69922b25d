use mcp_runtime::tool;

/// Echoes.
#[tool]
fn echo(text: &str) -> String {
    text.to_owned()
}

fn main() {}
