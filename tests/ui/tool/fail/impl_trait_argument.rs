use mcp_runtime::tool;

#[tool]
fn show(value: impl ToString, (a, b): (i64, i64)) -> String {
    format!("{}{a}{b}", value.to_string())
}

fn main() {}
