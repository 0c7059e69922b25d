use mcp_runtime::ElicitForm;

#[derive(serde::Deserialize)]
struct Address {
    city: String,
}

#[derive(serde::Deserialize, ElicitForm)]
struct Signup {
    name: String,
    tags: Vec<String>,
    address: Address,
}

fn main() {}
