//! Authorization of one primitive for one caller: its scopes at once (before its request is
//! looked at further), its custom checks (the primitive's, then the server's) as a future that
//! must finish before the handler is called. A refusal is `-32602` with `data.requiredScopes`,
//! which transports answer as a challenge.
//!
//! Free functions of the registry, the request's context and the server's `policy`: every family
//! asks them; they know nothing of the dispatcher.

use super::panic::catch_panic;
use crate::context::{Caller, RequestContext};
use crate::error::McpError;
use crate::protocol::{ClientRequest, Named};
use crate::registry::{
    AccessCheck, AccessRequest, Arguments, BoxFuture, Denied, PrimitiveKind, Purpose, Registry,
    Requirement,
};
use std::sync::Arc;

/// Custom checks still to pass before a handler may run.
pub(super) type Checking = BoxFuture<'static, Result<(), McpError>>;

/// What a primitive is called in refusals: ``tool `search` ``.
fn describe(kind: PrimitiveKind, name: &str) -> String {
    let kind = match kind {
        PrimitiveKind::Tool => "tool",
        PrimitiveKind::Resource => "resource",
        PrimitiveKind::ResourceTemplate => "resource template",
        PrimitiveKind::Prompt => "prompt",
        PrimitiveKind::Skill => "skill",
    };
    format!("{kind} `{name}`")
}

fn refused(kind: PrimitiveKind, name: &str, denied: &Denied, anonymous: bool) -> McpError {
    McpError::refused(
        &describe(kind, name),
        &denied.scopes,
        denied.reason.as_deref(),
        anonymous,
    )
}

/// What an `AccessRequest` is made of, besides the caller and the purpose.
pub(super) struct Target {
    pub(super) kind: PrimitiveKind,
    pub(super) name: Arc<str>,
    pub(super) uri: Option<Arc<str>>,
    pub(super) arguments: Option<Arguments>,
}

/// The scopes `request` needs (for the challenge of a request that came without a token): those
/// of the tool, resource, template, prompt or skill it names (a skill's for `skills/get` and for
/// `resources/directory/read` of a folder inside it); none when it names none.
#[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
pub(super) fn scopes_needed(reg: &Registry, request: &ClientRequest<'_>) -> Vec<String> {
    let (Ok(method), Some(name)) = (request.method(), request.primitive_name()) else {
        return Vec::new();
    };
    let access = match method.names() {
        Some(Named::Tool) => reg.tool_index.get(name).map(|&i| &reg.tools[i].tool.access),
        Some(Named::Prompt) => reg
            .prompt_index
            .get(name)
            .map(|&i| &reg.prompts[i].prompt.access),
        Some(Named::Resource) => reg.read_access(name),
        Some(Named::Skill) => reg.skills.get_access(name),
        Some(Named::SkillDirectory) => reg.skills.directory_access(name),
        // A task is its creator's, whatever the scopes: none names it.
        Some(Named::Task) | None => None,
    };
    access.map(|a| a.scopes.clone()).unwrap_or_default()
}

/// Whether `caller` has the scopes to read `uri` in `reg`.
pub(super) fn may_read(reg: &Registry, uri: &str, caller: Option<&Caller>) -> bool {
    reg.read_access(uri)
        .is_none_or(|a| a.scopes_met(caller).is_ok())
}

/// Whether a caller may be told of a resource's updates (a listen stream's
/// `resourceSubscriptions`, a 2025-11-25 `resources/subscribe`).
pub(super) enum Follow {
    /// Yes: its scopes suffice and no custom check applies.
    Yes,
    /// No: its scopes fall short.
    No,
    /// Its scopes suffice; these custom checks decide (the refusal `resources/read` would
    /// answer, when they refuse).
    Ask(Checking),
}

/// Whether `caller` may follow `uri`'s updates: what `resources/read` of it asks, the scopes
/// and then the custom checks (the resource's or template's, then the server's `policy`, with
/// [`Purpose::Use`]): an update tells of what the resource holds. A URI that reaches nothing
/// registered asks nothing (there is nothing to reveal); a check that panics refuses.
pub(super) fn follow(
    reg: &Registry,
    policy: Option<&AccessCheck>,
    uri: &str,
    caller: Option<&Arc<Caller>>,
) -> Follow {
    let Some((access, kind, name)) = reg.read_target(uri) else {
        return Follow::Yes;
    };
    if access.scopes_met(caller.map(|c| &**c)).is_err() {
        return Follow::No;
    }
    if access.check.is_none() && policy.is_none() {
        return Follow::Yes;
    }
    let checks = checks_of(policy, access);
    let request = AccessRequest {
        caller: caller.cloned(),
        kind,
        name: Arc::from(name),
        uri: Some(Arc::from(uri)),
        arguments: None,
        purpose: Purpose::Use,
    };
    Follow::Ask(Box::pin(ask_all(checks, request)))
}

