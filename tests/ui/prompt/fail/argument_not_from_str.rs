use mcp_runtime::prompt;

struct Audience {
    name: String,
}

#[prompt]
fn brief(audience: Audience) -> String {
    audience.name
}

fn main() {}
