use mcp_runtime::tool;
use std::rc::Rc;

#[tool]
async fn count(text: String) -> usize {
    let shared = Rc::new(text);
    tokio::task::yield_now().await;
    shared.len()
}

fn main() {}
