use mcp_runtime::prompt;

#[prompt(complete(audiense = ["support"], audience = "support"))]
fn brief(audience: String) -> String {
    audience
}

fn main() {}
