use mcp_runtime::tool;

/// Reads a number.
#[tool]
unsafe fn peek(at: u64) -> String {
    at.to_string()
}

fn main() {}
