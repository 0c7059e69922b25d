//! MCP Apps seen from the test client: the view a tool is linked to, and calls made as its app
//! would make them.

use super::client::TestClient;
use crate::client::ClientError;
use crate::protocol::{CallToolResult, ResourceBody, ToolInfo};
use serde_json::Value;

/// The view of an app ([`TestClient::app_of`]): its URI, MIME type, HTML and `_meta.ui`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AppView {
    /// Its `ui://` URI.
    pub uri: String,
    /// Its MIME type (`text/html;profile=mcp-app`).
    pub mime_type: Option<String>,
    /// Its HTML document.
    pub html: String,
    /// The `_meta.ui` of its contents (`Value::Null` when it has none).
    pub ui: Value,
}

/// The `ui://` URI a tool is linked to.
#[inline]
fn tool_app(tool: &ToolInfo) -> Option<String> {
    let meta = tool.meta.as_ref()?;
    let uri = meta
        .get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get(crate::protocol::LEGACY_RESOURCE_URI_KEY))?;
    uri.as_str().map(str::to_owned)
}

impl TestClient {
    /// The view of the app the tool `name` is linked to (MCP Apps): its `ui://` URI, read, with
    /// the contents' `_meta.ui`. An error when the tool is unknown or linked to no app.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let view = client.app_of("show_board").await.unwrap();
    /// assert!(view.html.starts_with("<!doctype html>"));
    /// # }
    /// ```
    pub async fn app_of(&self, name: &str) -> Result<AppView, ClientError> {
        let tool = self.tool_named(name).await?;
        let uri = tool_app(&tool)
            .ok_or_else(|| ClientError::Unexpected(format!("tool `{name}` is linked to no app")))?;
        let read = self.read_resource(&uri).await?;
        let contents = read
            .contents
            .into_iter()
            .next()
            .ok_or_else(|| ClientError::Unexpected(format!("{uri} answered no contents")))?;
        let html = match contents.body {
            ResourceBody::Text(text) => text,
            ResourceBody::Blob(_) => {
                return Err(ClientError::Unexpected(format!("{uri} is not text")));
            }
        };
        let ui = contents
            .meta
            .and_then(|mut m| m.remove("ui"))
            .unwrap_or(Value::Null);
        Ok(AppView {
            uri,
            mime_type: contents.mime_type,
            html,
            ui,
        })
    }

    /// Calls the tool `name` as its app would, through a host that keeps to `visibility`: a
    /// tool the app may not call (`visibility` without `"app"`) is refused here, as a host
    /// refuses it, without reaching the server.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::testing::TestClient) {
    /// let moved = client
    ///     .call_from_app("move_card", serde_json::json!({"id": 1, "to": "done"}))
    ///     .await
    ///     .unwrap();
    /// # }
    /// ```
    pub async fn call_from_app(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        let tool = self.tool_named(name).await?;
        let visible = tool
            .meta
            .as_ref()
            .and_then(|m| m.get("ui"))
            .and_then(|ui| ui.get("visibility"))
            .and_then(Value::as_array);
        if let Some(visible) = visible
            && !visible.iter().any(|v| v == "app")
        {
            return Err(ClientError::Unexpected(format!(
                "tool `{name}` is not visible to apps (visibility {visible:?})"
            )));
        }
        self.call_tool(name, arguments).await
    }

    async fn tool_named(&self, name: &str) -> Result<ToolInfo, ClientError> {
        self.list_tools()
            .await?
            .into_iter()
            .find(|t| t.name == name)
            .ok_or_else(|| ClientError::Unexpected(format!("no tool `{name}` is listed")))
    }
}