/// `caller` refused as `resources/read` of `uri` refuses it when its scopes fall short.
pub(super) fn read_refusal(
    reg: &Registry,
    uri: &str,
    caller: Option<&Caller>,
) -> Result<(), McpError> {
    let Some((access, kind, name)) = reg.read_target(uri) else {
        return Ok(());
    };
    access
        .scopes_met(caller)
        .map_err(|denied| refused(kind, name, &denied, caller.is_none()))
}

/// The scopes `access` requires, checked against the request's caller.
pub(super) fn check_scopes(
    access: &Requirement,
    cx: &RequestContext,
    kind: PrimitiveKind,
    name: &str,
) -> Result<(), McpError> {
    let caller = cx.inner.caller.as_deref();
    access.scopes_met(caller).map_err(|denied| {
        if caller.is_none() && cx.inner.over_stdio && !denied.scopes.is_empty() {
            return refused_over_stdio(kind, name, &denied.scopes);
        }
        refused(kind, name, &denied, caller.is_none())
    })
}

/// The refusal of a scoped primitive asked over stdio by a server with no `stdio_caller`: no
/// token can come over stdio, so the message names the setting that gives such requests a
/// caller.
fn refused_over_stdio(kind: PrimitiveKind, name: &str, scopes: &[String]) -> McpError {
    let what = describe(kind, name);
    let listed = scopes
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut e = McpError::refused(&what, scopes, None, true);
    e.object.message = format!(
        "Unauthorized: {what} needs the scope{} {}, and a request over stdio carries no access \
         token: give the server its local user, e.g. \
         ServerBuilder::stdio_caller(Caller::new(\"local-user\").with_scopes([{listed}]))",
        if scopes.len() == 1 { "" } else { "s" },
        scopes.join(" "),
    );
    e
}

/// The custom checks of a use of `target`, when there are any: the primitive's, then the
/// server's (`policy`). A check that panics refuses.
pub(super) fn custom_checks(
    policy: Option<&AccessCheck>,
    access: &Requirement,
    cx: &RequestContext,
    target: impl FnOnce() -> Target,
) -> Option<Checking> {
    if access.check.is_none() && policy.is_none() {
        return None;
    }
    let checks = checks_of(policy, access);
    let target = target();
    let request = AccessRequest {
        caller: cx.inner.caller.clone(),
        kind: target.kind,
        name: target.name,
        uri: target.uri,
        arguments: target.arguments,
        purpose: Purpose::Use,
    };
    Some(Box::pin(ask_all(checks, request)))
}

/// Asks `checks` in turn: the first refusal answers (as the primitive's refusal); a check that
/// panics refuses with an internal error.
async fn ask_all(checks: Vec<AccessCheck>, request: AccessRequest) -> Result<(), McpError> {
    let anonymous = request.caller.is_none();
    for check in checks {
        match catch_panic(check.ask(request.clone())).await {
            Ok(Ok(())) => {}
            Ok(Err(denied)) => {
                return Err(refused(request.kind, &request.name, &denied, anonymous));
            }
            Err(panic) => {
                let what = describe(request.kind, &request.name);
                tracing::error!(%panic, primitive = %what, "an authorization check panicked");
                return Err(McpError::internal(format!(
                    "Internal error: the authorization check of {what} failed"
                )));
            }
        }
    }
    Ok(())
}

/// The custom checks that apply to a primitive with `access`: its own, then the server's.
fn checks_of(policy: Option<&AccessCheck>, access: &Requirement) -> Vec<AccessCheck> {
    access.check.iter().chain(policy).cloned().collect()
}

/// Whether `caller` may see an item in a list: its scopes, then its custom checks (and the
/// server's `policy`) with [`Purpose::List`]. A check that panics hides the item.
pub(super) async fn listable(
    policy: Option<&AccessCheck>,
    access: &Requirement,
    caller: Option<&Arc<Caller>>,
    kind: PrimitiveKind,
    name: &str,
) -> bool {
    if access.scopes_met(caller.map(|c| &**c)).is_err() {
        return false;
    }
    for check in checks_of(policy, access) {
        let request = AccessRequest {
            caller: caller.cloned(),
            kind,
            name: Arc::from(name),
            uri: None,
            arguments: None,
            purpose: Purpose::List,
        };
        if !matches!(catch_panic(check.ask(request)).await, Ok(Ok(()))) {
            return false;
        }
    }
    true
}
