//! `install HOST` run as a user runs it, for each host without a command line of its own to
//! check the result in CI (Claude Desktop, Cursor, VS Code, Goose, a plain `mcp.json`): a file
//! seeded with other servers in the host's own shape gets a local and a remote entry in the
//! shape the host documents, a second run leaves it byte for byte, everything else in it stays
//! as it was, `--remove` gives the seed back, `--dry-run` writes nothing, and the token's
//! value is never written anywhere, only its variable's name.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use yaml_rust2::{Yaml, YamlLoader};

/// The variable `--bearer-env` names, and a value it holds while the command runs: a value
/// that must never reach the file or the output.
const TOKEN_VAR: &str = "TOKEN_VAR";
const TOKEN: &str = "tok-4f9c-must-never-be-written";

const LOCAL: &[&str] = &[
    "--name",
    "x",
    "--env",
    "K=V",
    "--",
    "/abs/path/server",
    "--stdio",
];
const REMOTE: &[&str] = &[
    "--name",
    "y",
    "--url",
    "https://example.test/mcp",
    "--bearer-env",
    TOKEN_VAR,
];
const REMOVE_X: &[&str] = &["--name", "x", "--remove"];
const REMOVE_Y: &[&str] = &["--name", "y", "--remove"];

/// A folder of this test's own.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-install-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `cargo mcp-runtime install HOST --config FILE ARGS…`, the token's variable set.
fn install(host: &str, file: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-runtime"))
        .args(["mcp-runtime", "install", host, "--config"])
        .arg(file)
        .args(args)
        .env(TOKEN_VAR, TOKEN)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    for said in [&out.stdout, &out.stderr] {
        assert!(!text(said).contains(TOKEN), "the token was printed");
    }
    out
}

/// `install` that succeeds, saying `what`.
fn done(host: &str, file: &Path, args: &[&str], what: &str) {
    let out = install(host, file, args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains(what), "{}", text(&out.stdout));
}

/// `args` with `--dry-run` (before any `--`).
fn dry<'a>(args: &[&'a str]) -> Vec<&'a str> {
    [&["--dry-run"][..], args].concat()
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap()
}

/// What one round of installs left in a host's file.
struct Written {
    /// With the local entry.
    local: String,
    /// With both entries (the remote one refused: `None`).
    both: Option<String>,
    /// With both removed again.
    removed: String,
}

/// The round every host goes through: dry runs, the local entry, the remote one (or its
/// refusal, `refused` the words it must say), each installed twice, then both removed.
fn round(host: &str, file: &Path, seed: &str, refused: Option<&str>) -> Written {
    std::fs::write(file, seed).unwrap();
    done(host, file, &dry(LOCAL), "would write");
    assert_eq!(read(file), seed, "a dry run wrote the file");
    done(host, file, LOCAL, "written to");
    let local = read(file);
    done(host, file, LOCAL, "already up to date");
    assert_eq!(read(file), local, "a second install changed the file");
    let both = match refused {
        None => {
            done(host, file, &dry(REMOTE), "would write");
            assert_eq!(read(file), local, "a dry run wrote the file");
            done(host, file, REMOTE, "written to");
            let both = read(file);
            done(host, file, REMOTE, "already up to date");
            assert_eq!(read(file), both, "a second install changed the file");
            Some(both)
        }
        Some(words) => {
            let out = install(host, file, REMOTE);
            assert_eq!(out.status.code(), Some(1));
            let said = text(&out.stderr);
            assert!(said.contains(words), "{said}");
            assert_eq!(read(file), local, "a refused install wrote the file");
            None
        }
    };
    let last = both.clone().unwrap_or_else(|| local.clone());
    for written in [&local, &last] {
        assert!(
            !written.contains(TOKEN),
            "the token was written:\n{written}"
        );
    }
    if refused.is_none() {
        assert!(last.contains(TOKEN_VAR), "{last}");
    }
    done(host, file, &dry(REMOVE_X), "would write");
    assert_eq!(read(file), last, "a dry run wrote the file");
    done(host, file, REMOVE_X, "removed from");
    if refused.is_none() {
        done(host, file, REMOVE_Y, "removed from");
    }
    let removed = read(file);
    done(host, file, REMOVE_X, "is not in");
    assert_eq!(read(file), removed);
    Written {
        local,
        both,
        removed,
    }
}

/// `text` as JSON, comments allowed (VS Code's files are JSONC).
fn jsonc(text: &str) -> Value {
    let ast = jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default());
    ast.unwrap().value.unwrap().into()
}

