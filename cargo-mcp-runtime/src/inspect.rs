//! `inspect`: what a server exposes, readable or as one JSON document.

use crate::values::{one_line, to_values};
use mcp_runtime::client::{Client, ClientError};
use serde_json::{Value, json};

/// A list, or why there is none (`null` when the server does not offer it).
fn listed<T: serde::Serialize>(answer: Result<Vec<T>, ClientError>) -> Result<Value, String> {
    match answer {
        Ok(items) => Ok(Value::Array(to_values(items))),
        Err(e) if e.code() == Some(-32601) => Ok(Value::Null),
        Err(e) if e.is_transport() => Err(e.to_string()),
        Err(e) => Ok(json!({"error": e.to_string()})),
    }
}

pub(crate) async fn inspect(client: &Client, as_json: bool) -> Result<(), String> {
    // A 2025 server answers no `server/discover`: what it is shows in its lists.
    let discover = client.request("server/discover", json!({})).await;
    if let Err(e) = &discover
        && e.is_transport()
    {
        return Err(e.to_string());
    }
    let discover = discover.unwrap_or(Value::Null);
    let report = json!({
        "revision": client.revision(),
        "discover": discover,
        "tools": listed(client.list_tools().await)?,
        "resources": listed(client.list_resources().await)?,
        "resourceTemplates": listed(client.list_resource_templates().await)?,
        "prompts": listed(client.list_prompts().await)?,
        "skills": match discover["capabilities"]["extensions"].get(mcp_runtime::protocol::SKILLS_EXTENSION) {
            Some(_) => listed(client.list_skills().await)?,
            None => Value::Null,
        },
    });
    if as_json {
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
                    }
                }
            }
            Value::Null => {}
            other => say!("\n{title}: {}", other["error"].as_str().unwrap_or("?")),
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
            line.push_str(&format!(" — {description}"));
        }
        out.push(line);
    }
    out
}
