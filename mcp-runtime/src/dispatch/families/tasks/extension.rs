//! Whether a request's client declares the tasks extension, and the `-32021` refusal when it
//! does not: asked by `tasks/*`, by a `tools/call` of a task tool and by a listen stream that
//! watches tasks.

use crate::context::RequestContext;
use crate::error::McpError;
use crate::protocol::{ClientCapabilities, TASKS_EXTENSION};

/// Whether this request's client capabilities declare the tasks extension.
pub(crate) fn declares_tasks(cx: &RequestContext) -> bool {
    cx.client_capabilities()
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// `-32021`: the request needs the tasks extension, which its client did not declare.
pub(crate) fn tasks_not_declared(what: &str) -> McpError {
    let mut extensions = serde_json::Map::new();
    extensions.insert(
        TASKS_EXTENSION.into(),
        serde_json::Value::Object(Default::default()),
    );
    let required = ClientCapabilities {
        extensions: Some(extensions),
        ..ClientCapabilities::default()
    };
    McpError::missing_capability(
        required,
        format!(
            "{what} needs the tasks extension: declare `{TASKS_EXTENSION}` in this request's clientCapabilities.extensions"
        ),
    )
}
