use mcp_runtime::resource;

#[resource("config://service")]
fn config() -> u32 {
    7
}

fn main() {}
