//! Errors: JSON-RPC errors answered to the client ([`McpError`]) and startup errors ([`BuildError`]).

use crate::protocol::{ClientCapabilities, ErrorObject, codes};
use serde_json::{Value, json};
use std::fmt;

/// A JSON-RPC error answered to the client instead of a result.
///
/// This is a *protocol* error (unknown tool, bad params, missing capability, …). A tool that fails
/// at its job should instead return an `isError: true` result (return `Err(e)` with any
/// `Display` error from a `#[tool]` function), so that the model can read it and correct itself.
///
/// `McpError` deliberately does not implement `Display`: that keeps `Result<T, McpError>` (a
/// protocol error) apart from `Result<T, E: Display>` (a tool execution error) in handler returns.
///
/// ```
/// use mcp_runtime::McpError;
/// let e = McpError::resource_not_found("file:///nope");
/// assert_eq!(e.code(), -32602);
/// assert_eq!(e.data().unwrap()["uri"], "file:///nope");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct McpError {
    pub(crate) object: ErrorObject,
    pub(crate) status: u16,
}

impl McpError {
    /// An error with a code and message; the HTTP status is derived from the code.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        let status = match code {
            codes::PARSE_ERROR
            | codes::INVALID_REQUEST
            | codes::HEADER_MISMATCH
            | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
            | codes::UNSUPPORTED_PROTOCOL_VERSION => 400,
            codes::METHOD_NOT_FOUND => 404,
            _ => 200,
        };
        McpError {
            object: ErrorObject::new(code, message),
            status,
        }
    }

    /// Attaches `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.object.data = Some(data);
        self
    }

    /// Overrides the HTTP status used by the Streamable HTTP transport.
    #[must_use]
    pub fn with_http_status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    /// `-32602` Invalid params.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        McpError::new(codes::INVALID_PARAMS, message)
    }

    /// `-32603` Internal error.
    pub fn internal(message: impl Into<String>) -> Self {
        McpError::new(codes::INTERNAL_ERROR, message)
    }

    /// `-32601` Method not found.
    pub fn method_not_found(method: &str) -> Self {
        McpError::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// `-32602` Resource not found, with `data.uri`.
    pub fn resource_not_found(uri: &str) -> Self {
        McpError::invalid_params(format!("Resource not found: {uri}"))
            .with_data(json!({"uri": uri}))
    }

    /// `-32021`: the request needs client capabilities it did not declare.
    pub fn missing_capability(required: ClientCapabilities, message: impl Into<String>) -> Self {
        let data = json!({ "requiredCapabilities": required });
        McpError::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message).with_data(data)
    }

    /// `-32020`: a header is missing, malformed or disagrees with the body.
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        McpError::new(codes::HEADER_MISMATCH, message)
    }

    /// The JSON-RPC code.
    pub fn code(&self) -> i32 {
        self.object.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.object.message
    }

    /// The `data` member.
    pub fn data(&self) -> Option<&Value> {
        self.object.data.as_ref()
    }

    /// The HTTP status the Streamable HTTP transport answers with.
    pub fn http_status(&self) -> u16 {
        self.status
    }

    /// The wire error object.
    pub fn to_error_object(&self) -> ErrorObject {
        self.object.clone()
    }
}

impl From<ErrorObject> for McpError {
    fn from(object: ErrorObject) -> Self {
        let mut e = McpError::new(object.code, object.message);
        e.object.data = object.data;
        e
    }
}

/// Where a primitive was declared (filled in by the macros).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLocation {
    /// File path as given by `file!()`.
    pub file: &'static str,
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A problem found while building a server: reported at startup, never as a panic.
///
/// ```
/// use mcp_runtime::{Server, Tool};
/// let err = Server::builder()
///     .tool(Tool::new("a b").handler(|_: mcp_runtime::NoArguments, _cx| async { "x" }))
///     .build()
///     .unwrap_err();
/// assert!(err.to_string().contains("a b"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BuildError {
    /// Two items of one kind share a name (or URI).
    Duplicate {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The shared name.
        name: String,
        /// Where the first was declared, if known.
        first: Option<SourceLocation>,
        /// Where the second was declared, if known.
        second: Option<SourceLocation>,
    },
    /// A name, URI or template is not acceptable.
    Invalid {
        /// What kind of item.
        kind: &'static str,
        /// Its name.
        name: String,
        /// Why.
        reason: String,
        /// Where it was declared, if known.
        location: Option<SourceLocation>,
    },
    /// Several problems.
    Many(Vec<BuildError>),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn at(loc: &Option<SourceLocation>) -> String {
            loc.map(|l| format!(" (declared at {l})"))
                .unwrap_or_default()
        }
        match self {
            BuildError::Duplicate {
                kind,
                name,
                first,
                second,
            } => match (first, second) {
                (Some(a), Some(b)) => {
                    write!(f, "{kind} `{name}` is registered twice: at {a} and at {b}")
                }
                _ => write!(
                    f,
                    "{kind} `{name}` is registered twice; give one of them another name"
                ),
            },
            BuildError::Invalid {
                kind,
                name,
                reason,
                location,
            } => write!(f, "invalid {kind} `{name}`{}: {reason}", at(location)),
            BuildError::Many(all) => {
                write!(f, "{} problems found while building the server:", all.len())?;
                for e in all {
                    write!(f, "\n  - {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for BuildError {}
