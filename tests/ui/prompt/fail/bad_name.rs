use mcp_runtime::prompt;

#[prompt(name = "draft brief")]
fn brief(#[serde(rename = "who")] audience: String) -> String {
    audience
}

fn main() {}
