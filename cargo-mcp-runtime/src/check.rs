//! `check URL`: the server as hosted connectors and hosts will meet it, each finding with its
//! fix: both eras' handshakes, the GET a browser (or a connector's probe) sends, the OAuth
//! discovery preflight, CORS, the portability of its tools' schemas, TLS and the port.

mod probe;

use mcp_runtime::client::Client;
use probe::Probe;
use serde_json::json;
use std::process::ExitCode;

/// How bad a finding is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Ok,
    Info,
    Warn,
    Fail,
}

/// What one check found, and what to do about it.
struct Finding {
    level: Level,
    what: String,
    fix: Option<String>,
}

#[derive(Default)]
struct Report(Vec<Finding>);

impl Report {
    fn add(&mut self, level: Level, what: impl Into<String>, fix: Option<&str>) {
        self.0.push(Finding {
            level,
            what: what.into(),
            fix: fix.map(str::to_owned),
        });
    }
}

/// What `check` was asked.
#[derive(clap::Args)]
pub(crate) struct Check {
    /// The server's Streamable HTTP endpoint.
    url: String,
    /// A bearer token to call a protected server's tools with (read from this environment
    /// variable), for the schema checks.
    #[arg(long, value_name = "VAR")]
    bearer_env: Option<String>,
}

impl Check {
    pub(crate) async fn run(self) -> Result<ExitCode, String> {
        let probe = Probe::new(&self.url)?;
        let mut report = Report::default();
        say!("check {}", self.url);
        transport(&probe, &mut report);
        let protected = handshakes(&probe, &mut report).await;
        browser_get(&probe, &mut report).await;
        oauth(&probe, protected.as_ref(), &mut report).await;
        cors(&probe, &mut report).await;
        self.schemas(protected.is_some(), &mut report).await;
        let mut worst = Level::Ok;
        for finding in &report.0 {
            worst = worst.max(finding.level);
            let tag = match finding.level {
                Level::Ok => "ok  ",
                Level::Info => "info",
                Level::Warn => "warn",
                Level::Fail => "FAIL",
            };
            say!("  {tag}  {}", finding.what);
            if let Some(fix) = &finding.fix {
                say!("        fix: {fix}");
            }
        }
        let count = |l: Level| report.0.iter().filter(|f| f.level == l).count();
        say!(
            "{} failed, {} warnings, {} passed",
            count(Level::Fail),
            count(Level::Warn),
            count(Level::Ok)
        );
        Ok(match worst {
            Level::Fail => ExitCode::FAILURE,
            _ => ExitCode::SUCCESS,
        })
    }

    /// The tools' input schemas against what hosts' converters read.
    async fn schemas(&self, protected: bool, report: &mut Report) {
        let mut remote = Client::http(self.url.clone());
        match (&self.bearer_env, protected) {
            (Some(var), _) => match std::env::var(var) {
                Ok(token) => remote = remote.bearer(token),
                Err(_) => {
                    return report.add(
                        Level::Fail,
                        format!("`--bearer-env {var}`: `{var}` is not set"),
                        None,
                    );
                }
            },
            (None, true) => {
                return report.add(
                    Level::Info,
                    "tools' schemas not checked: the server wants a token",
                    Some("pass one with `--bearer-env VAR`"),
                );
            }
            (None, false) => {}
        }
        let tools = match remote.connect() {
            Ok(client) => client.list_tools().await,
            Err(e) => Err(e),
        };
        let tools = match tools {
            Ok(tools) => tools,
            Err(e) => return report.add(Level::Fail, format!("tools/list failed: {e}"), None),
        };
        let mut clean = 0;
        for tool in &tools {
            let schema = serde_json::to_value(&tool.input_schema).unwrap_or_default();
            let issues = match schema.as_object() {
                Some(schema) => mcp_runtime::schema::portability_issues(schema),
                None => continue,
            };
            if issues.is_empty() {
                clean += 1;
                continue;
            }
            for issue in issues {
                report.add(
                    Level::Warn,
                    format!("tool `{}`'s input schema {issue}", tool.name),
                    Some("hosts' converters drop or misread it: a derived schema is made portable by the framework; write a hand-made one the same way"),
                );
            }
        }
        report.add(
            Level::Ok,
            format!(
                "{clean} of {} tools' input schemas read the same in every host dialect",
                tools.len()
            ),
            None,
        );
    }
}

