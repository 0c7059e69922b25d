//! The command line run as a user runs it, against a server served over HTTP on a loopback
//! port: typed arguments, answers from flags, progress, exit statuses, and `install` editing a
//! host's file in place.

mod common;

use common::{run, text};
use mcp_runtime::{Ask, Elicitation, FromContext, NoArguments, Rounds, Server, Step, Tool};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Sum {
    /// The first number.
    a: i64,
    /// The second.
    b: i64,
}

fn server() -> Server {
    Server::builder()
        .name("cli-test")
        .version("1.2.3")
        .tool(
            Tool::new("add")
                .description("Adds two numbers.")
                .handler(|s: Sum, _cx| async move { format!("{}", s.a + s.b) }),
        )
        .tool(Tool::new("fail").handler(|_: NoArguments, _cx| async {
            mcp_runtime::protocol::CallToolResult::error("it failed on purpose")
        }))
        .tool(Tool::new("count").handler(
            |_: NoArguments, cx: mcp_runtime::RequestContext| async move {
                for i in 1..=3 {
                    cx.progress()
                        .report(f64::from(i), Some(3.0), Some("counting"));
                }
                "counted"
            },
        ))
        .tool(
            Tool::new("confirm")
                .asks_client_input()
                .raw_handler(|call| async move {
                    let rounds = Rounds::from_context(&call.context)?;
                    let step: Step<String> = match rounds.answer::<Elicitation<String>>("ok")? {
                        None => rounds.ask(Ask::new().elicit::<String>("ok", "Go on?"), &())?,
                        Some(Elicitation::Accepted(word)) => Step::Done(format!("answered {word}")),
                        Some(_) => Step::Done("declined".into()),
                    };
                    mcp_runtime::handler::IntoToolResult::into_tool_result(step)
                }),
        )
        .build()
        .unwrap()
}

/// Serves [`server`] on a loopback port; its URL.
async fn serve() -> String {
    common::serve(server()).await
}

#[tokio::test]
async fn calls_are_typed_answered_and_exit_as_they_end() {
    let url = serve().await;
    let added = run(&["call", "add", "a=2", "b=40", "--url", &url]).await;
    assert!(added.status.success(), "{}", text(&added.stderr));
    assert_eq!(text(&added.stdout).trim(), "42");
    // One JSON object instead of key=value.
    let added = run(&["call", "add", r#"{"a": 1, "b": 1}"#, "--url", &url]).await;
    assert_eq!(text(&added.stdout).trim(), "2");
    // An argument the tool does not take, or of the wrong type: named, before any request.
    let wrong = run(&["call", "add", "a=x", "b=1", "--url", &url]).await;
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        text(&wrong.stderr).contains("argument `a`: `x` is not an integer"),
        "{}",
        text(&wrong.stderr)
    );
    let unknown = run(&["call", "add", "c=1", "--url", &url]).await;
    assert!(text(&unknown.stderr).contains("takes no argument `c`"));
    let missing = run(&["call", "nope", "--url", &url]).await;
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains("no tool `nope` (it lists: add, fail, count, confirm)"),
        "{}",
        text(&missing.stderr)
    );
    // A result that is an error: shown, and the exit status says so.
    let failed = run(&["call", "fail", "--url", &url]).await;
    assert_eq!(failed.status.code(), Some(1));
    assert!(text(&failed.stdout).contains("it failed on purpose"));
    // Progress as a bar on stderr, the result on stdout.
    let counted = run(&["call", "count", "--url", &url]).await;
    assert_eq!(text(&counted.stdout).trim(), "counted");
    assert!(
        text(&counted.stderr).contains("3/3 counting"),
        "{}",
        text(&counted.stderr)
    );
    let quiet = run(&["call", "count", "--quiet", "--url", &url]).await;
    assert!(!text(&quiet.stderr).contains("counting"));
    // The server's question: answered from a flag, declined without a terminal.
    let answered = run(&["call", "confirm", "--answer", "value=yes", "--url", &url]).await;
    assert_eq!(
        text(&answered.stdout).trim(),
        "answered yes",
        "{}",
        text(&answered.stderr)
    );
    let wrong_field = run(&["call", "confirm", "--answer", "nope=1", "--url", &url]).await;
    let complaint = text(&wrong_field.stderr);
    assert!(complaint.contains("no field `nope`"), "{complaint}");
    let declined = run(&["call", "confirm", "--url", &url]).await;
    assert_eq!(text(&declined.stdout).trim(), "declined");
    assert!(text(&declined.stderr).contains("--answer FIELD=VALUE"));
    // A server that is not there.
    let gone = run(&["call", "add", "--url", "http://127.0.0.1:9/mcp"]).await;
    assert_eq!(gone.status.code(), Some(1));
    assert!(
        text(&gone.stderr).contains("could not be reached"),
        "{}",
        text(&gone.stderr)
    );
}

