use mcp_runtime::tool;

/// Builds the report.
#[tool(task = "sometimes")]
async fn report() -> String {
    "done".into()
}

/// Counts, synchronously.
#[tool(task = "optional")]
fn count() -> u32 {
    1
}

fn main() {
    // Both functions still exist after the errors.
    let _ = report();
    let _ = count();
}
