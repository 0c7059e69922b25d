//! The methods a 2026-07-28 server serves, by name: one table, from which the enum, its wire
//! names, [`Method::ALL`], every per-method fact and the typed params of each request come. A
//! new method is one row here; the compiler then points at each `match` over [`Method`] that
//! must name the family serving it.

use std::fmt;

/// The one thing a method's params name, and so act on: a tool, a prompt, a resource, a skill,
/// a folder of a skill or a task.
///
/// ```
/// use mcp_runtime::protocol::{Method, Named};
/// assert_eq!(Method::ResourcesRead.names(), Some(Named::Resource));
/// assert_eq!(Named::Resource.member(), "uri");
/// assert!(Method::ResourcesRead.mcp_name_header());
/// assert!(!Method::SkillsGet.mcp_name_header());
/// assert_eq!(Method::ToolsList.names(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Named {
    /// A tool, by `params.name` (`tools/call`).
    Tool,
    /// A prompt, by `params.name` (`prompts/get`).
    Prompt,
    /// A resource, by `params.uri` (`resources/read`).
    Resource,
    /// A skill, by `params.uri` (`skills/get`).
    Skill,
    /// A folder inside a skill, by `params.uri` (`resources/directory/read`).
    SkillDirectory,
    /// A task, by `params.taskId` (`tasks/*`).
    Task,
}

impl Named {
    /// The member of `params` that holds it.
    pub const fn member(self) -> &'static str {
        match self {
            Named::Tool | Named::Prompt => "name",
            Named::Resource | Named::Skill | Named::SkillDirectory => "uri",
            Named::Task => "taskId",
        }
    }

    /// Whether the `Mcp-Name` header mirrors it on HTTP (the spec's tools, prompts, resources
    /// and tasks; not the skills extension's URIs).
    pub const fn in_mcp_name_header(self) -> bool {
        match self {
            Named::Tool | Named::Prompt | Named::Resource | Named::Task => true,
            Named::Skill | Named::SkillDirectory => false,
        }
    }
}

/// What a server must offer for a method to be served (and advertised), asked of the
/// configuration and the registry in one place (`dispatch::validate::offers`), which both
/// validation and the advertised capabilities read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Every server (`server/discover`).
    Always,
    /// The `tools` capability.
    Tools,
    /// The `resources` capability.
    Resources,
    /// The `prompts` capability.
    Prompts,
    /// The `completions` capability.
    Completions,
    /// Something to listen for: list changes, resource subscriptions or tasks.
    Listen,
    /// The tasks extension.
    Tasks,
    /// The skills extension.
    Skills,
}

