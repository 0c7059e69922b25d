//! The server's `server.json` for the MCP Registry: printed by the server itself
//! (`--server-json`, which every server run by `Server::run` reads) when the command line runs
//! it, or, for a URL, written from what `server/discover` says of it.

use crate::pack::package::Package;
use crate::target::{NAME_ONE, Named, Target, crate_binary};
use mcp_runtime::protocol::Implementation;
use mcp_runtime::{Server, ServerJson};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;

/// What `--registry-name` would be, in the notes.
const NAME_IT: &str = "name it with `--registry-name NAMESPACE/NAME` (io.github.OWNER/NAME, say)";

/// The `server.json`, or why there is none (a sentence).
pub(crate) async fn server_json(
    target: &Target,
    discover: &Value,
    registry_name: Option<&str>,
) -> Result<Value, String> {
    match target.named() {
        Named::Url(url) => {
            let name = registry_name.ok_or_else(|| format!("not made: {NAME_IT}"))?;
            from_discover(url, discover, name)
        }
        Named::Command(command) => {
            let name = registry_name.ok_or_else(|| format!("not made: {NAME_IT}"))?;
            let (program, args) = command
                .split_first()
                .ok_or_else(|| "not made: no command".to_owned())?;
            // The same command, asked for its entry instead of serving on stdio.
            let mut args: Vec<String> = args.iter().filter(|a| *a != "--stdio").cloned().collect();
            args.extend(["--server-json".into(), "--name".into(), name.into()]);
            printed(program, &args, target.timeout()).await
        }
        Named::CurrentCrate(bin) => {
            let binary = crate_binary(bin, NAME_ONE)?;
            let stem = binary
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (package, _) = Package::current(Some(("bin", &stem)))?;
            let name = match registry_name {
                Some(name) => name.to_owned(),
                None => derived_name(&package).ok_or_else(|| {
                    format!(
                        "not made: the crate's `repository` is not a GitHub URL, so no \
                         io.github.OWNER/{} could be derived: {NAME_IT}",
                        package.name
                    )
                })?,
            };
            let args = [
                "--server-json".to_owned(),
                "--name".to_owned(),
                name,
                "--crate".to_owned(),
                format!("{}@{}", package.name, package.version),
            ];
            printed(&binary.to_string_lossy(), &args, target.timeout()).await
        }
    }
}

/// A remote server's entry, from its `serverInfo` and instructions. `ServerJson` is written
/// by a `Server` (`Server::server_json`), so a stand-in server carrying the same `serverInfo`
/// writes it, with the registry's checks.
fn from_discover(url: &str, discover: &Value, name: &str) -> Result<Value, String> {
    let info = &discover["_meta"]["io.modelcontextprotocol/serverInfo"];
    if info.is_null() {
        return Err(
            "not made: the server answers no `server/discover`, so its serverInfo is unknown"
                .into(),
        );
    }
    let info: Implementation = serde_json::from_value(info.clone())
        .map_err(|e| format!("not made: its serverInfo does not read: {e}"))?;
    let mut stand_in = Server::builder().info(info);
    if let Some(instructions) = discover["instructions"].as_str() {
        stand_in = stand_in.instructions(instructions);
    }
    let stand_in = stand_in.build().map_err(|e| format!("not made: {e}"))?;
    stand_in
        .server_json(&ServerJson::new(name).remote(url))
        .map_err(|e| format!("not made: {e}"))
}

/// What `program ARGS…` prints on stdout, as JSON, when it exits successfully within `limit`.
async fn printed(program: &str, args: &[String], limit: Duration) -> Result<Value, String> {
    let shown = format!("`{program} {}`", args.join(" "));
    let mut command = tokio::process::Command::new(program);
    command.args(args).stdin(Stdio::null()).kill_on_drop(true);
    let output = match tokio::time::timeout(limit, command.output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return Err(format!("not made: {shown} could not start: {e}")),
        Err(_) => {
            return Err(format!(
                "not made: {shown} printed nothing within {}s (a server run by \
                 `Server::run` prints its server.json and exits)",
                limit.as_secs()
            ));
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr.lines().rev().find(|l| !l.trim().is_empty());
        return Err(format!(
            "not made: {shown} exited with {}{}",
            output.status,
            why.map(|l| format!(": {}", l.trim())).unwrap_or_default()
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|_| {
        format!(
            "not made: {shown} printed no JSON (a server run by `Server::run` prints its \
             server.json)"
        )
    })
}

/// `io.github.OWNER/CRATE`, when the crate's repository is on GitHub.
fn derived_name(package: &Package) -> Option<String> {
    let url = package.repository.as_deref()?;
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let rest = rest.strip_prefix("www.").unwrap_or(rest);
    let owner = rest.strip_prefix("github.com/")?.split('/').next()?;
    (!owner.is_empty()).then(|| format!("io.github.{owner}/{}", package.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn package(repository: Option<&str>) -> Package {
        Package {
            name: "weather-mcp".into(),
            version: "0.3.0".into(),
            repository: repository.map(str::to_owned),
            ..Package::default()
        }
    }

    #[test]
    fn a_github_repository_names_the_server() {
        let named = |r| derived_name(&package(Some(r)));
        assert_eq!(
            named("https://github.com/owner/weather").as_deref(),
            Some("io.github.owner/weather-mcp")
        );
        assert_eq!(
            named("https://www.github.com/owner/weather.git").as_deref(),
            Some("io.github.owner/weather-mcp")
        );
        assert_eq!(named("https://gitlab.com/owner/weather"), None);
        assert_eq!(derived_name(&package(None)), None);
    }

    #[test]
    fn a_remote_server_s_entry_is_written_from_what_it_says() {
        let discover = json!({
            "instructions": "Forecasts for any city.",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "weather", "version": "0.3.0"}}
        });
        let url = "https://weather.example.com/mcp";
        let entry = from_discover(url, &discover, "io.github.owner/weather").unwrap();
        assert_eq!(entry["$schema"], mcp_runtime::SERVER_JSON_SCHEMA);
        assert_eq!(entry["version"], "0.3.0");
        assert_eq!(entry["description"], "Forecasts for any city.");
        assert_eq!(
            entry["remotes"],
            json!([{"type": "streamable-http", "url": url}])
        );
        // The registry's rules apply: a loopback URL is no remote.
        let local = from_discover(
            "http://127.0.0.1:8000/mcp",
            &discover,
            "io.github.owner/weather",
        );
        assert!(local.unwrap_err().contains("remotes"));
        assert!(
            from_discover(url, &Value::Null, "io.github.owner/weather")
                .unwrap_err()
                .contains("server/discover")
        );
    }
}
