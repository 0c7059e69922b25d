use mcp_runtime::resource;

#[resource("files://{name}")]
fn file(name: String, size: u64) -> String {
    format!("{name}{size}")
}

#[resource("config://service")]
fn config(region: String) -> String {
    region
}

fn main() {}
