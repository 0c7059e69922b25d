use mcp_runtime::resource;

#[resource(name = "config", mime_tipe = "application/json")]
fn config() -> String {
    String::new()
}

fn main() {}
