use mcp_runtime::tool;

#[tool(name = "add", title = "Add", name = "plus")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
