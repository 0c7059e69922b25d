use mcp_runtime::tool;

#[tool(
    meta = "tier: gold",
    annotations(destructive = "yes"),
    icon(mime_type = "image/png")
)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
