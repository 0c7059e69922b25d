//! The package a bundle is made of (and whose name and version `inspect` gives the current
//! crate's `server.json`): the one of the working directory, or the one holding the binary or
//! example named, as `cargo metadata` describes it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The package a bundle is made of, as `cargo metadata` describes it.
#[derive(Debug, Default)]
pub(crate) struct Package {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) description: Option<String>,
    pub(crate) authors: Vec<String>,
    pub(crate) license: Option<String>,
    pub(crate) repository: Option<String>,
    pub(crate) homepage: Option<String>,
    pub(crate) documentation: Option<String>,
    pub(crate) keywords: Vec<String>,
    pub(crate) bins: Vec<String>,
    /// Its `Cargo.toml`.
    pub(crate) manifest_path: PathBuf,
}

impl Package {
    /// The package of the working directory, or the one holding `target` (kind and name):
    /// the package, and cargo's target directory.
    pub(crate) fn current(target: Option<(&str, &str)>) -> Result<(Package, PathBuf), String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("could not run cargo: {e}"))?;
        if !output.status.success() {
            return Err("`cargo metadata` failed (its message is above): run `pack` in the server crate's folder".into());
        }
        let metadata: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("`cargo metadata` answered no JSON: {e}"))?;
        let here = std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?;
        let here = here.canonicalize().unwrap_or(here);
        let target_dir = metadata["target_directory"].as_str().unwrap_or("target");
        Ok((Package::pick(&metadata, &here, target)?, target_dir.into()))
    }

    /// Of the packages in `cargo metadata`'s answer, those holding `target` (all without
    /// one), the nearest above the folder `here`, as `cargo build` picks it; or the only one.
    pub(crate) fn pick(
        metadata: &Value,
        here: &Path,
        target: Option<(&str, &str)>,
    ) -> Result<Package, String> {
        let holds = |package: &&Value| match target {
            None => true,
            Some((kind, name)) => targets(package, kind).any(|t| t == name),
        };
        let packages = metadata["packages"].as_array().into_iter().flatten();
        let candidates: Vec<&Value> = packages.filter(holds).collect();
        let nearest = candidates
            .iter()
            .filter_map(|p| {
                let dir = Path::new(p["manifest_path"].as_str()?).parent()?;
                let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
                here.starts_with(&dir)
                    .then_some((dir.components().count(), *p))
            })
            .max_by_key(|(depth, _)| *depth)
            .map(|(_, p)| p);
        let package = match (nearest, candidates.as_slice(), target) {
            (Some(package), _, _) => package,
            (None, [only], _) => only,
            (None, [], Some((kind, name))) => {
                return Err(format!(
                    "no package here has the {kind} `{name}`: run `pack` in the server crate's folder"
                ));
            }
            (None, _, _) => {
                return Err("run `pack` in the server crate's folder, or name its server with `--bin NAME` or `--example NAME`".into());
            }
        };
        let text = |key: &str| package[key].as_str().map(str::to_owned);
        let strings = |key: &str| -> Vec<String> {
            let items = package[key].as_array().into_iter().flatten();
            items
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        };
        Ok(Package {
            name: text("name").unwrap_or_default(),
            version: text("version").unwrap_or_default(),
            description: text("description"),
            authors: strings("authors"),
            license: text("license"),
            repository: text("repository"),
            homepage: text("homepage"),
            documentation: text("documentation"),
            keywords: strings("keywords"),
            bins: targets(package, "bin").map(str::to_owned).collect(),
            manifest_path: text("manifest_path").unwrap_or_default().into(),
        })
    }

    /// The package's binary, when it has exactly one.
    pub(crate) fn only_binary(&self) -> Result<&str, String> {
        match self.bins.as_slice() {
            [only] => Ok(only),
            [] => Err(format!(
                "the package `{}` has no binary: name its server with `--example NAME`, or pack one with `--binary PATH`",
                self.name
            )),
            several => Err(format!(
                "the package `{}` has several binaries ({}): pick one with `--bin NAME`",
                self.name,
                several.join(", ")
            )),
        }
    }
}

/// The names of a package's targets of kind `kind` (`bin`, `example`).
fn targets<'a>(package: &'a Value, kind: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let all = package["targets"].as_array().into_iter().flatten();
    all.filter(move |t| {
        t["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == kind))
    })
    .filter_map(|t| t["name"].as_str())
}
