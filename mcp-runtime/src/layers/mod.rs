//! The [`Layer`] trait and [`layer_fn`], and the built-in layers: an audit log ([`AuditLog`]), a time limit per
//! tool ([`ToolTimeout`]) and a rate limit per caller ([`RateLimit`]). Add them with
//! [`ServerBuilder::layer`](crate::ServerBuilder::layer), in the order they should run. Their
//! calls are `#[inline]`: compiled by the servers that add them, not into every one
//! (BENCHMARKS.md, "Metrics, result views and patterns behind features").
//!
//! ```
//! use mcp_runtime::Server;
//! use mcp_runtime::layers::{AuditLog, RateLimit, ToolTimeout};
//! use std::time::Duration;
//! let server = Server::builder()
//!     .layer(AuditLog::new()) // outermost: sees refusals of the layers below too
//!     .layer(RateLimit::per_caller(60, Duration::from_secs(60)))
//!     .layer(ToolTimeout::new().default_limit(Duration::from_secs(10)))
//!     .build()
//!     .unwrap();
//! ```

mod audit;
mod rate_limit;
mod timeout;

pub use crate::dispatch::layer::{Layer, LayerFn, LayerResult, McpRequest, Next, layer_fn};
pub use audit::{AuditLog, AuditOutcome, AuditRecord};
pub use rate_limit::RateLimit;
pub use timeout::ToolTimeout;
