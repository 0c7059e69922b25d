use mcp_runtime::prompt;

#[prompt(titel = "Review", name = "review", name = "again")]
fn review() -> String {
    String::new()
}

fn main() {}
