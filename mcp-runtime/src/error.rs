//! Errors: JSON-RPC errors answered to the client ([`McpError`]), startup errors
//! ([`BuildError`]), and the crate's error for `main` ([`Error`]).

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
/// Transports choose their own framing for it: the Streamable HTTP transport derives the status
/// from the code and from the stage that refused the request (see `transport::http`).
#[derive(Debug, Clone, PartialEq)]
pub struct McpError {
    pub(crate) object: ErrorObject,
    /// How transports frame the error beyond its code, when they should (boxed: errors move
    /// through every stage's `Result`, and are rarely framed).
    pub(crate) framing: Option<Box<Framing>>,
}

/// How a transport frames an error beyond its JSON-RPC code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Framing {
    /// The caller was refused access: a challenge (HTTP 401 or 403 with `WWW-Authenticate`).
    Refused(Refusal),
    /// The server is at a limit of its capacity: retry later (HTTP 503 with `Retry-After`).
    Busy,
}

/// A caller refused access to what it asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The scopes that would allow it (empty when no scope would).
    pub(crate) scopes: Vec<String>,
    /// The request carried no credentials: authenticating may help (HTTP 401, not 403).
    pub(crate) anonymous: bool,
}

impl McpError {
    /// An error with a code and a message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        McpError {
            object: ErrorObject::new(code, message),
            framing: None,
        }
    }

    /// `-32603`: the server is serving as many `what` as it may; retry shortly.
    pub(crate) fn busy(what: &str, limit: usize) -> Self {
        let mut e = McpError::internal(format!(
            "Server busy: it is serving {limit} {what} already, the most it takes at once; retry shortly"
        ));
        e.framing = Some(Box::new(Framing::Busy));
        e
    }

    /// `-32603`: the caller `who` holds its whole share (`share` of them) of the server's
    /// `what`; others are still served. Framed as busy (HTTP 503, `Retry-After`).
    pub(crate) fn busy_share(what: &str, share: usize, who: &str) -> Self {
        let mut e = McpError::internal(format!(
            "Server busy for this caller: {who} holds {share} {what} already, the most one caller may hold at once; finish or close some, then retry"
        ));
        e.framing = Some(Box::new(Framing::Busy));
        e
    }

    /// `-32602`: the caller may not use `what` (`"tool `x`"`): anonymous callers are told to
    /// authenticate, others which scopes are missing. `data.requiredScopes` lists the scopes that
    /// would allow it. Transports answer it as a challenge (HTTP 401 or 403).
    pub(crate) fn refused(
        what: &str,
        scopes: &[String],
        reason: Option<&str>,
        anonymous: bool,
    ) -> Self {
        let needs = match scopes.len() {
            0 => String::new(),
            1 => format!(" the scope {}", scopes[0]),
            _ => format!(" the scopes {}", scopes.join(" ")),
        };
        let message = match (reason, anonymous, scopes.is_empty()) {
            (Some(reason), _, _) => format!("Forbidden: {what}: {reason}"),
            (None, true, true) => {
                format!("Unauthorized: {what} needs an authenticated caller; send an access token")
            }
            (None, true, false) => {
                format!("Unauthorized: {what} needs an access token granting{needs}")
            }
            (None, false, true) => format!("Forbidden: this caller may not use {what}"),
            (None, false, false) => {
                format!(
                    "Forbidden: {what} needs{needs}, which this caller's access token does not grant"
                )
            }
        };
        let mut e = McpError::invalid_params(message);
        if !scopes.is_empty() {
            e.object.data = Some(json!({ "requiredScopes": scopes }));
        }
        e.framing = Some(Box::new(Framing::Refused(Refusal {
            scopes: scopes.to_vec(),
            anonymous,
        })));
        e
    }

    /// Attaches `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.object.data = Some(data);
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

    /// `-32601` Method not found. A long name is shown by its first 128 bytes: what a client
    /// sent is not echoed back whole (a method name is not held to the string limit: none is
    /// longer than a few dozen bytes, and an unknown one is not read further).
    ///
    /// ```
    /// use mcp_runtime::McpError;
    /// let e = McpError::method_not_found(&"x".repeat(10_000));
    /// assert!(e.message().len() < 200);
    /// ```
    pub fn method_not_found(method: &str) -> Self {
        const SHOWN: usize = 128;
        let message = match method.len() > SHOWN {
            false => format!("Method not found: {method}"),
            true => {
                let mut end = SHOWN;
                while !method.is_char_boundary(end) {
                    end -= 1;
                }
                format!(
                    "Method not found: {}… ({} bytes)",
                    &method[..end],
                    method.len()
                )
            }
        };
        McpError::new(codes::METHOD_NOT_FOUND, message)
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

/// A `serde_json` error's message without the ` at line L column C` it appends: the position in
/// one value's text means nothing to a client that sent a larger message.
pub(crate) fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if e.line() == 0 {
        return text;
    }
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(head) => head.to_owned(),
        None => text,
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
///
/// Its `Debug` form is its message, so that a `main` returning `Result<(), Box<dyn Error>>`
/// prints something readable.
#[derive(Clone, PartialEq)]
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

impl BuildError {
    /// A setting that is not acceptable (`name` names the setting).
    pub(crate) fn setting(name: impl Into<String>, reason: impl Into<String>) -> Self {
        BuildError::Invalid {
            kind: "setting",
            name: name.into(),
            reason: reason.into(),
            location: None,
        }
    }
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
                // One declaration, registered twice: by `Server::from_inventory()`, which
                // collects every annotated function, and again by hand.
                (Some(a), Some(b)) if a == b => write!(
                    f,
                    "{kind} `{name}` (declared at {a}) is registered twice: \
                     `Server::from_inventory()` already collects every `#[tool]`, `#[resource]` \
                     and `#[prompt]` (and the methods of `#[handlers]` impls), so registering it \
                     again by hand (`.tool(...)`, `.handlers(...)`, …) adds it a second time; \
                     use `Server::builder()` to register by hand, or drop the second registration \
                     (give `from_inventory()` a `#[handlers]` value with `.state(value)`)"
                ),
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

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}

/// Why a server could not be built or could not serve: what `main` returns.
///
/// Every fallible step of starting a server converts into it with `?`, and it converts into
/// `Box<dyn std::error::Error>` and `anyhow::Error`; its `Debug` form is its message.
///
/// ```no_run
/// use mcp_runtime::Server;
/// #[tokio::main]
/// async fn main() -> Result<(), mcp_runtime::Error> {
///     Server::builder().name("demo").build()?.run().await?;
///     Ok(())
/// }
/// ```
#[non_exhaustive]
pub enum Error {
    /// The server's definition is invalid.
    Build(BuildError),
    /// The command line could not be read.
    Usage(String),
    /// Binding, reading or writing failed.
    Io(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Build(e) => e.fmt(f),
            Error::Usage(message) => f.write_str(message),
            Error::Io(e) => e.fmt(f),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Build(e) => Some(e),
            Error::Usage(_) => None,
            Error::Io(e) => Some(e),
        }
    }
}

impl From<BuildError> for Error {
    fn from(e: BuildError) -> Self {
        Error::Build(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `main` prints when it returns the error (`Error: {:?}`): the message, not a struct.
    #[test]
    fn errors_returned_from_main_print_their_message() {
        let build = BuildError::Duplicate {
            kind: "tool",
            name: "add".into(),
            first: None,
            second: None,
        };
        let message = "tool `add` is registered twice; give one of them another name";
        let boxed: Box<dyn std::error::Error> = Box::new(build.clone());
        assert_eq!(format!("{boxed:?}"), message);
        let boxed: Box<dyn std::error::Error> = Box::new(Error::from(build));
        assert_eq!(format!("{boxed:?}"), message);
        assert!(boxed.source().is_some());
        let usage = Error::Usage("`x` is not a HOST:PORT address".into());
        assert_eq!(format!("{usage:?}"), "`x` is not a HOST:PORT address");
    }
}
