//! The methods a 2026-07-28 server serves, by name.

use std::fmt;

/// A method a client may call on a 2026-07-28 server (the `tasks/*` ones with the tasks
/// extension).
///
/// ```
/// use mcp_runtime::protocol::Method;
/// assert_eq!(Method::parse("tools/call"), Some(Method::ToolsCall));
/// assert_eq!(Method::ToolsCall.name(), "tools/call");
/// assert_eq!(Method::parse("initialize"), None);
/// assert!(Method::is_removed("initialize"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `tools/call`.
    ToolsCall,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    ResourceTemplatesList,
    /// `resources/read`.
    ResourcesRead,
    /// `prompts/list`.
    PromptsList,
    /// `prompts/get`.
    PromptsGet,
    /// `completion/complete`.
    Complete,
    /// `subscriptions/listen`.
    Listen,
    /// `tasks/get` (the tasks extension).
    TasksGet,
    /// `tasks/update` (the tasks extension).
    TasksUpdate,
    /// `tasks/cancel` (the tasks extension).
    TasksCancel,
}

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
    /// The method named `name`, if this revision defines it.
    pub fn parse(name: &str) -> Option<Method> {
        Some(match name {
            "server/discover" => Method::Discover,
            "tools/list" => Method::ToolsList,
            "tools/call" => Method::ToolsCall,
            "resources/list" => Method::ResourcesList,
            "resources/templates/list" => Method::ResourceTemplatesList,
            "resources/read" => Method::ResourcesRead,
            "prompts/list" => Method::PromptsList,
            "prompts/get" => Method::PromptsGet,
            "completion/complete" => Method::Complete,
            "subscriptions/listen" => Method::Listen,
            "tasks/get" => Method::TasksGet,
            "tasks/update" => Method::TasksUpdate,
            "tasks/cancel" => Method::TasksCancel,
            _ => return None,
        })
    }

    /// Its name on the wire.
    pub const fn name(self) -> &'static str {
        match self {
            Method::Discover => "server/discover",
            Method::ToolsList => "tools/list",
            Method::ToolsCall => "tools/call",
            Method::ResourcesList => "resources/list",
            Method::ResourceTemplatesList => "resources/templates/list",
            Method::ResourcesRead => "resources/read",
            Method::PromptsList => "prompts/list",
            Method::PromptsGet => "prompts/get",
            Method::Complete => "completion/complete",
            Method::Listen => "subscriptions/listen",
            Method::TasksGet => "tasks/get",
            Method::TasksUpdate => "tasks/update",
            Method::TasksCancel => "tasks/cancel",
        }
    }

    /// Whether `name` is a method an earlier revision had and 2026-07-28 removed (`initialize`,
    /// `ping`, …).
    pub fn is_removed(name: &str) -> bool {
        REMOVED.contains(&name)
    }

    /// Whether its `params` name one thing (`name`, `uri` for `resources/read`, `taskId` for
    /// `tasks/*`), which the `Mcp-Name` header mirrors on HTTP.
    pub const fn names_a_primitive(self) -> bool {
        matches!(
            self,
            Method::ToolsCall
                | Method::PromptsGet
                | Method::ResourcesRead
                | Method::TasksGet
                | Method::TasksUpdate
                | Method::TasksCancel
        )
    }

    /// Whether it belongs to the tasks extension (`tasks/*`).
    pub const fn is_task_method(self) -> bool {
        matches!(
            self,
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel
        )
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
