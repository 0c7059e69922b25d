//! MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`): every `_meta.ui` key the server writes,
//! validated against the JSON Schema of the official `@modelcontextprotocol/ext-apps` package
//! (`npm ci --prefix examples/apps`; without it these checks fail, unless `MCP_SKIP_APPS_SDK=1`
//! asks to skip them); both keys of a tool's view; the view's HTML and metadata on the wire; a client that
//! does not render apps still served meaningful text, in both eras; startup errors for views
//! that are not there.

use crate::common;
use crate::examples::apps;

use common::{post, spawn_http};
use http::StatusCode;
use mcp_runtime::apps::{AppPermissions, Csp, UiResource, Visibility};
use mcp_runtime::protocol::ClientCapabilities;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{NoArguments, Server, Tool};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The package's JSON Schema document, when installed.
fn ext_apps_schema() -> Option<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "examples/apps/node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json",
    );
    let found = common::prerequisite(
        path.exists(),
        &format!("{} is missing", path.display()),
        "run `npm ci --prefix examples/apps`",
        "MCP_SKIP_APPS_SDK",
    );
    let bytes = found.then(|| std::fs::read(&path).expect("the package's schema is readable"))?;
    Some(serde_json::from_slice(&bytes).expect("the package's schema is JSON"))
}

/// Validates `value` against the package's `$defs[def]`, compiled on its own (as the package
/// documents its standalone definitions).
fn assert_matches(schema: &Value, def: &str, value: &Value) {
    let def_schema = &schema["$defs"][def];
    assert!(def_schema.is_object(), "the package has no `{def}`");
    let validator = jsonschema::validator_for(def_schema).expect("the definition compiles");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{def} rejects {value}: {errors:?}");
}

fn apps_capabilities() -> ClientCapabilities {
    serde_json::from_value(json!({"extensions": {
        "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}
    }}))
    .unwrap()
}

/// A server using every `_meta.ui` key there is.
fn every_key() -> Server {
    let view = UiResource::new("ui://all/view.html", "all")
        .html("<!doctype html><title>all</title>")
        .csp(
            Csp::new()
                .connect_domains(["https://api.example.com"])
                .resource_domains(["https://cdn.example.com", "https://*.example.org"])
                .frame_domains(["https://frames.example.com"])
                .base_uri_domains(["https://base.example.com"]),
        )
        .permissions(
            AppPermissions::new()
                .camera()
                .microphone()
                .geolocation()
                .clipboard_write(),
        )
        .domain("a1b2c3.apps.example.com")
        .prefers_border(false);
    Server::builder()
        .resource(view)
        .tool(
            Tool::new("both")
                .description("Seen by the model and the app.")
                .ui("ui://all/view.html")
                .visibility([Visibility::Model, Visibility::App])
                .handler(|_: NoArguments, _cx| async { "both" }),
        )
        .tool(
            Tool::new("app_only")
                .description("Called by the app.")
                .ui("ui://all/view.html")
                .visibility([Visibility::App])
                .handler(|_: NoArguments, _cx| async { "app" }),
        )
        .build()
        .expect("the server builds")
}

