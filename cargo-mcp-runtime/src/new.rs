//! `new NAME`: a server crate that builds and whose tests pass as it comes, from one of the
//! templates under `templates/`: `basic` (a tool, a resource and a prompt on plain functions,
//! an in-process test of each), `auth` (an OAuth resource server, tested over HTTP with tokens)
//! or `apps` (a tool with an MCP Apps view); each with a README giving its two commands.

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
    /// What the crate holds: `basic` (a tool, a resource, a prompt), `auth` (an OAuth resource
    /// server with a scoped tool) or `apps` (a tool with an MCP Apps view).
    #[arg(long, value_enum, default_value = "basic")]
    template: Template,
}

/// Which crate `new` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Template {
    /// A tool, a resource and a prompt, tested in process.
    Basic,
    /// An OAuth resource server: a tool any signed-in caller may use and one that needs a
    /// scope, tested over HTTP with tokens from a test issuer.
    Auth,
    /// A tool with an MCP Apps view: structured content drawn by a page of its own.
    Apps,
}

/// The files of each template, by the path they take in the crate; `{{name}}`, `{{module}}`
/// and `{{runtime}}` are filled in by [`files`]. (Manifests are kept as `Cargo.toml.in`: cargo
/// leaves a folder holding a `Cargo.toml` out of the package, as a crate of its own.)
fn sources(template: Template) -> Vec<(&'static str, &'static str)> {
    macro_rules! from {
        ($dir:literal: $($path:literal => $file:literal),* $(,)?) => {
            vec![$(($path, include_str!(concat!("../templates/", $dir, "/", $file)))),*]
        };
    }
    let mut files = match template {
        Template::Basic => from!("basic":
            "Cargo.toml" => "Cargo.toml.in", "src/lib.rs" => "lib.rs", "src/main.rs" => "main.rs",
            "tests/server.rs" => "server.rs", "README.md" => "README.md"),
        Template::Auth => from!("auth":
            "Cargo.toml" => "Cargo.toml.in", "src/lib.rs" => "lib.rs", "src/main.rs" => "main.rs",
            "tests/server.rs" => "server.rs", "README.md" => "README.md"),
        Template::Apps => from!("apps":
            "Cargo.toml" => "Cargo.toml.in", "src/lib.rs" => "lib.rs", "src/words.html" => "words.html",
            "tests/server.rs" => "server.rs", "README.md" => "README.md"),
    };
    if template == Template::Apps {
        // Its `main` is the basic one: the view is the server's, not the program's.
        files.push(("src/main.rs", include_str!("../templates/basic/main.rs")));
    }
    files.push((".gitignore", include_str!("../templates/common/gitignore")));
    files
}

/// The crate's files, by path: `template`'s, named `name`, depending on the runtime as
/// `runtime` says (`path = "…"` or `version = "…"`).
fn files(template: Template, name: &str, runtime: &str) -> Vec<(&'static str, String)> {
    let module = name.replace('-', "_");
    sources(template)
        .into_iter()
        .map(|(path, text)| {
            let text = text
                .replace("{{name}}", name)
                .replace("{{module}}", &module)
                .replace("{{runtime}}", runtime);
            (path, text)
        })
        .collect()
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

/// Where the runtime comes from, as the keys of its dependency table: a path to `runtime`, to
/// the checkout this command line was built from, or crates.io's version.
fn runtime_source(runtime: Option<&Path>) -> Result<String, String> {
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-runtime");
    let path = match runtime {
        Some(path) => Some(path.to_path_buf()),
        None => built_from
            .join("Cargo.toml")
            .is_file()
            .then_some(built_from),
    };
    let Some(path) = path else {
        return Ok(format!("version = \"{}\"", env!("CARGO_PKG_VERSION")));
    };
    let path = path
        .canonicalize()
        .map_err(|e| format!("`{}`: {e}", path.display()))?;
    if !path.join("Cargo.toml").is_file() {
        return Err(format!("`{}` holds no Cargo.toml", path.display()));
    }
    let path = path.to_string_lossy().replace('\\', "/");
    Ok(format!("path = \"{path}\""))
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
        let runtime = runtime_source(self.runtime.as_deref())?;
        for (path, text) in files(self.template, &self.name, &runtime) {
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
    fn every_template_names_its_crate_and_module_and_leaves_no_blank() {
        for template in [Template::Basic, Template::Auth, Template::Apps] {
            let files = files(template, "my-adder", "version = \"0.1.0\"");
            let text = |path: &str| &files.iter().find(|(p, _)| *p == path).unwrap().1;
            assert!(text("src/main.rs").contains("my_adder::"), "{template:?}");
            let cargo = text("Cargo.toml");
            assert!(cargo.contains("name = \"my-adder\""), "{template:?}");
            assert!(
                cargo.contains("mcp-runtime = { version = \"0.1.0\""),
                "{template:?}"
            );
            for path in [
                "Cargo.toml",
                "src/lib.rs",
                "src/main.rs",
                "tests/server.rs",
                "README.md",
                ".gitignore",
            ] {
                assert!(
                    !text(path).contains("{{"),
                    "{template:?}: a blank left in {path}"
                );
            }
        }
    }
}
