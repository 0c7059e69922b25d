use mcp_runtime::prompt;

#[prompt(name = "draft brief")]
fn brief(#[serde(default)] audience: String) -> String {
    audience
}

fn main() {}