#[tokio::test]
async fn every_meta_ui_key_matches_the_extension_s_schema() {
    let client = TestClient::new(every_key());
    let tools = client.list_tools().await.unwrap();
    let resources = client.list_resources().await.unwrap();
    let view = &resources[0];
    let listed_ui = view.meta.as_ref().unwrap()["ui"].clone();
    assert_eq!(
        listed_ui,
        json!({
            "csp": {
                "connectDomains": ["https://api.example.com"],
                "resourceDomains": ["https://cdn.example.com", "https://*.example.org"],
                "frameDomains": ["https://frames.example.com"],
                "baseUriDomains": ["https://base.example.com"],
            },
            "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
            "domain": "a1b2c3.apps.example.com",
            "prefersBorder": false,
        })
    );
    assert_eq!(view.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    let read = client.read_resource("ui://all/view.html").await.unwrap();
    assert_eq!(read.contents.len(), 1, "one document");
    let contents = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(
        contents["_meta"]["ui"], listed_ui,
        "the same on the contents"
    );
    assert!(
        contents["text"]
            .as_str()
            .unwrap()
            .starts_with("<!doctype html>")
    );
    for tool in &tools {
        let meta = tool.meta.as_ref().unwrap();
        assert_eq!(meta["ui"]["resourceUri"], "ui://all/view.html");
        assert_eq!(
            meta["ui/resourceUri"], meta["ui"]["resourceUri"],
            "both keys"
        );
    }
    assert_eq!(
        tools[0].meta.as_ref().unwrap()["ui"]["visibility"],
        json!(["model", "app"])
    );
    assert_eq!(
        tools[1].meta.as_ref().unwrap()["ui"]["visibility"],
        json!(["app"])
    );
    let discover = client.discover().await.unwrap();
    assert_eq!(
        discover.capabilities.extensions.unwrap()["io.modelcontextprotocol/ui"],
        json!({})
    );
    let Some(schema) = ext_apps_schema() else {
        return;
    };
    assert_matches(&schema, "McpUiResourceMeta", &listed_ui);
    assert_matches(&schema, "McpUiResourceMeta", &contents["_meta"]["ui"]);
    for tool in &tools {
        assert_matches(&schema, "McpUiToolMeta", &tool.meta.as_ref().unwrap()["ui"]);
    }
    let declared = json!({"mimeTypes": ["text/html;profile=mcp-app"]});
    assert_matches(&schema, "McpUiClientCapabilities", &declared);
    // The schema is strict: the test would see a key it does not know.
    let validator = jsonschema::validator_for(&schema["$defs"]["McpUiToolMeta"]).unwrap();
    assert!(!validator.is_valid(&json!({"resourceUri": "ui://x", "csp": {}})));
}

#[tokio::test]
async fn the_example_s_views_and_tools_are_on_the_wire() {
    let client = TestClient::new(apps::build().unwrap()).capabilities(apps_capabilities());
    let schema = ext_apps_schema();
    for tool in client.list_tools().await.unwrap() {
        let ui = &tool.meta.as_ref().unwrap()["ui"];
        assert!(
            ui["resourceUri"].as_str().unwrap().starts_with("ui://"),
            "{}",
            tool.name
        );
        if let Some(schema) = &schema {
            assert_matches(schema, "McpUiToolMeta", ui);
        }
    }
    let chart = client.read_resource(apps::CHART_VIEW).await.unwrap();
    let chart = serde_json::to_value(&chart.contents[0]).unwrap();
    assert!(chart["text"].as_str().unwrap().contains("ui/initialize"));
    if schema.is_some() {
        // The board's view inlines the SDK's bundle, its exports turned into a global.
        let board = client.read_resource(apps::BOARD_VIEW).await.unwrap();
        let html = serde_json::to_value(&board.contents[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(html.contains("globalThis.ExtApps={"));
        assert!(html.contains("new App({ name: \"Board\""));
        assert_eq!(
            html.matches("</script>").count(),
            2,
            "nothing ends a script early"
        );
    }
    let view = client.app_of("chart").await.unwrap();
    assert_eq!(view.uri, apps::CHART_VIEW);
    assert_eq!(view.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    assert_eq!(view.ui, json!({"csp": {}}));
    assert!(client.app_of("nothing").await.is_err());
    // A tool the app calls answers it with the board.
    let moved = client
        .call_from_app("move_card", json!({"id": 1, "to": "done"}))
        .await
        .unwrap();
    let cards = &moved.structured_content.unwrap()["cards"];
    assert_eq!(cards[0]["column"], "done");
    let wrong = client
        .call_tool("chart", json!({"labels": ["a"], "values": [1, 2]}))
        .await
        .unwrap_err();
    assert_eq!(wrong.code(), Some(-32602));
}

#[tokio::test]
async fn a_client_that_renders_no_apps_gets_the_same_meaningful_text() {
    let plain = TestClient::new(apps::build().unwrap());
    let with_apps = TestClient::new(apps::build().unwrap()).capabilities(apps_capabilities());
    let a = plain.call_tool("show_board", json!({})).await.unwrap();
    let b = with_apps.call_tool("show_board", json!({})).await.unwrap();
    assert_eq!(a.text(), b.text());
    assert!(
        a.text().contains("Todo: #1 Write the release notes"),
        "{}",
        a.text()
    );
    let chart = plain
        .call_tool(
            "chart",
            json!({"labels": ["north", "south"], "values": [3, 4.5]}),
        )
        .await
        .unwrap();
    assert_eq!(chart.text(), "north: 3\nsouth: 4.5");
    assert!(!ClientCapabilities::default().supports_apps());
    assert!(apps_capabilities().supports_apps());
    let other_types: ClientCapabilities = serde_json::from_value(json!({"extensions": {
        "io.modelcontextprotocol/ui": {"mimeTypes": ["text/plain"]}}}))
    .unwrap();
    assert!(!other_types.supports_apps());
}

#[tokio::test]
async fn a_2025_11_25_session_sees_the_extension_and_the_views() {
    let http = spawn_http(apps::build().unwrap()).await;
    let url = format!("http://{}/mcp", http.addr);
    let mut headers = common::post_headers();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"extensions": {"io.modelcontextprotocol/ui":
            {"mimeTypes": ["text/html;profile=mcp-app"]}}},
        "clientInfo": {"name": "host", "version": "1"}}});
    let resp = post(&url, &headers, init.to_string()).await;
    assert_eq!(resp.status, StatusCode::OK);
    let answer: Value = serde_json::from_slice(&resp.body).unwrap();
    assert_eq!(
        answer["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({})
    );
    headers.push((
        "Mcp-Session-Id".into(),
        resp.header("mcp-session-id").unwrap().into(),
    ));
    headers.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let tools = post(&url, &headers, list.to_string())
        .await
        .messages()
        .pop()
        .unwrap();
    let show = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "show_board")
        .unwrap()
        .clone();
    assert_eq!(show["_meta"]["ui"]["resourceUri"], apps::BOARD_VIEW);
    assert_eq!(show["_meta"]["ui/resourceUri"], apps::BOARD_VIEW);
    let read = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": apps::CHART_VIEW}});
    let read = post(&url, &headers, read.to_string())
        .await
        .messages()
        .pop()
        .unwrap();
    assert_eq!(
        read["result"]["contents"][0]["mimeType"],
        "text/html;profile=mcp-app"
    );
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "show_board", "arguments": {}}});
    let call = post(&url, &headers, call.to_string())
        .await
        .messages()
        .pop()
        .unwrap();
    assert!(
        call["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Todo:"),
        "{call}"
    );
}

