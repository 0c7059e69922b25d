use mcp_runtime::tool;
use std::rc::Rc;

/// A tool for this test.
#[tool]
async fn count(text: String) -> usize {
    let shared = Rc::new(text);
    tokio::task::yield_now().await;
    shared.len()
}

fn main() {}
