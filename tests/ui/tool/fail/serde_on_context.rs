use mcp_runtime::{Progress, tool};

#[tool]
fn slow(#[serde(rename = "p")] progress: Progress, #[roots(kee = "x")] n: i64) -> String {
    let _ = (progress, n);
    String::new()
}

fn main() {}