#[tokio::test]
async fn a_tool_only_the_model_may_call_is_refused_to_the_app() {
    let server = Server::builder()
        .resource(UiResource::new("ui://v/view.html", "v").html("<p>"))
        .tool(
            Tool::new("model_only")
                .ui("ui://v/view.html")
                .visibility([Visibility::Model])
                .handler(|_: NoArguments, _cx| async { "x" }),
        )
        .build()
        .unwrap();
    let client = TestClient::new(server);
    let e = client
        .call_from_app("model_only", json!({}))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("not visible to apps"), "{e}");
    assert!(client.call_tool("model_only", json!({})).await.is_ok());
}

#[test]
fn a_view_that_is_not_there_is_a_startup_error_naming_both() {
    let e = Server::builder()
        .tool(
            Tool::new("show")
                .ui("ui://missing/view.html")
                .handler(|_: NoArguments, _cx| async { "x" }),
        )
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("invalid tool `show`") && e.contains("ui://missing/view.html"),
        "{e}"
    );
    let e = Server::builder()
        .tool(
            Tool::new("show")
                .ui("https://example.com/view.html")
                .handler(|_: NoArguments, _cx| async { "x" }),
        )
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("no `ui://` URI"), "{e}");
    let e = Server::builder()
        .resource(UiResource::new("app://view.html", "view").html("<p>"))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("an app's view is served at a `ui://` URI"),
        "{e}"
    );
    let e = Server::builder()
        .resource(
            UiResource::new("ui://x/view.html", "view")
                .html("<p>")
                .csp(Csp::new().connect_domains(["https://a.example; script-src *"])),
        )
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("which no policy can hold"), "{e}");
}

/// The text of the view at `uri`, as `resources/read` answers it.
async fn view_html(client: &TestClient, uri: &str) -> String {
    let read = client.read_resource(uri).await.unwrap();
    let contents = serde_json::to_value(&read.contents[0]).unwrap();
    contents["text"].as_str().unwrap().to_owned()
}

