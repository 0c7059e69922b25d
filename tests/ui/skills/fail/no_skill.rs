// A folder without any SKILL.md, one that does not exist, and an argument that is no string.
use mcp_runtime::{Server, skills};

fn main() {
    let _ = Server::builder().skills(skills!("empty"));
    let _ = Server::builder().skills(skills!("missing"));
    let _ = Server::builder().skills(skills!(skills));
}
