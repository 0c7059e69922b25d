use mcp_runtime::tool;

struct NotAnExtractor;

#[tool]
fn whoami(#[ctx] who: NotAnExtractor) -> String {
    let _ = who;
    String::new()
}

fn main() {}