/// HTTPS and port 443 for a server on the internet (hosted connectors reach nothing else).
fn transport(probe: &Probe, report: &mut Report) {
    if probe.loopback() {
        return report.add(
            Level::Info,
            "a loopback URL: TLS and the port are not checked",
            None,
        );
    }
    match probe.https() {
        true => report.add(Level::Ok, "HTTPS", None),
        false => report.add(
            Level::Fail,
            "plain HTTP on a public address",
            Some("serve HTTPS (a TLS-terminating proxy in front, as deploy/nginx.conf): hosted connectors refuse anything else"),
        ),
    }
    match probe.port() {
        443 => report.add(Level::Ok, "port 443", None),
        other => report.add(
            Level::Fail,
            format!("port {other}"),
            Some("serve on 443: hosted connectors (claude.ai's among them) fail silently on other ports"),
        ),
    }
}

/// Both eras' handshakes; the server's challenge when it wants a token.
async fn handshakes(probe: &Probe, report: &mut Report) -> Option<String> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "cargo-mcp-runtime-check", "version": env!("CARGO_PKG_VERSION")},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let discover =
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}});
    let answer = probe
        .post(
            &discover,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "server/discover"),
            ],
        )
        .await;
    let answer = match answer {
        Ok(answer) => answer,
        Err(e) => {
            report.add(
                Level::Fail,
                format!("the server could not be reached: {e}"),
                Some("is it running, and is the URL its endpoint (usually ending in /mcp)?"),
            );
            return None;
        }
    };
    if answer.status == 401 {
        let challenge = answer.header("www-authenticate").unwrap_or_default();
        report.add(
            Level::Ok,
            "the server wants a token (401 to an anonymous request)",
            None,
        );
        return Some(challenge);
    }
    match answer.json().filter(|a| a.get("result").is_some()) {
        Some(result) => {
            let info = &result["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
            report.add(
                Level::Ok,
                format!(
                    "2026-07-28: server/discover answered ({} {})",
                    info["name"].as_str().unwrap_or("?"),
                    info["version"].as_str().unwrap_or("")
                ),
                None,
            );
        }
        None => report.add(
            Level::Info,
            format!(
                "2026-07-28: server/discover not answered (HTTP {}): a 2025-only server",
                answer.status
            ),
            None,
        ),
    }
    for version in ["2025-11-25", "2025-06-18"] {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "cargo-mcp-runtime-check", "version": env!("CARGO_PKG_VERSION")}}});
        match probe.post(&init, &[]).await {
            Ok(a) if a.json().is_some_and(|j| j.get("result").is_some()) => {
                let agreed = a.json().and_then(|j| j["result"]["protocolVersion"].as_str().map(str::to_owned)).unwrap_or_default();
                report.add(Level::Ok, format!("{version}: initialize answered (protocol {agreed})"), None);
                if let Some(session) = a.header("mcp-session-id") {
                    let ending = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", version)];
                    let _ = probe.delete(&ending).await;
                }
            }
            Ok(a) => report.add(
                Level::Warn,
                format!("{version}: initialize refused (HTTP {})", a.status),
                Some("hosts that speak only 2025 revisions (most today) cannot connect: serve both eras (the framework does unless `modern_only`)"),
            ),
            Err(e) => report.add(Level::Fail, format!("{version}: initialize failed: {e}"), None),
        }
    }
    None
}

/// The GET a browser, or a connector's first probe, sends: anything but 406.
async fn browser_get(probe: &Probe, report: &mut Report) {
    let accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    match probe.get(probe.url(), &[("accept", accept)]).await {
        Ok(a) if a.status == 406 => report.add(
            Level::Fail,
            "a GET with a browser's Accept is answered 406",
            Some("answer a GET you do not serve with 405 Method Not Allowed (`Allow: POST`): hosted connectors give up on a 406 without saying why"),
        ),
        Ok(a) if a.status >= 500 => report.add(Level::Fail, format!("a browser's GET is answered HTTP {}", a.status), Some("a GET must never fail the server: answer 405")),
        Ok(a) => report.add(Level::Ok, format!("a browser's GET is answered HTTP {} (not 406)", a.status), None),
        Err(e) => report.add(Level::Fail, format!("a browser's GET failed: {e}"), None),
    }
}

