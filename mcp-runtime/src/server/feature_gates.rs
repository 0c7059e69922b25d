//! What a server built without the `tasks` or `skills` feature does with a task tool and with
//! the extensions' methods, and what the same tool does with `tasks`; a generated result view
//! with and without `result-views` (unit tests of `build`).

use super::built::Server;
use crate::registry::{NoArguments, TaskSupport, Tool};

/// A task tool without the `tasks` feature fails `build`, naming the feature.
#[cfg(not(feature = "tasks"))]
#[test]
fn a_task_tool_without_the_feature_fails_build() {
    let tool = Tool::new("report")
        .task(TaskSupport::Optional)
        .handler(|_: NoArguments, _cx| async { "done" });
    let err = Server::builder().tool(tool).build().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid tool `report`: it runs as a task, which needs the `tasks` feature of \
         mcp-runtime (`mcp-runtime = { version = \"…\", features = [\"tasks\"] }`)"
    );
}

/// A request to the server, answered.
#[cfg(any(
    not(any(feature = "tasks", feature = "skills")),
    feature = "result-views"
))]
fn ask(server: &Server, method: &str, params: &str) -> crate::dispatch::Response {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/skills":{}}}}"#;
    let sep = if params.is_empty() { "" } else { "," };
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params}{sep}{meta}}}}}"#
    );
    let call = server
        .handle_message(body.as_bytes(), None)
        .expect("a request");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(call.response())
}

/// Without the features, a server advertises neither extension and answers their methods
/// `-32601`, as for any capability it does not advertise.
#[cfg(not(any(feature = "tasks", feature = "skills")))]
#[test]
fn without_the_features_neither_extension_is_served() {
    let tool = Tool::new("report").handler(|_: NoArguments, _cx| async { "done" });
    let server = Server::builder().tool(tool).build().unwrap();
    let discover = ask(&server, "server/discover", "");
    let text = std::str::from_utf8(&discover.body).unwrap();
    assert!(!discover.is_error(), "{text}");
    assert!(!text.contains(crate::protocol::TASKS_EXTENSION), "{text}");
    assert!(!text.contains(crate::protocol::SKILLS_EXTENSION), "{text}");
    for (method, params) in [
        ("tasks/get", r#""taskId":"t1""#),
        ("tasks/cancel", r#""taskId":"t1""#),
        ("skills/list", ""),
        ("skills/get", r#""uri":"skill://a/SKILL.md""#),
        ("resources/directory/read", r#""uri":"skill://a/""#),
    ] {
        let answer = ask(&server, method, params);
        assert_eq!(answer.error_code(), Some(-32601), "{method}");
    }
}

/// With the feature, the same tool builds and the server offers the extension.
#[cfg(feature = "tasks")]
#[test]
fn a_task_tool_with_the_feature_builds() {
    let tool = Tool::new("report")
        .task(TaskSupport::Optional)
        .handler(|_: NoArguments, _cx| async { "done" });
    assert!(Server::builder().tool(tool).build().is_ok());
}

/// A tool whose result view is generated: without `result-views`, `build` refuses it, naming
/// the feature; with it, the view is served at `ui://views/<tool>.html` and linked to the tool.
#[test]
fn a_generated_result_view_needs_its_feature() {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Row {
        name: String,
        size: u64,
    }
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Listing {
        files: Vec<Row>,
    }
    let tool = Tool::new("list_files")
        .handler(|_: NoArguments, _cx| async {
            Ok::<_, crate::error::McpError>(crate::registry::Json(Listing { files: vec![] }))
        })
        .result_view(crate::registry::ResultView::Table);
    let built = Server::builder().tool(tool).build();
    #[cfg(not(feature = "result-views"))]
    assert_eq!(
        built.err().map(|e| e.to_string()).as_deref(),
        Some(
            "invalid tool `list_files`: its result view is generated from its output schema, \
             which needs the `result-views` feature of mcp-runtime (`mcp-runtime = { version = \
             \"…\", features = [\"result-views\"] }`)"
        )
    );
    #[cfg(feature = "result-views")]
    {
        let server = built.unwrap();
        let read = ask(
            &server,
            "resources/read",
            r#""uri":"ui://views/list_files.html""#,
        );
        let text = std::str::from_utf8(&read.body).unwrap();
        assert!(!read.is_error(), "{text}");
        assert!(text.contains("text/html;profile=mcp-app"), "{text}");
    }
}
