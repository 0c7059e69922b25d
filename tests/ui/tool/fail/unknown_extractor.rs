use mcp_runtime::tool;

struct NotAnExtractor;

/// A tool for this test.
#[tool]
fn whoami(#[ctx] who: NotAnExtractor) -> String {
    let _ = who;
    String::new()
}

fn main() {}