/// The OAuth discovery a connector makes first: RFC 9728 metadata where the server challenges,
/// clean 404s where it does not.
async fn oauth(probe: &Probe, challenge: Option<&String>, report: &mut Report) {
    let Some(challenge) = challenge else {
        for path in probe.metadata_paths() {
            match probe.get(&path, &[("accept", "application/json")]).await {
                Ok(a) if a.status == 404 => report.add(Level::Ok, format!("no auth: {path} answers 404"), None),
                Ok(a) if a.status == 200 && a.json().is_some() => report.add(
                    Level::Warn,
                    format!("no auth, yet {path} serves metadata"),
                    Some("a connector will try OAuth: serve the metadata only with auth turned on"),
                ),
                Ok(a) => report.add(
                    Level::Fail,
                    format!("no auth: {path} answers HTTP {} instead of a clean 404", a.status),
                    Some("answer 404 (a catch-all page, a 401 or a 5xx there makes connectors fail before the first request)"),
                ),
                Err(e) => report.add(Level::Fail, format!("{path}: {e}"), None),
            }
        }
        return;
    };
    let Some(metadata) = resource_metadata(challenge) else {
        return report.add(
            Level::Fail,
            format!("the 401's challenge names no resource metadata (`{challenge}`)"),
            Some("send `WWW-Authenticate: Bearer resource_metadata=\"https://…/.well-known/oauth-protected-resource…\"` (RFC 9728), as `ResourceServer` does"),
        );
    };
    report.add(
        Level::Ok,
        "the 401's challenge names its resource metadata",
        None,
    );
    match probe
        .get(&metadata, &[("accept", "application/json")])
        .await
    {
        Ok(a) => match a.json() {
            Some(doc)
                if a.status == 200
                    && doc["authorization_servers"]
                        .as_array()
                        .is_some_and(|s| !s.is_empty()) =>
            {
                let resource = doc["resource"].as_str().unwrap_or("");
                match resource.trim_end_matches('/') == probe.url().trim_end_matches('/') {
                    true => report.add(Level::Ok, format!("{metadata}: names its authorization servers and this resource"), None),
                    false => report.add(
                        Level::Fail,
                        format!("{metadata}: `resource` is `{resource}`, not this URL"),
                        Some("clients refuse a token audience that differs from the URL they connect to: set the resource to the public URL"),
                    ),
                }
            }
            _ => report.add(
                Level::Fail,
                format!(
                    "{metadata}: HTTP {}, not RFC 9728 metadata with `authorization_servers`",
                    a.status
                ),
                None,
            ),
        },
        Err(e) => report.add(Level::Fail, format!("{metadata}: {e}"), None),
    }
}

/// The `resource_metadata` parameter of a Bearer challenge.
fn resource_metadata(challenge: &str) -> Option<String> {
    let at = challenge.find("resource_metadata=")? + "resource_metadata=".len();
    let rest = &challenge[at..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => &quoted[..quoted.find('"')?],
        None => rest.split([',', ' ']).next()?,
    };
    Some(value.to_owned())
}

/// A browser client's preflight (a web host, the MCP Inspector).
async fn cors(probe: &Probe, report: &mut Report) {
    if probe.loopback() {
        return report.add(
            Level::Info,
            "a loopback URL: CORS is not checked (a local server refuses foreign origins)",
            None,
        );
    }
    let headers = [
        ("origin", "https://claude.ai"),
        ("access-control-request-method", "POST"),
        (
            "access-control-request-headers",
            "content-type,authorization,mcp-protocol-version",
        ),
    ];
    match probe.options(&headers).await {
        Ok(a) if a.header("access-control-allow-origin").is_some() => report.add(Level::Ok, "CORS: a browser's preflight is allowed", None),
        Ok(a) => report.add(
            Level::Warn,
            format!("CORS: a browser's preflight gets no Access-Control-Allow-Origin (HTTP {})", a.status),
            Some("browser-based clients cannot call it: allow the origins you trust (`HttpOptions::allow_origin`)"),
        ),
        Err(e) => report.add(Level::Warn, format!("CORS: the preflight failed: {e}"), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_names_its_metadata() {
        let quoted = r#"Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp", scope="a""#;
        assert_eq!(
            resource_metadata(quoted).as_deref(),
            Some("https://x.example/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            resource_metadata("Bearer resource_metadata=https://x/m, scope=a").as_deref(),
            Some("https://x/m")
        );
        assert_eq!(resource_metadata("Bearer realm=\"x\""), None);
    }
}
