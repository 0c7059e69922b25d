//! `inspect`: what a server exposes, readable or as one JSON document: its revision and
//! capabilities, its tools (their arguments, and which hosts read their input schemas as
//! meant), resources, templates, prompts, skills, MCP Apps views, and its `server.json`.

mod apps;
mod portability;
mod server_json;

use crate::target::Target;
use crate::values::{one_line, to_values};
use mcp_runtime::client::{Client, ClientError};
use serde_json::{Value, json};

/// What `inspect` was asked beyond the server.
pub(crate) struct Options<'a> {
    /// The whole answer as JSON.
    pub(crate) json: bool,
    /// The server's name in the MCP Registry, for its `server.json`.
    pub(crate) registry_name: Option<&'a str>,
}

/// A list, or why there is none (`null` when the server does not offer it).
fn listed<T: serde::Serialize>(answer: Result<Vec<T>, ClientError>) -> Result<Value, String> {
    match answer {
        Ok(items) => Ok(Value::Array(to_values(items))),
        Err(e) if e.code() == Some(-32601) => Ok(Value::Null),
        Err(e) if e.is_transport() => Err(e.to_string()),
        Err(e) => Ok(json!({"error": e.to_string()})),
    }
}

pub(crate) async fn inspect(
    client: &Client,
    target: &Target,
    options: Options<'_>,
) -> Result<(), String> {
    // A 2025 server answers no `server/discover`: what it is shows in its lists.
    let discover = client.request("server/discover", json!({})).await;
    if let Err(e) = &discover
        && e.is_transport()
    {
        return Err(e.to_string());
    }
    let discover = discover.unwrap_or(Value::Null);
    let mut tools = listed(client.list_tools().await)?;
    for tool in tools.as_array_mut().into_iter().flatten() {
        let schema = &tool["inputSchema"];
        let (hosts, generic) = (portability::per_host(schema), portability::generic(schema));
        tool["portability"] = hosts;
        tool["portabilityIssues"] = generic;
    }
    let resources = listed(client.list_resources().await)?;
    let views = apps::views(client, &tools, &resources).await;
    let mut report = json!({
        "revision": client.revision(),
        "discover": discover,
        "tools": tools,
        "resources": resources,
        "resourceTemplates": listed(client.list_resource_templates().await)?,
        "prompts": listed(client.list_prompts().await)?,
        "skills": match discover["capabilities"]["extensions"].get(mcp_runtime::protocol::SKILLS_EXTENSION) {
            Some(_) => listed(client.list_skills().await)?,
            None => Value::Null,
        },
        "appsViews": views,
        "portabilityHosts": portability::bases(),
    });
    match server_json::server_json(target, &discover, options.registry_name).await {
        Ok(entry) => report["serverJson"] = entry,
        Err(note) => {
            report["serverJson"] = Value::Null;
            report["serverJsonNote"] = note.into();
        }
    }
    if options.json {
        say!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
        return Ok(());
    }
    let info = &discover["_meta"]["io.modelcontextprotocol/serverInfo"];
    let revision = report["revision"].as_str().unwrap_or("unknown");
    match info["name"].as_str() {
        Some(name) => say!(
            "{name} {} ({}, revision {revision})",
            info["version"].as_str().unwrap_or(""),
            client.server()
        ),
        None => say!("{} (revision {revision})", client.server()),
    }
    if let Some(instructions) = discover["instructions"].as_str() {
        say!("Instructions: {instructions}");
    }
    if let Some(caps) = discover["capabilities"].as_object() {
        let mut names: Vec<String> = caps
            .keys()
            .filter(|k| *k != "extensions")
            .cloned()
            .collect();
        if let Some(extensions) = caps.get("extensions").and_then(Value::as_object) {
            names.extend(extensions.keys().cloned());
        }
        say!("Offers: {}", names.join(", "));
    }
    for (title, key) in [
        ("Tools", "tools"),
        ("Resources", "resources"),
        ("Resource templates", "resourceTemplates"),
        ("Prompts", "prompts"),
        ("Skills", "skills"),
    ] {
        match &report[key] {
            Value::Array(items) => {
                say!("\n{title} ({}):", items.len());
                for item in items {
                    say!("  {}", one_line(item));
                    if key == "tools" {
                        for line in arguments(&item["inputSchema"]) {
                            say!("      {line}");
                        }
                        say!(
                            "      portability: {}",
                            portability::line(&item["portability"])
                        );
                        let generic = item["portabilityIssues"].as_array().map_or(0, Vec::len);
                        if generic > 0 {
                            say!(
                                "      portable form: {generic} issue(s) in the strictest dialects (`--json` lists them)"
                            );
                        }
                    }
                }
            }
            Value::Null => {}
            other => say!("\n{title}: {}", other["error"].as_str().unwrap_or("?")),
        }
    }
    let views = report["appsViews"].as_array().cloned().unwrap_or_default();
    if !views.is_empty() {
        say!("\nApps views ({}):", views.len());
        for view in &views {
            say!("  {}", apps::line(view));
        }
    }
    match (&report["serverJson"], report["serverJsonNote"].as_str()) {
        (Value::Null, note) => say!("\nserver.json: {}", note.unwrap_or("not made")),
        (entry, _) => {
            let text = serde_json::to_string_pretty(entry).unwrap_or_default();
            say!("\nserver.json:");
            for line in text.lines() {
                say!("  {line}");
            }
        }
    }
    Ok(())
}

/// A tool's arguments, one line each: name, type, whether required, description.
fn arguments(schema: &Value) -> Vec<String> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut out = Vec::new();
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let kind = match &property["type"] {
            Value::String(kind) => kind.clone(),
            Value::Array(kinds) => kinds
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("|"),
            _ => "any".to_owned(),
        };
        let mut line = format!("{name}: {kind}");
        if required.contains(&name.as_str()) {
            line.push_str(" (required)");
        }
        if let Some(description) = property["description"].as_str() {
            // One line an argument: a description of several lines joined.
            let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
            line.push_str(&format!(" — {description}"));
        }
        out.push(line);
    }
    out
}
