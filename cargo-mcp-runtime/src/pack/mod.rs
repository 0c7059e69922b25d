//! `pack`: the current crate's server as an MCP Bundle (`.mcpb`), the file Claude Desktop
//! installs in one click: a zip archive holding `manifest.json` and the server's binary under
//! `server/`. The manifest's details come from the crate (`cargo metadata`), flags overriding
//! them; its tools and prompts are what the built server lists when started with `--stdio`.

mod archive;
mod manifest;
pub(crate) mod package;
#[cfg(test)]
mod tests;

use manifest::{Listed, Manifest, Overrides};
use mcp_runtime::client::{Client, ClientError};
use package::Package;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `pack` was asked.
#[derive(clap::Args)]
pub(crate) struct Pack {
    /// The binary of the current crate to pack, when it has several.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["example", "binary"])]
    bin: Option<String>,
    /// An example of the current crate to pack instead of a binary.
    #[arg(long, value_name = "NAME", conflicts_with = "binary")]
    example: Option<String>,
    /// A server binary already built, packed as it is (nothing is built); the crate's details
    /// still fill the manifest.
    #[arg(long, value_name = "PATH", conflicts_with = "debug")]
    binary: Option<PathBuf>,
    /// Builds with the release profile (the default).
    #[arg(long, overrides_with = "debug")]
    release: bool,
    /// Builds with the dev profile instead.
    #[arg(long, overrides_with = "release")]
    debug: bool,
    /// Where the bundle is written (`target/mcpb/NAME-VERSION-OS-ARCH.mcpb` unless set).
    #[arg(long, short = 'o', value_name = "PATH")]
    output: Option<PathBuf>,
    #[command(flatten)]
    overrides: Overrides,
    /// Seconds the server may take to start and list its tools and prompts.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    timeout: u64,
    /// Arguments the host passes the server after `--stdio`: `-- ARGS…`.
    #[arg(last = true, value_name = "ARGS")]
    args: Vec<String>,
}

impl Pack {
    /// Builds the server, lists what it offers, and writes the bundle.
    pub(crate) async fn run(mut self) -> Result<(), String> {
        let target = match (&self.bin, &self.example) {
            (Some(bin), _) => Some(("bin", bin.as_str())),
            (None, Some(example)) => Some(("example", example.as_str())),
            (None, None) => None,
        };
        let (package, target_dir) = Package::current(target)?;
        if let Some(example) = &self.example {
            self.overrides.name.get_or_insert_with(|| example.clone());
        }
        // Every detail the crate lacks is asked for before anything is built.
        let mut manifest = Manifest::new(&package, &self.overrides, platform()?)?;
        let binary = match &self.binary {
            Some(path) if path.is_file() => path.clone(),
            Some(path) => return Err(format!("`--binary {}`: no such file", path.display())),
            None => {
                let (kind, name) = match target {
                    Some(target) => target,
                    None => ("bin", package.only_binary()?),
                };
                build(
                    &package.manifest_path,
                    kind,
                    name,
                    self.release || !self.debug,
                )?
            }
        };
        let file = binary
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .ok_or_else(|| format!("`{}` names no file", binary.display()))?;
        let mut args = vec!["--stdio".to_owned()];
        args.extend(self.args.iter().cloned());
        let listed = list(&binary, &args, Duration::from_secs(self.timeout.max(1))).await?;
        let (tools, prompts) = (listed.tools.len(), listed.prompts.len());
        manifest.serve(&file, &args, listed);
        let output = match &self.output {
            Some(path) => path.clone(),
            None => target_dir.join("mcpb").join(format!(
                "{}-{}-{}-{}.mcpb",
                manifest.name,
                manifest.version,
                std::env::consts::OS,
                std::env::consts::ARCH
            )),
        };
        let json = serde_json::to_string_pretty(&manifest)
            .map_err(|e| format!("could not write the manifest: {e}"))?;
        archive::write(&output, &(json + "\n"), &binary, &file)?;
        say!(
            "packed {} ({tools} tools, {prompts} prompts): open it in Claude Desktop to install it",
            output.display()
        );
        Ok(())
    }
}

/// The platform the bundle runs on, as the manifest names it: the one built on.
fn platform() -> Result<&'static str, String> {
    match std::env::consts::OS {
        "linux" => Ok("linux"),
        "macos" => Ok("darwin"),
        "windows" => Ok("win32"),
        other => Err(format!(
            "a bundle runs on Linux, macOS or Windows, and this is {other}: pack it on one of those"
        )),
    }
}

/// Builds the target `name` of kind `kind` (`bin` or `example`) of the package at
/// `manifest_path` (the compiler's messages go to the terminal); the executable's path.
fn build(manifest_path: &Path, kind: &str, name: &str, release: bool) -> Result<PathBuf, String> {
    let mut args: Vec<std::ffi::OsString> = vec!["--manifest-path".into(), manifest_path.into()];
    args.extend([format!("--{kind}").into(), name.into()]);
    if release {
        args.push("--release".into());
    }
    let Some(built) = crate::target::cargo_build(&args)? else {
        return Err(format!(
            "`{name}` did not build (the compiler's messages are above); or pack a binary built already with `--binary PATH`"
        ));
    };
    built
        .into_iter()
        .find(|b| b.name == name && b.kinds.iter().any(|k| k == kind))
        .map(|b| b.path)
        .ok_or_else(|| format!("cargo built no executable for the {kind} `{name}`"))
}

/// The tools and prompts the server lists, started as the host will start it.
async fn list(binary: &Path, args: &[String], timeout: Duration) -> Result<Listed, String> {
    let started = format!("{} {}", binary.display(), args.join(" "));
    let client = Client::stdio(binary.to_string_lossy(), args)
        .timeout(timeout)
        .connect()
        .map_err(|e| format!("could not start `{started}`: {e}"))?;
    let failed = |what: &str, e: ClientError| {
        format!("`{started}` did not list its {what}: {e} (its own messages, if any, are above)")
    };
    let tools = match client.list_tools().await {
        Ok(tools) => tools,
        Err(e) if e.code() == Some(-32601) => Vec::new(),
        Err(e) => return Err(failed("tools", e)),
    };
    let prompts = match client.list_prompts().await {
        Ok(prompts) => prompts,
        Err(e) if e.code() == Some(-32601) => Vec::new(),
        Err(e) => return Err(failed("prompts", e)),
    };
    Ok(Listed::new(tools, prompts))
}
