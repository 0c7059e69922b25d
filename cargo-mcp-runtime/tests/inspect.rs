//! `inspect` on the example servers: the apps example's views and the tools that open them,
//! each host's reading of the everything example's hand-written JSON Schema 2020-12 tool, and
//! the `server.json` a `-- COMMAND` server prints of itself.

// The example servers' own code, served in process over HTTP.
#[path = "../../examples/apps/server.rs"]
#[allow(dead_code)]
mod apps;
#[path = "../../examples/everything/schemas.rs"]
#[allow(dead_code)]
mod schemas;

mod common;

use common::{run, serve, text};
use mcp_runtime::{SERVER_JSON_SCHEMA, Server};
use serde_json::Value;
use std::path::PathBuf;

/// `inspect --json ARGS…`, parsed.
async fn inspected(args: &[&str]) -> Value {
    let mut all = vec!["inspect", "--json"];
    all.extend_from_slice(args);
    let out = run(&all).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

fn named<'a>(items: &'a Value, key: &str, name: &str) -> &'a Value {
    items
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item[key] == name)
        .unwrap_or_else(|| panic!("no {name} in {items}"))
}

#[tokio::test]
async fn the_apps_example_shows_its_views_and_the_tools_that_open_them() {
    let url = serve(apps::build().unwrap()).await;
    let json = inspected(&["--url", &url, "--registry-name", "io.github.example/apps"]).await;
    let views = json["appsViews"].as_array().unwrap();
    // The board, the chart, the notes' search and three views generated from result types.
    assert_eq!(views.len(), 6, "{views:?}");
    let board = named(&json["appsViews"], "uri", apps::BOARD_VIEW);
    let openers: Vec<&str> = board["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(openers, ["add_card", "move_card", "show_board"]);
    assert_eq!(
        named(&board["tools"], "name", "move_card")["visibility"],
        serde_json::json!(["app"])
    );
    assert_eq!(board["listed"], true);
    // The SDK embedded in it states its size (built without it, why it cannot be read).
    assert!(
        board["size"].as_u64().is_some_and(|n| n > 400_000) || board["readError"].is_string(),
        "{board}"
    );
    let generated = named(&json["appsViews"], "uri", "ui://views/list_cards.html");
    assert_eq!(generated["tools"][0]["name"], "list_cards");
    assert!(
        generated["size"].as_u64().is_some_and(|n| n < 20_000),
        "{generated}"
    );
    let chart = named(&json["appsViews"], "uri", apps::CHART_VIEW);
    assert_eq!(chart["tools"][0]["name"], "chart");
    assert_eq!(chart["mimeType"], "text/html;profile=mcp-app");
    let html = include_str!("../../examples/apps/chart.html");
    assert_eq!(chart["size"], html.len());
    // A loopback URL is no registry remote: no server.json, and why.
    assert_eq!(json["serverJson"], Value::Null);
    assert!(
        json["serverJsonNote"].as_str().unwrap().contains("remotes"),
        "{}",
        json["serverJsonNote"]
    );

    let shown = run(&["inspect", "--url", &url]).await;
    let out = text(&shown.stdout);
    assert!(out.contains("\nApps views (6):\n"), "{out}");
    let line = format!(
        "  ui://chart/chart.html — Chart · opened by chart · {} bytes\n",
        html.len()
    );
    assert!(out.contains(&line), "{out}");
    assert!(out.contains("move_card (app only)"), "{out}");
    assert!(
        out.contains("server.json: not made: name it with `--registry-name"),
        "{out}"
    );
}

#[tokio::test]
async fn a_hand_written_schema_is_marked_for_the_hosts_that_misread_it() {
    let server = Server::builder()
        .name("schemas")
        .version("1.0.0")
        .tool(schemas::json_schema_2020_12_tool())
        .tool(schemas::test_custom_header {})
        .build()
        .unwrap();
    let url = serve(server).await;
    let json = inspected(&["--url", &url]).await;
    let tool = named(&json["tools"], "name", "json_schema_2020_12_tool");
    let hosts = &tool["portability"];
    let pointers = |host: &str| -> Vec<String> {
        hosts[host]["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["pointer"].as_str().unwrap().to_owned())
            .collect()
    };
    // A root `allOf`: the Anthropic API refuses it (Claude Code flattens it or drops the tool).
    assert_eq!(hosts["claude"]["ok"], false);
    assert_eq!(pointers("claude"), ["/allOf"]);
    // Passed on to Gemini as JSON Schema.
    assert_eq!(hosts["gemini"]["ok"], true, "{hosts}");
    // `if`/`then`/`else` have no place in Codex's schema model.
    assert_eq!(pointers("codex"), ["/else", "/if", "/then"]);
    // Composition keywords anywhere: refused by Cursor (reported).
    assert_eq!(pointers("cursor"), ["/allOf", "/allOf/0/anyOf"]);
    // The runtime's generic rules, beside them.
    assert!(!tool["portabilityIssues"].as_array().unwrap().is_empty());
    // A derived schema reads the same everywhere.
    let portable = named(&json["tools"], "name", "test_custom_header");
    for host in ["claude", "gemini", "codex", "cursor"] {
        assert_eq!(portable["portability"][host]["ok"], true, "{host}");
    }

    let shown = text(&run(&["inspect", "--url", &url]).await.stdout);
    assert!(
        shown.contains(
            "portability: Claude ✗ (allOf at the root) · Gemini ✓ · Codex ✗ (else at the root, if at the root, …) · Cursor ✗ (allOf at the root, anyOf at /allOf/0)"
        ),
        "{shown}"
    );
    assert!(
        shown.contains("portability: Claude ✓ · Gemini ✓ · Codex ✓ · Cursor ✓"),
        "{shown}"
    );
}

/// The workspace's root, where the apps example is an example of the root package.
fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The apps example's binary, built (a debug build, which CI's other steps have made already).
fn apps_binary() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = std::process::Command::new(cargo)
        .args(["build", "--example", "apps", "--message-format=json"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", text(&built.stderr));
    text(&built.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|m| m["target"]["name"] == "apps" && m["executable"].is_string())
        .map(|m| PathBuf::from(m["executable"].as_str().unwrap()))
        .expect("cargo built the apps example")
}

#[tokio::test]
async fn a_command_prints_its_own_server_json() {
    let binary = tokio::task::spawn_blocking(apps_binary).await.unwrap();
    let binary = binary.to_string_lossy().into_owned();
    let json = inspected(&[
        "--registry-name",
        "io.github.example/apps",
        "--",
        &binary,
        "--stdio",
    ])
    .await;
    let entry = &json["serverJson"];
    assert_eq!(entry["$schema"], SERVER_JSON_SCHEMA, "{json}");
    assert_eq!(entry["name"], "io.github.example/apps");
    assert_eq!(entry["version"], "1.0.0");
    // The same server over stdio: its views too.
    assert_eq!(json["appsViews"].as_array().unwrap().len(), 6);
    // No name: none is made, and the flag to pass is named.
    let unnamed = inspected(&["--", &binary, "--stdio"]).await;
    assert_eq!(unnamed["serverJson"], Value::Null);
    assert!(
        unnamed["serverJsonNote"]
            .as_str()
            .unwrap()
            .contains("--registry-name"),
        "{unnamed}"
    );
}
