//! `new NAME`: a server crate that builds and whose tests pass as it comes: a tool, a resource
//! and a prompt on plain functions, an in-process test of each, and a README with its two
//! commands.

use std::path::{Path, PathBuf};

/// What `new` was asked.
#[derive(clap::Args)]
pub(crate) struct New {
    /// The crate's name (a folder of that name is made in the working directory).
    name: String,
    /// Where the crate goes, instead of `./NAME`.
    #[arg(long, value_name = "PATH")]
    path: Option<PathBuf>,
    /// Depend on the mcp-runtime crate in this folder (a checkout of the framework), instead of
    /// the one this command line was built from (or crates.io's when it was installed from
    /// there).
    #[arg(long, value_name = "PATH")]
    runtime: Option<PathBuf>,
}

/// The crate's files, by path.
fn files(name: &str, runtime: &str) -> Vec<(&'static str, String)> {
    let module = name.replace('-', "_");
    let cargo = format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"

[dependencies]
{runtime}
tokio = {{ version = "1", features = ["rt-multi-thread", "macros"] }}
serde = {{ version = "1", features = ["derive"] }}
schemars = "1"

[dev-dependencies]
serde_json = "1"
"#
    );
    let lib = format!(
        r#"//! The {name} server: its tools, resources and prompts, each a plain function.

use mcp_runtime::prelude::*;

/// Add two integers. Use only for arithmetic addition.
#[tool(annotations(read_only))]
pub fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
) -> i64 {{
    a + b
}}

/// What this server is for, in a sentence.
#[resource("info://{name}/about", name = "about", mime_type = "text/plain")]
pub fn about() -> &'static str {{
    "{name} adds numbers for its clients."
}}

/// Ask the model to explain a sum step by step.
#[prompt]
pub fn explain_sum(
    /// The numbers to add, separated by spaces.
    numbers: String,
) -> String {{
    format!("Add these numbers one at a time, showing each step: {{numbers}}")
}}

/// The server: everything marked above, found at link time.
pub fn build() -> Result<Server, mcp_runtime::BuildError> {{
    Server::from_inventory()
        .name("{name}")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Adds numbers. Read info://{name}/about for more.")
        .build()
}}
"#
    );
    let main = format!(
        r#"//! Serves {name}: `cargo run` (Streamable HTTP on http://127.0.0.1:8000/mcp; `-- --addr
//! HOST:PORT` to move it) or `cargo run -- --stdio`.

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {{
    {module}::build()?.run().await
}}
"#
    );
    let test = format!(
        r#"//! The server through the whole request pipeline, in process (no sockets).

use mcp_runtime::testing::TestClient;
use serde_json::json;

fn client() -> TestClient {{
    TestClient::new({module}::build().expect("the server builds"))
}}

#[tokio::test]
async fn add_adds() {{
    let result = client().call_tool("add", json!({{"a": 2, "b": 40}})).await.unwrap();
    assert_eq!(result.text(), "42");
}}

#[tokio::test]
async fn a_wrong_argument_is_refused() {{
    let result = client().call_tool("add", json!({{"a": "two", "b": 1}})).await.unwrap();
    assert!(result.failed());
}}

#[tokio::test]
async fn the_resource_and_the_prompt_are_served() {{
    let client = client();
    let about = client.read_resource("info://{name}/about").await.unwrap();
    assert!(format!("{{:?}}", about.contents[0]).contains("adds numbers"));
    let prompt = client.get_prompt("explain_sum", json!({{"numbers": "1 2 3"}})).await.unwrap();
    assert!(format!("{{:?}}", prompt.messages[0]).contains("1 2 3"));
}}
"#
    );
    let readme = format!(
        r#"# {name}

An MCP server built with the mcp-runtime framework: a tool (`add`), a resource
(`info://{name}/about`) and a prompt (`explain_sum`), each a plain function in `src/lib.rs`.

Run it (Streamable HTTP on http://127.0.0.1:8000/mcp; `cargo run -- --stdio` for stdio):

```sh
cargo run
```

Run its tests:

```sh
cargo test
```

Try it: `cargo mcp-runtime call add a=2 b=40` calls a tool of this crate's server;
`cargo mcp-runtime install claude-code` adds it to Claude Code.
"#
    );
    vec![
        ("Cargo.toml", cargo),
        ("src/lib.rs", lib),
        ("src/main.rs", main),
        ("tests/server.rs", test),
        ("README.md", readme),
        (".gitignore", "/target\n".to_owned()),
    ]
}

