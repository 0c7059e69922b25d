use mcp_runtime::tool;

#[tool(nmae = "adder", descripton = "Add.", annotations(read_onyl))]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
