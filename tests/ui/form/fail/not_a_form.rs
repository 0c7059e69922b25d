use mcp_runtime::ElicitForm;

#[derive(serde::Deserialize, ElicitForm)]
struct Pair(String, String);

#[derive(serde::Deserialize, ElicitForm)]
enum Choice {
    Yes,
    Maybe(String),
}

#[derive(serde::Deserialize, ElicitForm)]
struct Bad {
    #[form(min_len = 3, format = "phone")]
    name: String,
}

fn main() {}