/// The plan a generated view's page draws (the JSON after `const PLAN = `).
fn plan_of(html: &str) -> Value {
    let start = html.find("const PLAN = ").expect("the page holds its plan") + 13;
    let end = start + html[start..].find(";\n").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[tokio::test]
async fn generated_views_are_drawn_from_each_tool_s_result_type() {
    let client = TestClient::new(apps::build().unwrap()).capabilities(apps_capabilities());
    let table = client.app_of("list_cards").await.unwrap();
    assert_eq!(table.uri, "ui://views/list_cards.html");
    assert_eq!(
        table.ui,
        json!({"csp": {}}),
        "a generated view loads nothing"
    );
    let plan = plan_of(&view_html(&client, &table.uri).await);
    assert_eq!(plan["layout"], "table");
    assert_eq!(plan["rows"], json!(["cards"]));
    assert_eq!(
        plan["title"], "List cards",
        "no title: the tool's name made words"
    );
    let columns: Vec<&str> = plan["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(columns, ["Id", "Title", "Column"], "declared order");

    let chart = plan_of(&view_html(&client, "ui://views/card_counts.html").await);
    assert_eq!(
        (&chart["layout"], &chart["label"], &chart["value"]),
        (&json!("chart"), &json!("column"), &json!("cards"))
    );
    assert_eq!(
        chart["measure"], "Cards",
        "a member's schemars title labels it"
    );
    let form = plan_of(&view_html(&client, "ui://views/get_card.html").await);
    assert_eq!(form["layout"], "form");
    assert_eq!(form["fields"].as_array().unwrap().len(), 3);

    // The result each view draws is the tool's structured content, as any client gets it.
    let card = client
        .call_tool("get_card", json!({"id": 2}))
        .await
        .unwrap();
    assert_eq!(
        card.structured_content.unwrap()["title"],
        "Review the board view"
    );
    let counts = client.call_tool("card_counts", json!({})).await.unwrap();
    assert_eq!(
        counts.structured_content.unwrap()["columns"][0]["column"],
        "todo"
    );
    if let Some(schema) = ext_apps_schema() {
        for name in ["list_cards", "card_counts", "get_card"] {
            let tool = client.list_tools().await.unwrap();
            let tool = tool.iter().find(|t| t.name == name).unwrap();
            assert_matches(&schema, "McpUiToolMeta", &tool.meta.as_ref().unwrap()["ui"]);
        }
    }
}

/// A tool whose structured result has the schema `schema`, showing it as `view`.
fn viewed(name: &str, schema: Value, view: mcp_runtime::apps::ResultView) -> Tool {
    Tool::new(name)
        .handler(|_: NoArguments, _| async { Ok::<_, mcp_runtime::McpError>("".to_owned()) })
        .output_schema(schema.as_object().unwrap().clone())
        .result_view(view)
}

#[test]
fn a_result_view_its_schema_cannot_show_is_a_startup_error_naming_the_tool() {
    use mcp_runtime::apps::ResultView;
    let text = json!({"type": "object", "properties": {"note": {"type": "string"}}});
    let err = Server::builder()
        .tool(viewed("notes", text.clone(), ResultView::Table))
        .build()
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("`notes`") && err.contains("array of objects"),
        "{err}"
    );
    let err = Server::builder()
        .tool(viewed("notes", text.clone(), ResultView::Chart))
        .build()
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("a chart needs"), "{err}");
    let bare = Tool::new("bare")
        .handler(|_: NoArguments, _| async { Ok::<_, mcp_runtime::McpError>("".to_owned()) })
        .result_view(ResultView::Auto);
    let err = Server::builder()
        .tool(bare)
        .build()
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("output schema"), "{err}");
    let both = viewed("both", text.clone(), ResultView::Form).ui("ui://mine/view.html");
    let mine = UiResource::new("ui://mine/view.html", "mine").html("<p>mine");
    let err = Server::builder()
        .tool(both)
        .resource(mine)
        .build()
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("keep one"), "{err}");
    // A form of it is fine, and nothing of the schema can end the page's script.
    let hostile = json!({"type": "object", "properties": {
        "note": {"type": "string", "title": "</script><script>alert(1)</script>"}}});
    assert!(
        Server::builder()
            .tool(viewed("notes", hostile, ResultView::Form))
            .build()
            .is_ok()
    );
}

