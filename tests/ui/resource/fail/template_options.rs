use mcp_runtime::resource;

#[resource("files://{path}", size = 10, complete(name = ["a"]), cache(ttl_ms = 5, scope = "shared"))]
fn file(path: String) -> String {
    path
}

fn main() {}
