//! The test client: [`TestClient`], the crate's [`Client`] in process.

use crate::client::Client;

/// An in-process client of one [`Server`](crate::Server): [`Client`] under the name tests
/// know it by (`TestClient::new(server)`). The same calls run against a URL or a child process
/// with the `client` feature ([`Client::http`](crate::client::Client), `Client::stdio`).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use mcp_runtime::testing::TestClient;
/// use mcp_runtime::{Prompt, Server};
/// let server = Server::builder()
///     .prompt(Prompt::new("greet").handler(|_get| async { "Say hello." }))
///     .build()
///     .unwrap();
/// let client = TestClient::new(server);
/// assert_eq!(client.list_prompts().await.unwrap()[0].name, "greet");
/// # }
/// ```
pub type TestClient = Client;
