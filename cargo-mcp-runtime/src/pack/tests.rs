//! The manifest made from a package's metadata, the flags and the server's lists; and which
//! package of a workspace is packed.

use super::manifest::{Listed, Manifest, Overrides, author_of};
use super::package::Package;
use mcp_runtime::protocol::{PromptInfo, ToolInfo};
use serde_json::{Value, json};
use std::path::Path;

/// `cargo metadata`'s answer for a workspace: a root package with an example, and a server
/// crate in `servers/weather` with one binary.
fn metadata() -> Value {
    json!({
        "packages": [
            {
                "name": "examples",
                "version": "0.1.0",
                "description": "Examples.",
                "authors": [],
                "manifest_path": "/ws/Cargo.toml",
                "targets": [{"name": "notes", "kind": ["example"]}, {"name": "examples", "kind": ["lib"]}],
            },
            {
                "name": "weather",
                "version": "1.2.0",
                "description": "Forecasts, by city.",
                "authors": ["Ada Lovelace <ada@example.com>", "Someone Else"],
                "license": "MIT OR Apache-2.0",
                "repository": "https://github.com/example/weather",
                "homepage": "example.com/weather",
                "documentation": "https://docs.rs/weather",
                "keywords": ["weather", "mcp"],
                "manifest_path": "/ws/servers/weather/Cargo.toml",
                "targets": [{"name": "weather", "kind": ["bin"]}],
            },
        ],
        "target_directory": "/ws/target",
    })
}

/// Two tools and two prompts, one of each with nothing but a name.
fn listed() -> Listed {
    let tools: Vec<ToolInfo> = serde_json::from_value(json!([
        {"name": "forecast", "description": "The forecast of a city.", "inputSchema": {"type": "object"}},
        {"name": "ping", "inputSchema": {"type": "object"}},
    ]))
    .unwrap();
    let prompts: Vec<PromptInfo> = serde_json::from_value(json!([
        {"name": "trip", "description": "Plan a trip.", "arguments": [{"name": "city", "required": true}, {"name": "days"}]},
        {"name": "bare"},
    ]))
    .unwrap();
    Listed::new(tools, prompts)
}

#[test]
fn the_manifest_comes_from_the_package_and_what_the_server_lists() {
    let here = Path::new("/ws/servers/weather/src");
    let package = Package::pick(&metadata(), here, None).unwrap();
    assert_eq!(package.only_binary(), Ok("weather"));
    let mut manifest = Manifest::new(&package, &Overrides::default(), "darwin").unwrap();
    let args = [
        "--stdio".to_owned(),
        "--units".to_owned(),
        "metric".to_owned(),
    ];
    manifest.serve("weather", &args, listed());
    assert_eq!(
        serde_json::to_value(&manifest).unwrap(),
        json!({
            "manifest_version": "0.2",
            "name": "weather",
            "version": "1.2.0",
            "description": "Forecasts, by city.",
            "author": {"name": "Ada Lovelace", "email": "ada@example.com"},
            "repository": {"type": "git", "url": "https://github.com/example/weather"},
            // `homepage` is no URL (no scheme): left out, the schema refusing it.
            "documentation": "https://docs.rs/weather",
            "server": {
                "type": "binary",
                "entry_point": "server/weather",
                "mcp_config": {
                    "command": "${__dirname}/server/weather",
                    "args": ["--stdio", "--units", "metric"],
                },
            },
            "tools": [
                {"name": "forecast", "description": "The forecast of a city."},
                {"name": "ping"},
            ],
            "prompts": [
                {"name": "trip", "description": "Plan a trip.", "arguments": ["city", "days"], "text": "Plan a trip."},
                {"name": "bare", "text": "bare"},
            ],
            "keywords": ["weather", "mcp"],
            "license": "MIT OR Apache-2.0",
            "compatibility": {"platforms": ["darwin"]},
        })
    );
    // The fields in the documentation's order.
    let text = serde_json::to_string(&manifest).unwrap();
    assert!(text.starts_with(r#"{"manifest_version":"0.2","name":"weather","version""#));
    assert!(text.contains(r#"{"type":"binary","entry_point""#), "{text}");
}

#[test]
fn flags_override_the_package_and_fill_what_it_lacks() {
    // The example lives in the root package, found from a folder beneath another package.
    let here = Path::new("/ws/servers/weather");
    let package = Package::pick(&metadata(), here, Some(("example", "notes"))).unwrap();
    assert_eq!(package.name, "examples");
    let missing = Manifest::new(&package, &Overrides::default(), "linux").unwrap_err();
    assert!(missing.contains("--author"), "{missing}");
    let overrides = Overrides {
        name: Some("notes".into()),
        display_name: Some("Notes".into()),
        description: Some("Takes notes.".into()),
        author: Some("The Team".into()),
    };
    let manifest = Manifest::new(&package, &overrides, "linux").unwrap();
    let value = serde_json::to_value(&manifest).unwrap();
    assert_eq!(value["name"], "notes");
    assert_eq!(value["display_name"], "Notes");
    assert_eq!(value["description"], "Takes notes.");
    assert_eq!(value["author"], json!({"name": "The Team"}));
    assert_eq!(value["tools"], json!([]));
    let no_description = Package {
        description: None,
        ..Package::default()
    };
    let refused = Manifest::new(&no_description, &Overrides::default(), "linux").unwrap_err();
    assert!(refused.contains("--description"), "{refused}");
}

#[test]
fn authors_keep_only_addresses_the_schema_takes() {
    let email = |author: &str| author_of(author).email;
    assert_eq!(email("A <a@b.io>").as_deref(), Some("a@b.io"));
    assert_eq!(author_of("A <a@b.io>").name, "A");
    assert_eq!(email("A <https://a.io>"), None);
    assert_eq!(email("A <me@localhost>"), None);
    assert_eq!(author_of("  Just A Name ").name, "Just A Name");
}

#[test]
fn the_package_is_the_one_asked_for_or_the_nearest() {
    let metadata = metadata();
    // At the root: the root package, which has no binary.
    let root = Package::pick(&metadata, Path::new("/ws"), None).unwrap();
    assert_eq!(root.name, "examples");
    let none = root.only_binary().unwrap_err();
    assert!(none.contains("--example NAME"), "{none}");
    // A binary named from the root: the package that has it.
    let named = Package::pick(&metadata, Path::new("/ws"), Some(("bin", "weather"))).unwrap();
    assert_eq!(named.name, "weather");
    let absent = Package::pick(&metadata, Path::new("/ws"), Some(("bin", "nope"))).unwrap_err();
    assert!(absent.contains("the bin `nope`"), "{absent}");
    // Outside every package, with nothing named: which one is not guessed.
    let outside = Package::pick(&metadata, Path::new("/elsewhere"), None).unwrap_err();
    assert!(outside.contains("--bin NAME"), "{outside}");
    let several = Package {
        name: "p".into(),
        bins: vec!["a".into(), "b".into()],
        ..Package::default()
    };
    assert!(several.only_binary().unwrap_err().contains("(a, b)"));
}
