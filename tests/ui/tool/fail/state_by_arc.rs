use mcp_runtime::tool;
use std::sync::Arc;

struct Notes;

/// Counts notes.
#[tool]
fn count(store: Arc<Notes>) -> usize {
    let _ = store;
    0
}

fn main() {}
