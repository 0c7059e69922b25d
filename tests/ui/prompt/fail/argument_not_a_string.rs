use mcp_runtime::prompt;
use std::collections::HashMap;

type Tags = Vec<String>;

/// Every argument here is a type serde makes, but never from one string: refused at its type.
#[prompt]
fn brief(
    tags: Vec<String>,
    labels: HashMap<String, String>,
    pair: (String, u32),
    sizes: Option<[u32; 2]>,
    aliased: Tags,
    twice: Option<Option<String>>,
) -> String {
    let _ = (tags, labels, pair, sizes, aliased, twice);
    String::new()
}

fn main() {
    // The function is still there, callable as written.
    let _ = brief(
        Vec::new(),
        HashMap::new(),
        (String::new(), 0),
        None,
        Vec::new(),
        None,
    );
}