#[tokio::test]
async fn inspect_and_list_say_what_the_server_exposes() {
    let url = serve().await;
    let shown = run(&["inspect", "--url", &url]).await;
    let out = text(&shown.stdout);
    assert!(out.starts_with("cli-test 1.2.3"), "{out}");
    assert!(out.contains("revision 2026-07-28"), "{out}");
    assert!(out.contains("add — Adds two numbers."), "{out}");
    assert!(
        out.contains("a: integer (required) — The first number."),
        "{out}"
    );
    let json: Value =
        serde_json::from_slice(&run(&["inspect", "--json", "--url", &url]).await.stdout).unwrap();
    assert_eq!(json["tools"].as_array().unwrap().len(), 4);
    assert_eq!(
        json["prompts"],
        Value::Null,
        "no prompts offered: none listed"
    );
    let listed = run(&["list", "tools", "--url", &url]).await;
    assert_eq!(text(&listed.stdout).lines().count(), 4);
}

#[tokio::test]
async fn install_edits_a_hosts_file_in_place() {
    let dir = std::env::temp_dir().join(format!("cli-install-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    let before = "{\n  // mine\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
    std::fs::write(&file, before).unwrap();
    let config = file.to_string_lossy().into_owned();
    let install = |extra: &'static [&'static str]| {
        let config = config.clone();
        async move {
            let mut args = vec!["install", "cursor", "--name", "notes", "--config", &config];
            args.extend_from_slice(extra);
            args.extend_from_slice(&["--", "/opt/notes", "--stdio"]);
            run(&args).await
        }
    };
    let dry = install(&["--dry-run"]).await;
    assert!(
        text(&dry.stdout).contains("would write"),
        "{}",
        text(&dry.stderr)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let done = install(&["--env", "NOTES_DIR=/srv/notes"]).await;
    assert!(done.status.success(), "{}", text(&done.stderr));
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written
            .starts_with("{\n  // mine\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},"),
        "{written}"
    );
    let parsed: Value = serde_json::from_str(&written.replace("// mine", "")).unwrap();
    assert_eq!(
        parsed["mcpServers"]["notes"],
        json!({"command": "/opt/notes", "args": ["--stdio"], "env": {"NOTES_DIR": "/srv/notes"}})
    );
    let again = install(&["--env", "NOTES_DIR=/srv/notes"]).await;
    assert!(text(&again.stdout).contains("already up to date"));
    let removed = run(&[
        "install", "cursor", "--name", "notes", "--config", &config, "--remove",
    ])
    .await;
    assert!(removed.status.success(), "{}", text(&removed.stderr));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    // A remote server in Claude Desktop's file: refused, with where it goes instead.
    let refused = run(&[
        "install",
        "claude-desktop",
        "--name",
        "x",
        "--config",
        &config,
        "--url",
        "https://x.example/mcp",
    ])
    .await;
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("Connectors"));
    let _ = std::fs::remove_dir_all(&dir);
}