/// `value` without the entries `x` and `y` under `servers`, nor the input VS Code prompts
/// for `y`'s token.
fn others(mut value: Value, servers: &str) -> Value {
    let list = value[servers].as_object_mut().unwrap();
    list.remove("x");
    list.remove("y");
    if let Some(inputs) = value.get_mut("inputs").and_then(Value::as_array_mut) {
        inputs.retain(|i| i["id"] != "y-token");
    }
    value
}

/// Every comment of `seed` (a line of its own, or after a value) is in `written` as it was,
/// in the same order.
fn comments_kept(seed: &str, written: &str) {
    let comments = seed.lines().filter_map(|line| {
        let trimmed = line.trim_start();
        match trimmed.starts_with("//") || trimmed.starts_with("/*") {
            true => Some(trimmed),
            false => line.find(" // ").map(|at| &line[at + 1..]),
        }
    });
    let mut rest = written;
    for comment in comments {
        let at = rest
            .find(comment)
            .unwrap_or_else(|| panic!("lost {comment:?}:\n{written}"));
        rest = &rest[at + comment.len()..];
    }
}

/// The local entry as every `mcpServers` host documents it: `command`, `args`, `env`.
fn local_entry() -> Value {
    json!({"command": "/abs/path/server", "args": ["--stdio"], "env": {"K": "V"}})
}

