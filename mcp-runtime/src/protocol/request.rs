//! One message from a client, as the server reads it: a request tagged by its [`Method`], with
//! typed params that borrow the raw parts (`arguments`, `inputResponses`) from the message text,
//! or a notification.

// Every params type the method table names, by the protocol's face: a new method's type is
// found here without an import of its own.
use super::jsonrpc::RequestId;
use super::messages::{
    CompleteRequestParams, PaginatedRequestParams, SubscriptionsListenRequestParams,
};
use super::meta::RequestMeta;
use super::method::for_each_method;
use super::method::{Method, ParamStrings, VisitString};
use super::prompts::GetPromptRequestParams;
use super::resources::ReadResourceRequestParams;
use super::skills::{GetSkillRequestParams, ReadDirectoryRequestParams};
use super::tasks::{TaskIdParams, UpdateTaskParams};
use super::tools::CallToolRequestParams;

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
    // What a variant's params name (the table's `names`), by the member that holds it; a row
    // that names something must have params, or its pattern does not compile.
    (@named_pattern none $variant:ident $p:ident) => { ClientParams::$variant { .. } };
    (@named_pattern $names:ident $variant:ident $p:ident) => { ClientParams::$variant($p) };
    (@named none $p:ident) => { None };
    (@named tool $p:ident) => { Some(&$p.name) };
    (@named prompt $p:ident) => { Some(&$p.name) };
    (@named resource $p:ident) => { Some(&$p.uri) };
    (@named skill $p:ident) => { Some(&$p.uri) };
    (@named skill_directory $p:ident) => { Some(&$p.uri) };
    (@named task $p:ident) => { Some(&$p.task_id) };
    (@known none $variant:ident $p:ident) => { KnownParams::$variant };
    (@known $kind:ident $variant:ident $p:ident) => { KnownParams::$variant($p) };
    (@known_pattern none $variant:ident $p:ident) => { KnownParams::$variant { .. } };
    (@known_pattern $names:ident $variant:ident $p:ident) => { KnownParams::$variant($p) };
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, params: $params:ident $(($ty:ty))?,
        facts: { names: $names:ident, offered_by: $offer:ident, era_2025: $era:literal }; )*) => {
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

        /// The params of a request that passed validation: those of a method this revision
        /// defines ([`ClientParams`] without `Unknown`), what routing matches.
        #[derive(Debug)]
        pub(crate) enum KnownParams<'a> {
            $( $variant $(($ty))?, )*
            /// Params that do not have the method's shape, answered with `-32602`.
            Malformed {
                /// `params.name` (`params.uri`, `params.taskId`) when it could be read.
                name: Option<String>,
                /// What is wrong.
                reason: String,
            },
        }

        impl KnownParams<'_> {
            /// What the params name, as [`ClientParams::named`] says.
            pub(crate) fn named(&self) -> Option<&str> {
                match self {
                    $(
                        client_params!(@known_pattern $names $variant p) =>
                            client_params!(@named $names p),
                    )*
                    KnownParams::Malformed { name, .. } => name.as_deref(),
                }
            }
        }

        impl<'a> ClientParams<'a> {
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

            /// The params of a method this revision defines, or themselves back when the
            /// method is unknown.
            // The `Ok` side is as large: the params move once either way.
            #[allow(clippy::result_large_err)]
            pub(crate) fn known(self) -> Result<KnownParams<'a>, Self> {
                Ok(match self {
                    $(
                        client_params!(@pattern $params $variant p) =>
                            client_params!(@known $params $variant p),
                    )*
                    ClientParams::Malformed { name, reason, .. } => {
                        KnownParams::Malformed { name, reason }
                    }
                    unknown @ ClientParams::Unknown { .. } => return Err(unknown),
                })
            }

            /// What the params name (the method table's `names`): `params.name` of
            /// `tools/call` and `prompts/get`, `params.uri` of `resources/read`, `skills/get` and
            /// `resources/directory/read`, `params.taskId` of `tasks/*`; the name read from
            /// malformed params.
            pub(crate) fn named(&self) -> Option<&str> {
                match self {
                    $(
                        client_params!(@named_pattern $names $variant p) =>
                            client_params!(@named $names p),
                    )*
                    ClientParams::Malformed { name, .. } => name.as_deref(),
                    ClientParams::Unknown { .. } => None,
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

    /// What the request's params name (the method table's `names`): `params.name` of
    /// `tools/call` and `prompts/get`, `params.uri` of `resources/read`, `skills/get` and
    /// `resources/directory/read`, `params.taskId` of `tasks/*` (what the `Mcp-Name` header
    /// mirrors, for those [`Method::mcp_name_header`] says).
    pub fn primitive_name(&self) -> Option<&str> {
        self.params.named()
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