/// The table of methods, one row each, handed to the macro named `$then`:
///
/// `Variant = "wire/name", params: none | optional(Type) | required(Type),
/// facts: { names: none | tool | prompt | resource | skill | skill_directory | task,
/// offered_by: Always | Tools | …, era_2025: bool };`
///
/// `names` is what the params name ([`Named`], in snake case; the member holding it follows),
/// `offered_by` what the server must offer for the method to be served ([`Offer`]), `era_2025`
/// whether a 2025-11-25 session serves it too.
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
                facts: { names: none, offered_by: Always, era_2025: false };
            /// `tools/list`.
            ToolsList = "tools/list",
                params: optional(PaginatedRequestParams),
                facts: { names: none, offered_by: Tools, era_2025: true };
            /// `tools/call`.
            ToolsCall = "tools/call",
                params: required(CallToolRequestParams<'a>),
                facts: { names: tool, offered_by: Tools, era_2025: true };
            /// `resources/list`.
            ResourcesList = "resources/list",
                params: optional(PaginatedRequestParams),
                facts: { names: none, offered_by: Resources, era_2025: true };
            /// `resources/templates/list`.
            ResourceTemplatesList = "resources/templates/list",
                params: optional(PaginatedRequestParams),
                facts: { names: none, offered_by: Resources, era_2025: true };
            /// `resources/read`.
            ResourcesRead = "resources/read",
                params: required(ReadResourceRequestParams<'a>),
                facts: { names: resource, offered_by: Resources, era_2025: true };
            /// `prompts/list`.
            PromptsList = "prompts/list",
                params: optional(PaginatedRequestParams),
                facts: { names: none, offered_by: Prompts, era_2025: true };
            /// `prompts/get`.
            PromptsGet = "prompts/get",
                params: required(GetPromptRequestParams<'a>),
                facts: { names: prompt, offered_by: Prompts, era_2025: true };
            /// `completion/complete`.
            Complete = "completion/complete",
                params: required(CompleteRequestParams),
                facts: { names: none, offered_by: Completions, era_2025: true };
            /// `subscriptions/listen`.
            Listen = "subscriptions/listen",
                params: optional(SubscriptionsListenRequestParams),
                facts: { names: none, offered_by: Listen, era_2025: false };
            /// `skills/list` (the skills extension).
            SkillsList = "skills/list",
                params: optional(PaginatedRequestParams),
                facts: { names: none, offered_by: Skills, era_2025: true };
            /// `skills/get` (the skills extension).
            SkillsGet = "skills/get",
                params: required(GetSkillRequestParams),
                facts: { names: skill, offered_by: Skills, era_2025: true };
            /// `resources/directory/read` (the skills extension, with `directoryRead`).
            ResourcesDirectoryRead = "resources/directory/read",
                params: required(ReadDirectoryRequestParams),
                facts: { names: skill_directory, offered_by: Skills, era_2025: true };
            /// `tasks/get` (the tasks extension).
            TasksGet = "tasks/get",
                params: required(TaskIdParams),
                facts: { names: task, offered_by: Tasks, era_2025: false };
            /// `tasks/update` (the tasks extension).
            TasksUpdate = "tasks/update",
                params: required(UpdateTaskParams<'a>),
                facts: { names: task, offered_by: Tasks, era_2025: false };
            /// `tasks/cancel` (the tasks extension).
            TasksCancel = "tasks/cancel",
                params: required(TaskIdParams),
                facts: { names: task, offered_by: Tasks, era_2025: false };
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
        facts: { names: $names:ident, offered_by: $offer:ident, era_2025: $era_2025:literal };
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

            /// What its params name, if they name one thing.
            pub const fn names(self) -> Option<Named> {
                match self {
                    $( Method::$variant => method_facts!(@names $names), )*
                }
            }

            /// What the server must offer for it to be served.
            pub(crate) const fn offered_by(self) -> Offer {
                match self {
                    $( Method::$variant => Offer::$offer, )*
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
    (@names none) => { None };
    (@names tool) => { Some(Named::Tool) };
    (@names prompt) => { Some(Named::Prompt) };
    (@names resource) => { Some(Named::Resource) };
    (@names skill) => { Some(Named::Skill) };
    (@names skill_directory) => { Some(Named::SkillDirectory) };
    (@names task) => { Some(Named::Task) };
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

    /// Whether it belongs to the tasks extension (`tasks/*`: each names its task).
    pub const fn is_task_method(self) -> bool {
        matches!(self.names(), Some(Named::Task))
    }

    /// Whether a request of it carries the `Mcp-Name` header on HTTP, mirroring what its
    /// params name ([`Named::in_mcp_name_header`]).
    pub const fn mcp_name_header(self) -> bool {
        match self.names() {
            Some(named) => named.in_mcp_name_header(),
            None => false,
        }
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
                assert_eq!(method.names().map(Named::member), Some("taskId"));
                assert!(!method.on_2025_11_25_sessions());
            }
        }
    }

    #[test]
    fn mcp_name_mirrors_what_the_spec_names_and_skills_are_not_in_it() {
        let mirrored: Vec<&str> = Method::ALL
            .iter()
            .filter(|m| m.mcp_name_header())
            .map(|m| m.name())
            .collect();
        assert_eq!(
            mirrored,
            [
                "tools/call",
                "resources/read",
                "prompts/get",
                "tasks/get",
                "tasks/update",
                "tasks/cancel"
            ]
        );
        assert_eq!(Method::SkillsGet.names(), Some(Named::Skill));
        assert_eq!(
            Method::ResourcesDirectoryRead.names(),
            Some(Named::SkillDirectory)
        );
    }
}