#[tokio::test]
async fn a_generated_view_is_read_with_its_tool_s_scopes_and_no_others() {
    use mcp_runtime::Caller;
    use mcp_runtime::apps::ResultView;
    let rows = json!({"type": "object", "properties": {"rows": {"type": "array",
        "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}}});
    let secret = viewed("payroll", rows, ResultView::Auto).scopes(["hr:read"]);
    let server = Server::builder().tool(secret).build().unwrap();
    let uri = "ui://views/payroll.html";
    let outsider = TestClient::new(server.clone()).caller(Caller::new("eve"));
    let err = outsider.read_resource(uri).await.unwrap_err();
    assert!(err.code().is_some(), "refused: {err}");
    assert!(
        outsider.list_resources().await.unwrap().is_empty(),
        "and not listed"
    );
    let hr = TestClient::new(server).caller(Caller::new("ana").with_scopes(["hr:read"]));
    let html = view_html(&hr, uri).await;
    let plan = plan_of(&html);
    assert_eq!(plan["layout"], "table");
    assert_eq!(hr.list_resources().await.unwrap().len(), 1);
}

#[tokio::test]
async fn the_sdk_from_a_url_is_imported_and_its_origin_joins_the_view_s_csp() {
    let url = "https://cdn.example.com/npm/@modelcontextprotocol/ext-apps@2.0.4/dist/src/app-with-deps.js";
    let server = apps::builder(apps::app_sdk(Some(url))).build().unwrap();
    let client = TestClient::new(server).capabilities(apps_capabilities());
    for (tool, uri) in [
        ("show_board", apps::BOARD_VIEW),
        ("search_notes", apps::notes::SEARCH_VIEW),
    ] {
        let view = client.app_of(tool).await.unwrap();
        assert_eq!(view.uri, uri);
        assert_eq!(
            view.ui["csp"]["resourceDomains"],
            json!(["https://cdn.example.com"]),
            "{tool}"
        );
        if let Some(schema) = ext_apps_schema() {
            assert_matches(&schema, "McpUiResourceMeta", &view.ui);
        }
        let html = view_html(&client, uri).await;
        assert!(html.contains(&format!("import*as m from\"{url}\";globalThis.ExtApps=m;")));
        assert!(
            html.len() < 10_000,
            "no bundle inside: {} bytes",
            html.len()
        );
    }
    // Hosts load a view's scripts over https; plain http only from a loopback host.
    let err = apps::builder(apps::app_sdk(Some("http://cdn.example.com/app.js")))
        .build()
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("plain http"), "{err}");
    assert!(
        apps::builder(apps::app_sdk(Some("http://127.0.0.1:9/app.js")))
            .build()
            .is_ok()
    );
}

#[tokio::test]
async fn the_embedded_sdk_states_its_size_and_the_notes_view_uses_it() {
    let sdk = apps::app_sdk(None);
    if ext_apps_schema().is_none() {
        return; // Built without the package (MCP_SKIP_APPS_SDK): nothing embedded to look at.
    }
    assert_eq!(sdk.version(), Some("2.0.4"));
    assert!(
        (400_000..800_000).contains(&sdk.bytes()),
        "{} bytes",
        sdk.bytes()
    );
    let client = TestClient::new(apps::build().unwrap()).capabilities(apps_capabilities());
    let html = view_html(&client, apps::notes::SEARCH_VIEW).await;
    assert!(html.len() > sdk.bytes(), "the view carries the bundle");
    let sdk_at = html.find("globalThis.ExtApps={").unwrap();
    let page_at = html.find("const { App } = ExtApps;").unwrap();
    assert!(sdk_at < page_at, "the SDK runs before the page's module");
    assert_eq!(
        html.matches("</script>").count(),
        2,
        "nothing ends a script early"
    );
    let found = client
        .call_tool("search_notes", json!({"query": "release"}))
        .await
        .unwrap();
    let hits = &found.structured_content.unwrap()["hits"];
    assert_eq!(hits.as_array().unwrap().len(), 2, "{hits}");
    let note = client
        .call_tool("read_note", json!({"id": 1}))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&note.content)
            .unwrap()
            .contains("Release checklist")
    );
}
