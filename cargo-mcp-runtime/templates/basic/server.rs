//! The server through the whole request pipeline, in process (no sockets).

use mcp_runtime::testing::TestClient;
use serde_json::json;

fn client() -> TestClient {
    TestClient::new({{module}}::build().expect("the server builds"))
}

#[tokio::test]
async fn add_adds() {
    let result = client().call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(result.text(), "42");
}

#[tokio::test]
async fn a_wrong_argument_is_refused() {
    let result = client().call_tool("add", json!({"a": "two", "b": 1})).await.unwrap();
    assert!(result.failed());
}

#[tokio::test]
async fn the_resource_and_the_prompt_are_served() {
    let client = client();
    let about = client.read_resource("info://{{name}}/about").await.unwrap();
    assert!(format!("{:?}", about.contents[0]).contains("adds numbers"));
    let prompt = client.get_prompt("explain_sum", json!({"numbers": "1 2 3"})).await.unwrap();
    assert!(format!("{:?}", prompt.messages[0]).contains("1 2 3"));
}
