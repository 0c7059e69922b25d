use mcp_runtime::tool;

#[tool]
struct Add {
    a: i64,
}

fn main() {}
