//! The server's MCP Apps views: the `ui://` resources its tools open (`_meta.ui.resourceUri`,
//! or the older `_meta["ui/resourceUri"]`) and those it lists as `text/html;profile=mcp-app`,
//! each read to tell its size.

use mcp_runtime::client::Client;
use mcp_runtime::protocol::{APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY, ResourceBody, UI_SCHEME};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The view a tool opens, if it names one.
fn view_of(tool: &Value) -> Option<&str> {
    let meta = &tool["_meta"];
    meta["ui"]["resourceUri"]
        .as_str()
        .or_else(|| meta[LEGACY_RESOURCE_URI_KEY].as_str())
        .filter(|uri| uri.starts_with(UI_SCHEME))
}

/// Whether a listed resource is an app's document (`text/html;profile=mcp-app`, spaces and
/// case aside).
fn is_app(resource: &Value) -> bool {
    let uri = resource["uri"].as_str().unwrap_or("");
    let mime: String = resource["mimeType"]
        .as_str()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    uri.starts_with(UI_SCHEME) && mime.eq_ignore_ascii_case(APP_MIME_TYPE)
}

/// The views, by URI: each with its listing's name, title and MIME type, the tools that open
/// it (with their `_meta.ui.visibility`), and its size once read (or why it could not be).
pub(crate) async fn views(client: &Client, tools: &Value, resources: &Value) -> Vec<Value> {
    let mut views: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for resource in resources.as_array().into_iter().flatten() {
        if !is_app(resource) {
            continue;
        }
        let view = views.entry(resource["uri"].as_str().unwrap_or("").to_owned());
        let view = view.or_default();
        view.insert("listed".into(), Value::Bool(true));
        for key in ["name", "title", "mimeType"] {
            if let Some(value) = resource.get(key).filter(|v| !v.is_null()) {
                view.insert(key.into(), value.clone());
            }
        }
    }
    for tool in tools.as_array().into_iter().flatten() {
        let Some(uri) = view_of(tool) else { continue };
        let view = views.entry(uri.to_owned()).or_default();
        let mut opener = json!({"name": tool["name"]});
        if let Some(visibility) = tool["_meta"]["ui"].get("visibility") {
            opener["visibility"] = visibility.clone();
        }
        match view.get_mut("tools") {
            Some(Value::Array(openers)) => openers.push(opener),
            _ => {
                view.insert("tools".into(), json!([opener]));
            }
        }
    }
    let mut out = Vec::new();
    for (uri, mut view) in views {
        view.entry("listed").or_insert(Value::Bool(false));
        view.entry("tools").or_insert(json!([]));
        match client.read_resource(&uri).await {
            Ok(read) => {
                let size: usize = read.contents.iter().map(|c| size(&c.body)).sum();
                view.insert("size".into(), size.into());
                if let Some(mime) = read.contents.first().and_then(|c| c.mime_type.clone()) {
                    view.insert("readMimeType".into(), mime.into());
                }
            }
            Err(e) => {
                view.insert("readError".into(), e.to_string().into());
            }
        }
        let mut entry = Map::new();
        entry.insert("uri".into(), uri.into());
        entry.extend(view);
        out.push(Value::Object(entry));
    }
    out
}

/// The size in bytes of a resource's body: its text's, or its decoded blob's.
fn size(body: &ResourceBody) -> usize {
    match body {
        ResourceBody::Text(text) => text.len(),
        ResourceBody::Blob(base64) => {
            let digits = base64.bytes().filter(|b| !b.is_ascii_whitespace()).count();
            let padding = base64.bytes().rev().take_while(|b| *b == b'=').count();
            (digits / 4 * 3).saturating_sub(padding)
        }
    }
}

/// A view on one line: `ui://… — Title · opened by a, b (app only) · 1234 bytes`.
pub(crate) fn line(view: &Value) -> String {
    let mut line = view["uri"].as_str().unwrap_or("?").to_owned();
    if let Some(name) = view["title"].as_str().or(view["name"].as_str()) {
        line.push_str(&format!(" — {name}"));
    }
    let openers: Vec<String> = view["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let name = t["name"].as_str().unwrap_or("?");
            match t["visibility"].as_array() {
                Some(who) if who.len() == 1 && who[0] == "app" => format!("{name} (app only)"),
                _ => name.to_owned(),
            }
        })
        .collect();
    match openers.is_empty() {
        true => line.push_str(" · opened by no tool"),
        false => line.push_str(&format!(" · opened by {}", openers.join(", "))),
    }
    if view["listed"] == false {
        line.push_str(" · not in resources/list");
    }
    match (view["size"].as_u64(), view["readError"].as_str()) {
        (Some(size), _) => line.push_str(&format!(" · {size} bytes")),
        (None, Some(error)) => line.push_str(&format!(" · not read: {error}")),
        (None, None) => {}
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_names_its_view_either_way() {
        let new = json!({"_meta": {"ui": {"resourceUri": "ui://a/v.html"}}});
        let old = json!({"_meta": {"ui/resourceUri": "ui://b/v.html"}});
        let web = json!({"_meta": {"ui": {"resourceUri": "https://x/v.html"}}});
        assert_eq!(view_of(&new), Some("ui://a/v.html"));
        assert_eq!(view_of(&old), Some("ui://b/v.html"));
        assert_eq!(view_of(&web), None);
        assert!(is_app(
            &json!({"uri": "ui://a/v.html", "mimeType": "text/html; profile=mcp-app"})
        ));
        assert!(!is_app(
            &json!({"uri": "ui://a/v.html", "mimeType": "text/html"})
        ));
    }

    #[test]
    fn sizes_are_decoded_bytes() {
        assert_eq!(size(&ResourceBody::Text("héllo".into())), 6);
        assert_eq!(size(&ResourceBody::Blob("aGk=".into())), 2);
        assert_eq!(size(&ResourceBody::Blob("aGV5".into())), 3);
    }

    #[test]
    fn a_view_on_one_line() {
        let view = json!({"uri": "ui://b/v.html", "title": "Board", "listed": true,
            "tools": [{"name": "show"}, {"name": "move", "visibility": ["app"]}], "size": 12});
        assert_eq!(
            line(&view),
            "ui://b/v.html — Board · opened by show, move (app only) · 12 bytes"
        );
    }
}