/// A crate name cargo takes: ASCII letters, digits, `-` and `_`, not starting with a digit.
fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    match ok {
        true => Ok(()),
        false => Err(format!(
            "`{name}` is not a crate name: use ASCII letters, digits, `-` and `_`, not starting with a digit"
        )),
    }
}

/// The dependency line on the runtime: a path to `runtime`, to the checkout this command line
/// was built from, or crates.io's.
fn runtime_line(runtime: Option<&Path>) -> Result<String, String> {
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-runtime");
    let path = match runtime {
        Some(path) => Some(path.to_path_buf()),
        None => built_from
            .join("Cargo.toml")
            .is_file()
            .then_some(built_from),
    };
    let Some(path) = path else {
        return Ok(format!("mcp-runtime = \"{}\"", env!("CARGO_PKG_VERSION")));
    };
    let path = path
        .canonicalize()
        .map_err(|e| format!("`{}`: {e}", path.display()))?;
    if !path.join("Cargo.toml").is_file() {
        return Err(format!("`{}` holds no Cargo.toml", path.display()));
    }
    let path = path.to_string_lossy().replace('\\', "/");
    Ok(format!("mcp-runtime = {{ path = \"{path}\" }}"))
}

/// The `Cargo.toml` with a `[workspace]` table in a folder above `dir`, if any.
fn enclosing_workspace(dir: &Path) -> Option<PathBuf> {
    let dir = std::path::absolute(dir).ok()?;
    dir.ancestors().skip(1).find_map(|above| {
        let manifest = above.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).ok()?;
        text.lines()
            .any(|l| l.trim() == "[workspace]")
            .then_some(manifest)
    })
}

impl New {
    pub(crate) fn run(self) -> Result<(), String> {
        check_name(&self.name)?;
        let dir = self
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(&self.name));
        if dir.exists() && dir.read_dir().map_or(true, |mut d| d.next().is_some()) {
            return Err(format!("`{}` exists and is not empty", dir.display()));
        }
        let runtime = runtime_line(self.runtime.as_deref())?;
        for (path, text) in files(&self.name, &runtime) {
            let path = dir.join(path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("could not create {}: {e}", parent.display()))?;
            }
            std::fs::write(&path, text)
                .map_err(|e| format!("could not write {}: {e}", path.display()))?;
        }
        say!("created `{}` in {}", self.name, dir.display());
        if let Some(workspace) = enclosing_workspace(&dir) {
            say!(
                "  note: {} is inside the workspace of {}: add the crate to its `members` (or `exclude`) for cargo to build it",
                dir.display(),
                workspace.display()
            );
        }
        say!("  cd {} && cargo test && cargo run", dir.display());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cargo_refuses_are_refused() {
        assert!(check_name("adder").is_ok());
        assert!(check_name("my_server-2").is_ok());
        assert!(check_name("2fast").is_err());
        assert!(check_name("a b").is_err());
        assert!(check_name("").is_err());
    }

    #[test]
    fn the_crate_names_its_module() {
        let files = files("my-adder", "mcp-runtime = \"0.1.0\"");
        let main = &files.iter().find(|(p, _)| *p == "src/main.rs").unwrap().1;
        assert!(main.contains("my_adder::build()"));
        let cargo = &files.iter().find(|(p, _)| *p == "Cargo.toml").unwrap().1;
        assert!(cargo.contains("name = \"my-adder\"") && cargo.contains("mcp-runtime = \"0.1.0\""));
    }
}
