use mcp_runtime::tool;

#[tool(name = "add numbers")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tool]
fn a_function_name_that_is_far_too_long_to_be_a_tool_name_in_mcp_listings(a: i64) -> i64 {
    a
}

fn main() {}
