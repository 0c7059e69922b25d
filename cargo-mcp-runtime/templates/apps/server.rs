//! The server through the whole request pipeline, in process (no sockets), as a host that
//! renders MCP Apps meets it.

use mcp_runtime::testing::TestClient;
use serde_json::json;

fn client() -> TestClient {
    TestClient::new({{module}}::build().expect("the server builds"))
}

#[tokio::test]
async fn counts_come_back_structured() {
    let result = client()
        .call_tool("count_words", json!({"text": "the cat saw the dog, The end"}))
        .await
        .unwrap();
    assert!(result.text().starts_with("the: 3"), "{}", result.text());
    let counts = result.structured_content.expect("structured content");
    assert_eq!(counts["words"], json!(["the", "cat", "dog", "end", "saw"]));
    assert_eq!(counts["counts"], json!([3, 1, 1, 1, 1]));
}

#[tokio::test]
async fn the_tool_opens_its_view() {
    let view = client().app_of("count_words").await.unwrap();
    assert_eq!(view.uri, {{module}}::VIEW);
    assert_eq!(view.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    assert!(view.html.contains("ui/initialize"), "the page speaks the Apps protocol");
}
