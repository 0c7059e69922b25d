//! The methods a 2026-07-28 server serves, by name: one table, from which the enum, its wire
//! names, [`Method::ALL`], every per-method fact and the typed params of each request come. A
//! new method is one row here; the compiler then points at each `match` over [`Method`] that
//! must name the family serving it.

use std::fmt;

/// The member of a request's `params` that names the one thing a method acts on (and that the
/// `Mcp-Name` header mirrors on HTTP).
///
/// ```
/// use mcp_runtime::protocol::{Method, NamedBy};
/// assert_eq!(Method::ResourcesRead.named_by(), Some(NamedBy::Uri));
/// assert_eq!(NamedBy::Uri.member(), "uri");
/// assert_eq!(Method::ToolsList.named_by(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NamedBy {
    /// `params.name` (a tool, a prompt).
    Name,
    /// `params.uri` (a resource).
    Uri,
    /// `params.taskId` (a task).
    TaskId,
}

impl NamedBy {
    /// The member's name in `params`.
    pub const fn member(self) -> &'static str {
        match self {
            NamedBy::Name => "name",
            NamedBy::Uri => "uri",
            NamedBy::TaskId => "taskId",
        }
    }
}

/// The table of methods, one row each, handed to the macro named `$then`:
///
/// `Variant = "wire/name", params: none | optional(Type) | required(Type),
/// facts: { named_by: None | Some(NamedBy::…), task: bool, era_2025: bool };`
///
/// The facts are one group, so a reader that needs none of them takes it as one token tree.
///
/// Three readers expand it: `method_facts` below (the [`Method`] enum and its facts),
/// `client_params` in `request.rs` (the typed [`ClientParams`](super::ClientParams)) and the
/// params reader of `dispatch::decode`. A new method is one row here, plus the arms the
/// compiler then asks for where a `match` names the family that serves it. Every params type
/// a row names implements [`ParamStrings`]: `client_params` calls it for its variant, so a row
/// whose type does not is a compile error (and its strings cannot escape the length limit).
macro_rules! for_each_method {
    ($then:ident) => {
        $then! {
            /// `server/discover`.
            Discover = "server/discover",
                params: none,
                facts: { named_by: None, task: false, era_2025: false };
            /// `tools/list`.
            ToolsList = "tools/list",
                params: optional(PaginatedRequestParams),
                facts: { named_by: None, task: false, era_2025: true };
            /// `tools/call`.
            ToolsCall = "tools/call",
                params: required(CallToolRequestParams<'a>),
                facts: { named_by: Some(NamedBy::Name), task: false, era_2025: true };
            /// `resources/list`.
            ResourcesList = "resources/list",
                params: optional(PaginatedRequestParams),
                facts: { named_by: None, task: false, era_2025: true };
            /// `resources/templates/list`.
            ResourceTemplatesList = "resources/templates/list",
                params: optional(PaginatedRequestParams),
                facts: { named_by: None, task: false, era_2025: true };
            /// `resources/read`.
            ResourcesRead = "resources/read",
                params: required(ReadResourceRequestParams<'a>),
                facts: { named_by: Some(NamedBy::Uri), task: false, era_2025: true };
            /// `prompts/list`.
            PromptsList = "prompts/list",
                params: optional(PaginatedRequestParams),
                facts: { named_by: None, task: false, era_2025: true };
            /// `prompts/get`.
            PromptsGet = "prompts/get",
                params: required(GetPromptRequestParams<'a>),
                facts: { named_by: Some(NamedBy::Name), task: false, era_2025: true };
            /// `completion/complete`.
            Complete = "completion/complete",
                params: required(CompleteRequestParams),
                facts: { named_by: None, task: false, era_2025: true };
            /// `subscriptions/listen`.
            Listen = "subscriptions/listen",
                params: optional(SubscriptionsListenRequestParams),
                facts: { named_by: None, task: false, era_2025: false };
            /// `skills/list` (the skills extension).
            SkillsList = "skills/list",
                params: optional(PaginatedRequestParams),
                facts: { named_by: None, task: false, era_2025: true };
            /// `skills/get` (the skills extension).
            SkillsGet = "skills/get",
                params: required(GetSkillRequestParams),
                facts: { named_by: None, task: false, era_2025: true };
            /// `resources/directory/read` (the skills extension, with `directoryRead`).
            ResourcesDirectoryRead = "resources/directory/read",
                params: required(ReadDirectoryRequestParams),
                facts: { named_by: None, task: false, era_2025: true };
            /// `tasks/get` (the tasks extension).
            TasksGet = "tasks/get",
                params: required(TaskIdParams),
                facts: { named_by: Some(NamedBy::TaskId), task: true, era_2025: false };
            /// `tasks/update` (the tasks extension).
            TasksUpdate = "tasks/update",
                params: required(UpdateTaskParams<'a>),
                facts: { named_by: Some(NamedBy::TaskId), task: true, era_2025: false };
            /// `tasks/cancel` (the tasks extension).
            TasksCancel = "tasks/cancel",
                params: required(TaskIdParams),
                facts: { named_by: Some(NamedBy::TaskId), task: true, era_2025: false };
        }
    };
}
pub(crate) use for_each_method;

/// A visitor of the strings of request params: called with each string's short name for an
/// error message ("tool name", "cursor", …) and the string; an error stops the walk.
pub(crate) trait VisitString<E>: FnMut(&'static str, &str) -> Result<(), E> {}

impl<E, F: FnMut(&'static str, &str) -> Result<(), E>> VisitString<E> for F {}

/// The strings of a params type that name or point at something (names, URIs, cursors, task
/// ids, completion values), which `dispatch::limits` holds to `Limits::string_bytes`.
///
/// Every params type of the method table implements it. Each impl takes its type apart member
/// by member, so a member added later does not compile until its impl says whether it is
/// visited. Left out everywhere: arguments, `_meta` and `inputResponses` (values with limits
/// of their own: depth, the body's size) and `requestState` (held to `Limits::state_bytes`
/// when it is opened).
pub(crate) trait ParamStrings {
    /// Calls `visit` on each string, in the order the type declares them, until it fails.
    /// An impl neither allocates nor reads arguments: `tools/call` runs it on every request.
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E>;
}

/// Writes [`Method`] and its facts from the table.
macro_rules! method_facts {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal,
        params: $params:ident $(($ty:ty))?,
        facts: { named_by: $named_by:expr, task: $task:literal, era_2025: $era_2025:literal };
    )*) => {
        /// A method a client may call on a 2026-07-28 server (the `tasks/*` ones with the tasks
        /// extension, `skills/*` and `resources/directory/read` with the skills extension).
        ///
        /// ```
        /// use mcp_runtime::protocol::Method;
        /// assert_eq!(Method::parse("tools/call"), Some(Method::ToolsCall));
        /// assert_eq!(Method::ToolsCall.name(), "tools/call");
        /// assert_eq!(Method::parse("initialize"), None);
        /// assert!(Method::is_removed("initialize"));
        /// assert!(Method::ALL.contains(&Method::TasksGet));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Method {
            $( $(#[$doc])* $variant, )*
        }

        impl Method {
            /// Every method, in the table's order.
            pub const ALL: &'static [Method] = &[$(Method::$variant),*];

            /// The method named `name`, if this revision defines it.
            pub fn parse(name: &str) -> Option<Method> {
                match name {
                    $( $name => Some(Method::$variant), )*
                    _ => None,
                }
            }

            /// Its name on the wire.
            pub const fn name(self) -> &'static str {
                match self {
                    $( Method::$variant => $name, )*
                }
            }

            /// Whether a request of it must carry `params` (the others read absent `params`
            /// as their defaults).
            pub const fn params_required(self) -> bool {
                match self {
                    $( Method::$variant => method_facts!(@required $params), )*
                }
            }

            /// The member of `params` that names what it acts on, if it names one thing.
            pub const fn named_by(self) -> Option<NamedBy> {
                match self {
                    $( Method::$variant => $named_by, )*
                }
            }

            /// Whether it belongs to the tasks extension (`tasks/*`).
            pub const fn is_task_method(self) -> bool {
                match self {
                    $( Method::$variant => $task, )*
                }
            }

            /// Whether a 2025-11-25 session serves it too (the others are answered there with
            /// "method not found").
            pub const fn on_2025_11_25_sessions(self) -> bool {
                match self {
                    $( Method::$variant => $era_2025, )*
                }
            }
        }
    };
    (@required required) => { true };
    (@required optional) => { false };
    (@required none) => { false };
}

for_each_method!(method_facts);

/// Methods of earlier revisions that 2026-07-28 removed.
const REMOVED: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/result",
    "tasks/list",
];

impl Method {
    /// Whether `name` is a method an earlier revision had and 2026-07-28 removed (`initialize`,
    /// `ping`, …).
    pub fn is_removed(name: &str) -> bool {
        REMOVED.contains(&name)
    }

    /// Whether its `params` name one thing (`name`, `uri` for `resources/read`, `taskId` for
    /// `tasks/*`), which the `Mcp-Name` header mirrors on HTTP.
    pub const fn names_a_primitive(self) -> bool {
        self.named_by().is_some()
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_method_and_none_is_removed() {
        for &method in Method::ALL {
            assert_eq!(Method::parse(method.name()), Some(method));
            assert!(!Method::is_removed(method.name()), "{method}");
        }
        for removed in REMOVED {
            assert_eq!(Method::parse(removed), None, "{removed}");
        }
    }

    #[test]
    fn task_methods_are_the_tasks_prefix_and_name_their_task() {
        for &method in Method::ALL {
            assert_eq!(method.is_task_method(), method.name().starts_with("tasks/"));
            if method.is_task_method() {
                assert_eq!(method.named_by(), Some(NamedBy::TaskId));
                assert!(!method.on_2025_11_25_sessions());
            }
        }
    }
}
