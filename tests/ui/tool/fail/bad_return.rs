use mcp_runtime::tool;

struct Sum(i64);

/// A tool for this test.
#[tool]
fn add(a: i64, b: i64) -> Sum {
    Sum(a + b)
}

fn main() {}
