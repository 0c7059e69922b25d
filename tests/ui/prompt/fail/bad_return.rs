use mcp_runtime::prompt;

#[prompt]
fn brief(audience: String) -> Vec<String> {
    vec![audience]
}

fn main() {}
