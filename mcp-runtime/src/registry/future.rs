//! The boxed future handlers and checks return.

use std::future::Future;
use std::pin::Pin;

/// A boxed, `Send` future.
///
/// ```
/// use mcp_runtime::handler::BoxFuture;
/// fn answer() -> BoxFuture<'static, u32> {
///     Box::pin(async { 42 })
/// }
/// # let _ = answer();
/// ```
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
