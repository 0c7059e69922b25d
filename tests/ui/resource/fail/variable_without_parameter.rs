use mcp_runtime::resource;

#[resource("files://{dir}/{name}")]
fn file(name: String) -> String {
    name
}

fn main() {}
