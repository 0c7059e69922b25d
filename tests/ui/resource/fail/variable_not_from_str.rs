use mcp_runtime::resource;

struct Id(u32);

#[resource("items://{id}")]
fn item(id: Id) -> String {
    id.0.to_string()
}

fn main() {}
