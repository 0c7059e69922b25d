//! One message from a client, as the server reads it: a request tagged by its [`Method`], with
//! typed params that borrow the raw parts (`arguments`, `inputResponses`) from the message text,
//! or a notification.

// Every params type the method table names, by the protocol's face: a new method's type is
// found here without an import of its own.
use super::method::for_each_method;
use super::*;
use serde_json::value::RawValue;

/// One JSON-RPC message a client sent.
///
/// ```
/// use mcp_runtime::protocol::{ClientMessage, ClientNotification};
/// let cancelled =
///     ClientMessage::Notification(ClientNotification::new("notifications/cancelled", None));
/// assert!(matches!(cancelled, ClientMessage::Notification(_)));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientMessage<'a> {
    /// A request, to be answered.
    Request(ClientRequest<'a>),
    /// A notification, never answered.
    Notification(ClientNotification),
}

/// A client request: its id, its `_meta`, and its params by method.
///
/// ```
/// use mcp_runtime::protocol::{ClientParams, ClientRequest, Method, RequestId};
/// let request = ClientRequest::new(RequestId::Number(1), None, ClientParams::Discover);
/// assert_eq!(request.method(), Ok(Method::Discover));
/// assert_eq!(request.method_name(), "server/discover");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct ClientRequest<'a> {
    /// The request id.
    pub id: RequestId,
    /// `params._meta`, taken out of the params (absent: the request is refused with `-32602`).
    pub meta: Option<Box<RequestMeta>>,
    /// The params, by method.
    pub params: ClientParams<'a>,
}

/// Writes [`ClientParams`] and the method of each of its variants from the method table.
macro_rules! client_params {
    // A variant's pattern and its strings, by whether the row names a params type (`$p` and
    // `$visit` come from the caller, so that the pattern's binding is the arm's).
    (@pattern none $variant:ident $p:ident) => { ClientParams::$variant };
    (@pattern $kind:ident $variant:ident $p:ident) => { ClientParams::$variant($p) };
    (@visit none $p:ident $visit:ident) => { Ok(()) };
    (@visit $kind:ident $p:ident $visit:ident) => { ParamStrings::visit_strings($p, $visit) };
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, params: $params:ident $(($ty:ty))?, facts: $facts:tt; )*) => {
        /// The params of a request, one variant per method, and what the server answers without
        /// reading them: a known method with malformed params, an unknown method.
        ///
        /// ```
        /// use mcp_runtime::protocol::{ClientParams, ClientRequest, Method, RequestId};
        /// let params = ClientParams::Malformed {
        ///     method: Method::ToolsCall,
        ///     name: Some("add".into()),
        ///     reason: "Invalid params: missing field `name`".into(),
        /// };
        /// let request = ClientRequest::new(RequestId::Number(7), None, params);
        /// assert_eq!(request.primitive_name(), Some("add"));
        /// ```
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum ClientParams<'a> {
            $( $(#[$doc])* $variant $(($ty))?, )*
            /// A method of this revision whose params do not have its shape: answered with
            /// `-32602` once the request has passed the checks every request passes.
            Malformed {
                /// The method.
                method: Method,
                /// `params.name` (`params.uri`, `params.taskId`) when it could be read, for the
                /// `Mcp-Name` check.
                name: Option<String>,
                /// What is wrong.
                reason: String,
            },
            /// A method this revision does not define.
            Unknown {
                /// Its name.
                method: String,
                /// Its params, unread.
                params: Option<&'a RawValue>,
            },
        }

        impl ClientParams<'_> {
            /// The method, or the name of a method this revision does not define.
            fn method(&self) -> Result<Method, &str> {
                Ok(match self {
                    $( ClientParams::$variant { .. } => Method::$variant, )*
                    ClientParams::Malformed { method, .. } => *method,
                    ClientParams::Unknown { method, .. } => return Err(method),
                })
            }

            /// Calls `visit` on each string the params name things with ([`ParamStrings`]), for
            /// the length limit. Params not read (malformed, of an unknown method) have none.
            pub(crate) fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
                match self {
                    $(
                        client_params!(@pattern $params $variant p) =>
                            client_params!(@visit $params p visit),
                    )*
                    ClientParams::Malformed { .. } | ClientParams::Unknown { .. } => Ok(()),
                }
            }
        }
    };
}

for_each_method!(client_params);

impl<'a> ClientRequest<'a> {
    /// A request.
    pub fn new(id: RequestId, meta: Option<Box<RequestMeta>>, params: ClientParams<'a>) -> Self {
        ClientRequest { id, meta, params }
    }

    /// The method, or the name of a method this revision does not define.
    pub fn method(&self) -> Result<Method, &str> {
        self.params.method()
    }

    /// The method's name as sent.
    pub fn method_name(&self) -> &str {
        match self.method() {
            Ok(m) => m.name(),
            Err(name) => name,
        }
    }

    /// The primitive the request names: `params.name` of `tools/call` and `prompts/get`,
    /// `params.uri` of `resources/read`, `params.taskId` of `tasks/*` (what the `Mcp-Name`
    /// header mirrors), `params.uri` of `skills/get` and `resources/directory/read`.
    pub fn primitive_name(&self) -> Option<&str> {
        match &self.params {
            ClientParams::ToolsCall(p) => Some(&p.name),
            ClientParams::PromptsGet(p) => Some(&p.name),
            ClientParams::ResourcesRead(p) => Some(&p.uri),
            ClientParams::SkillsGet(p) => Some(&p.uri),
            ClientParams::ResourcesDirectoryRead(p) => Some(&p.uri),
            ClientParams::TasksGet(p) | ClientParams::TasksCancel(p) => Some(&p.task_id),
            ClientParams::TasksUpdate(p) => Some(&p.task_id),
            ClientParams::Malformed { name, .. } => name.as_deref(),
            _ => None,
        }
    }
}

/// A client notification (its params unread).
///
/// ```
/// use mcp_runtime::protocol::ClientNotification;
/// let n = ClientNotification::new("notifications/cancelled", None);
/// assert_eq!(n.method, "notifications/cancelled");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct ClientNotification {
    /// The method.
    pub method: String,
    /// The params, as sent.
    pub params: Option<Box<RawValue>>,
}

impl ClientNotification {
    /// A notification of `method`.
    pub fn new(method: impl Into<String>, params: Option<Box<RawValue>>) -> Self {
        ClientNotification {
            method: method.into(),
            params,
        }
    }
}