#[test]
fn claude_desktop_takes_the_local_entry_and_says_where_a_remote_one_goes() {
    let dir = scratch("claude-desktop");
    let file = dir.join("claude_desktop_config.json");
    // Claude Desktop reads strict JSON: no comments, but the person's own spacing.
    let seed = "{\n\t\"globalShortcut\": \"\",\n\t\"mcpServers\":{\n\t\t\"other\": {\"command\":\"npx\", \"args\":[\"-y\",\"other\"],\n\t\t          \"env\": {\"A\":\"1\"}}\n\t}\n}";
    let written = round(
        "claude-desktop",
        &file,
        seed,
        Some(
            "Claude Desktop's file takes local servers only: add a remote server in Claude Desktop under Settings → Connectors",
        ),
    );
    let parsed: Value = serde_json::from_str(&written.local).unwrap();
    // https://modelcontextprotocol.io/docs/develop/connect-local-servers: servers under
    // `mcpServers`, each `command`, `args` and `env`.
    assert_eq!(parsed["mcpServers"]["x"], local_entry());
    // https://support.claude.com/en/articles/11175166-getting-started-with-custom-connectors-using-remote-mcp:
    // remote servers are added in the app (Settings → Connectors), not in this file; the
    // refusal above says so.
    assert_eq!(
        others(parsed, "mcpServers"),
        serde_json::from_str::<Value>(seed).unwrap()
    );
    assert_eq!(written.removed, seed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cursor_entries_take_the_documented_shape_and_the_token_from_the_environment() {
    let dir = scratch("cursor");
    let file = dir.join("mcp.json");
    let seed = "{\"mcpServers\": {\n    \"other\":   {\"url\": \"https://other.example/mcp\", \"headers\": {\"Authorization\": \"Bearer ${env:OTHER_TOKEN}\"}}\n  },\n  \"theme\":\"dark\"}\n";
    let written = round("cursor", &file, seed, None);
    let both = written.both.unwrap();
    let parsed: Value = serde_json::from_str(&both).unwrap();
    // https://cursor.com/docs/mcp: `mcpServers`; a local server's `command`, `args`, `env`.
    assert_eq!(parsed["mcpServers"]["x"], local_entry());
    // Same page: a remote server's `url` and `headers`, a value read from the environment at
    // start as `${env:NAME}` (config interpolation).
    assert_eq!(
        parsed["mcpServers"]["y"],
        json!({
            "url": "https://example.test/mcp",
            "headers": {"Authorization": "Bearer ${env:TOKEN_VAR}"},
        })
    );
    assert_eq!(
        others(parsed, "mcpServers"),
        serde_json::from_str::<Value>(seed).unwrap()
    );
    assert!(both.starts_with("{\"mcpServers\": {\n    \"other\":   {\"url\": \"https://other.example/mcp\", \"headers\": {\"Authorization\": \"Bearer ${env:OTHER_TOKEN}\"}},\n"), "{both}");
    assert!(both.ends_with("  },\n  \"theme\":\"dark\"}\n"), "{both}");
    assert_eq!(written.removed, seed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn vscode_entries_are_typed_and_the_token_is_a_password_input() {
    let dir = scratch("vscode");
    let file = dir.join("mcp.json");
    // VS Code's `mcp.json` is JSONC; its inputs as VS Code's editor lays them out.
    let seed = r#"{
  // workspace servers
  "inputs": [
    {
      "type": "promptString",
      "id": "other-key",
      "description": "Other key",
      "password": true
    }
  ],
  "servers": {
    "other":   {"type": "http", "url": "https://other.example/mcp", "headers": {"Authorization": "Bearer ${input:other-key}"}}  // by hand
  }
}
"#;
    let written = round("vscode", &file, seed, None);
    let both = written.both.unwrap();
    let parsed = jsonc(&both);
    // https://code.visualstudio.com/docs/copilot/reference/mcp-configuration: servers under
    // `servers`; a stdio server's `type: "stdio"` (required), `command`, `args`, `env`.
    assert_eq!(
        parsed["servers"]["x"],
        json!({"type": "stdio", "command": "/abs/path/server", "args": ["--stdio"], "env": {"K": "V"}})
    );
    // Same page: an HTTP server's `type: "http"`, `url`, `headers`, the secret an input
    // variable `${input:ID}`.
    assert_eq!(
        parsed["servers"]["y"],
        json!({
            "type": "http",
            "url": "https://example.test/mcp",
            "headers": {"Authorization": "Bearer ${input:y-token}"},
        })
    );
    // Same page: the input is a `promptString` with its `id`, a `description` (here naming
    // the variable to paste from) and `password: true`, so VS Code keeps it in its secret
    // storage, not in the file.
    let input = &parsed["inputs"][1];
    assert_eq!(input["type"], "promptString");
    assert_eq!(input["id"], "y-token");
    assert_eq!(input["password"], true);
    assert!(input["description"].as_str().unwrap().contains(TOKEN_VAR));
    assert_eq!(others(parsed, "servers"), jsonc(seed));
    comments_kept(seed, &written.local);
    comments_kept(seed, &both);
    assert!(both.starts_with("{\n  // workspace servers\n  \"inputs\": [\n    {\n      \"type\": \"promptString\",\n      \"id\": \"other-key\",\n      \"description\": \"Other key\",\n      \"password\": true\n    },\n"), "{both}");
    assert_eq!(written.removed, seed);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A VS Code file with no `inputs` yet gets the array with the token's input; removing the
/// server takes the input out but leaves the array it made, empty (the syntax-tree edit in
/// `src/install/json.rs` removes the element, not the property it created). So this seed
/// comes back with one more property, `"inputs": []`, which VS Code reads as no inputs:
/// everything else is compared byte for byte.
#[test]
fn vscode_without_inputs_gets_the_seed_back_whole() {
    let dir = scratch("vscode-bare");
    let file = dir.join("mcp.json");
    let seed = "{\n    /* no inputs yet */\n    \"servers\":   {\n        \"other\":{\"type\":\"stdio\",\"command\":\"x\",\"args\":[]}\n    }\n}\n";
    let written = round("vscode", &file, seed, None);
    let both = written.both.unwrap();
    assert_eq!(others(jsonc(&both), "servers"), {
        let mut seed = jsonc(seed);
        seed["inputs"] = json!([]);
        seed
    });
    comments_kept(seed, &both);
    // The `inputs` the install added goes with the token's input.
    assert_eq!(written.removed, seed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_plain_mcp_json_gets_the_common_shape() {
    let dir = scratch("mcp-json");
    let file = dir.join("mcp.json");
    let seed = "{\n  \"mcpServers\": {\n    \"other\": { \"command\": \"node\", \"args\": [ \"other.js\" ] }\n  }\n}\n";
    let written = round("mcp-json", &file, seed, None);
    let parsed: Value = serde_json::from_str(&written.both.unwrap()).unwrap();
    // No single owner documents a plain `mcp.json`: the `mcpServers` shape Claude Desktop and
    // Cursor share (https://modelcontextprotocol.io/docs/develop/connect-local-servers,
    // https://cursor.com/docs/mcp), the token as `${VAR}`, the expansion Claude Code applies
    // to a project's `.mcp.json` (https://code.claude.com/docs/en/mcp, "Environment variable
    // expansion in .mcp.json").
    assert_eq!(parsed["mcpServers"]["x"], local_entry());
    assert_eq!(
        parsed["mcpServers"]["y"],
        json!({
            "url": "https://example.test/mcp",
            "headers": {"Authorization": "Bearer ${TOKEN_VAR}"},
        })
    );
    assert_eq!(
        others(parsed, "mcpServers"),
        serde_json::from_str::<Value>(seed).unwrap()
    );
    assert_eq!(written.removed, seed);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `text` without the entries `names` (as written under `extensions:`, at two spaces): the
/// key's line and every line indented deeper after it, blank lines kept.
fn without_entries(text: &str, names: &[&str]) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let blank = line.trim().is_empty();
        if !blank && indent <= 2 {
            skipping = indent == 2 && names.iter().any(|n| line.starts_with(&format!("  {n}:")));
        }
        // The entries written have no blank line: one after them belongs to what follows.
        if blank || !skipping {
            out.push(line);
        }
    }
    out.concat()
}

fn yaml(text: &str) -> Yaml {
    YamlLoader::load_from_str(text).unwrap().remove(0)
}

#[test]
fn goose_entries_are_extensions_and_the_token_a_secret_key() {
    let dir = scratch("goose");
    let file = dir.join("config.yaml");
    // Goose's `config.yaml` as Goose writes it, with a person's comments and a remote
    // extension added by hand.
    let seed = "# Goose settings
GOOSE_PROVIDER: anthropic
GOOSE_MODEL: claude-sonnet-4
extensions:
  developer:
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  # a remote one, by hand
  github:
    enabled: true
    type: streamable_http
    name: github
    description: GitHub
    uri: https://api.githubcopilot.com/mcp/
    env_keys:
    - GITHUB_TOKEN
    headers:
      Authorization: Bearer ${GITHUB_TOKEN}
    timeout: 300

GOOSE_MODE: smart_approve
";
    let written = round("goose", &file, seed, None);
    let both = written.both.unwrap();
    let parsed = yaml(&both);
    let (x, y) = (&parsed["extensions"]["x"], &parsed["extensions"]["y"]);
    // https://block.github.io/goose/docs/guides/config-files: extensions under `extensions`,
    // each with `enabled`, `type`, `name` and `timeout`; the fields of each type are those of
    // `ExtensionConfig` in block/goose `crates/goose/src/agents/extension.rs`: a `stdio`
    // extension's `cmd`, `args` and `envs`.
    assert_eq!(x["type"].as_str(), Some("stdio"));
    assert_eq!(x["name"].as_str(), Some("x"));
    assert_eq!(x["cmd"].as_str(), Some("/abs/path/server"));
    assert_eq!(x["args"], yaml("[\"--stdio\"]"));
    assert_eq!(x["envs"], yaml("K: V"));
    assert_eq!(x["enabled"].as_bool(), Some(true));
    assert_eq!(x["timeout"].as_i64(), Some(300));
    // Same file: a `streamable_http` extension's `uri`, `headers`, `env_keys`, and a
    // `description` it has no default for. block/goose
    // `crates/goose/src/agents/extension_manager/helpers.rs` (`merge_environments`,
    // `substitute_env_vars`): each `env_keys` name is looked up as a secret (the environment
    // variable first, `config/base/secrets.rs`) and `${NAME}` in a header replaced by it.
    assert_eq!(y["type"].as_str(), Some("streamable_http"));
    assert_eq!(y["name"].as_str(), Some("y"));
    assert_eq!(y["description"].as_str(), Some(""));
    assert_eq!(y["uri"].as_str(), Some("https://example.test/mcp"));
    assert_eq!(y["env_keys"], yaml("[TOKEN_VAR]"));
    assert_eq!(
        y["headers"]["Authorization"].as_str(),
        Some("Bearer ${TOKEN_VAR}")
    );
    assert_eq!(y["enabled"].as_bool(), Some(true));
    // Everything else, byte for byte: the text without the two entries is the seed.
    assert_eq!(without_entries(&written.local, &["x"]), seed);
    assert_eq!(without_entries(&both, &["x", "\"y\""]), seed);
    let seeded = yaml(seed);
    for key in ["GOOSE_PROVIDER", "GOOSE_MODEL", "GOOSE_MODE"] {
        assert_eq!(parsed[key], seeded[key]);
    }
    for name in ["developer", "github"] {
        assert_eq!(parsed["extensions"][name], seeded["extensions"][name]);
    }
    assert_eq!(written.removed, seed);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A variable Goose would read under another name (it upper-cases the key to look up the
/// environment) is refused, naming the one to use; nothing is written.
#[test]
fn goose_refuses_a_token_variable_it_would_not_read() {
    let dir = scratch("goose-lower");
    let file = dir.join("config.yaml");
    let seed = "extensions:\n  developer:\n    enabled: true\n    type: builtin\n";
    std::fs::write(&file, seed).unwrap();
    let out = install(
        "goose",
        &file,
        &[
            "--name",
            "y",
            "--url",
            "https://example.test/mcp",
            "--bearer-env",
            "token_var",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stderr);
    assert!(said.contains("name it like `TOKEN_VAR`"), "{said}");
    assert_eq!(read(&file), seed);
    let _ = std::fs::remove_dir_all(&dir);
}
