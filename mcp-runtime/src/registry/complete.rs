//! Completion of prompt arguments and template variables: [`Completer`] and the request it
//! answers.

use super::future::BoxFuture;
use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::Completion;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

/// A completion request for one argument or template variable.
#[derive(Debug)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The argument (or variable) name.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Other arguments already resolved.
    pub context: BTreeMap<String, String>,
    /// The request context.
    pub request: RequestContext,
}

type CompleteFn =
    dyn Fn(CompletionRequest) -> BoxFuture<'static, Result<Completion, McpError>> + Send + Sync;

/// Suggests values for a prompt argument or a template variable.
///
/// ```
/// use mcp_runtime::Completer;
/// let c = Completer::from_values(["python", "pytorch", "rust"]);
/// ```
#[derive(Clone)]
pub struct Completer(pub(crate) Arc<CompleteFn>);

impl std::fmt::Debug for Completer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Completer")
    }
}

impl Completer {
    /// A completer from an async function.
    pub fn new<F, Fut>(f: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        Completer(Arc::new(move |req| {
            let fut = f(req);
            Box::pin(async move { Ok(Completion::new(fut.await)) })
        }))
    }
    /// Completes by prefix from a fixed list.
    pub fn from_values<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Self {
        let values: Arc<Vec<String>> = Arc::new(values.into_iter().map(Into::into).collect());
        Completer::new(move |req: CompletionRequest| {
            let values = values.clone();
            async move {
                values
                    .iter()
                    .filter(|v| v.starts_with(&req.value))
                    .cloned()
                    .collect()
            }
        })
    }
}
