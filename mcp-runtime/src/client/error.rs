//! Why a request of a [`Client`](super::Client) failed.

use crate::protocol::ErrorObject;
use std::fmt;

/// Why a request of a [`Client`](super::Client) failed.
///
/// ```
/// use mcp_runtime::client::ClientError;
/// let e = ClientError::Timeout("http://127.0.0.1:9/mcp".into());
/// assert!(e.to_string().contains("did not answer"));
/// assert_eq!(e.code(), None);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// The server asked for input the client has no answer for (the input's key).
    Unanswered(String),
    /// The answer did not have the expected shape.
    Unexpected(String),
    /// The server could not be reached, or the connection to it broke (what happened).
    Unreachable(String),
    /// The server did not answer within the client's timeout (the server).
    Timeout(String),
    /// The server answered in a way the protocol does not allow: a wrong content type, an HTTP
    /// status without a JSON-RPC error, an answer larger than the client reads (what it was).
    Protocol(String),
    /// The client's credentials could not be had (its token endpoint refused it), or the server
    /// refused the request for want of them (what was said).
    Credentials(String),
}

impl ClientError {
    /// The JSON-RPC error code, for [`ClientError::Rpc`].
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Rpc(e) => Some(e.code),
            _ => None,
        }
    }

    /// Whether the server itself failed to answer (unreachable, timed out, answered outside
    /// the protocol, or could not be asked for want of credentials), rather than answering
    /// with an error.
    pub fn is_transport(&self) -> bool {
        matches!(
            self,
            ClientError::Unreachable(_)
                | ClientError::Timeout(_)
                | ClientError::Protocol(_)
                | ClientError::Credentials(_)
        )
    }
}

impl fmt::Display for ClientError {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Rpc(e) => write!(f, "JSON-RPC error {}: {}", e.code, e.message),
            ClientError::Unanswered(key) => write!(
                f,
                "the server asked for input `{key}`, and the client has no answer for it"
            ),
            ClientError::Unexpected(what) => write!(f, "unexpected answer: {what}"),
            ClientError::Unreachable(what) => write!(f, "the server could not be reached: {what}"),
            ClientError::Timeout(server) => {
                write!(f, "{server} did not answer within the client's timeout")
            }
            ClientError::Protocol(what) => write!(f, "the server broke the protocol: {what}"),
            ClientError::Credentials(what) => {
                write!(f, "the client's credentials were refused: {what}")
            }
        }
    }
}

impl std::error::Error for ClientError {}
