//! A mounted server's lists as the composite's primitives: read from a server in process (with
//! the access each item requires), or fetched page by page from a remote one.

use super::primitives;
use super::relay::SharedBackend;
use crate::client::ClientError;
use crate::context::Caller;
use crate::registry::{BoxFuture, Items, Primitive, SkillSet};
use serde_json::{Value, json};
use std::time::Duration;

/// What one fetch of a mounted server brought.
pub(crate) struct Fetched {
    pub(crate) items: Vec<Primitive>,
    /// Items that could not be taken, and why.
    pub(crate) problems: Vec<String>,
    /// How long the lists stay fresh (the shortest `ttlMs` the server gave).
    pub(crate) fresh_for: Option<Duration>,
    /// Its skills, when it serves the Skills extension.
    pub(crate) skills: Option<SkillSet>,
}

/// Pages one list may take.
const MAX_PAGES: usize = 1_000;

/// The lists of a remote mounted server (those its `server/discover` advertises), and its
/// skills.
pub(crate) async fn fetch(backend: &SharedBackend) -> Result<Fetched, ClientError> {
    fetch_as(backend, None).await
}

/// [`fetch`] as `caller` (for a mount that passes its callers' tokens on: what that caller
/// sees of it; its skills are not fetched then, they are the mount's own).
///
/// Polled through one box made here: otherwise the state machine is compiled again into every
/// codegen unit that awaits it (three copies of about 20 KiB in a release binary).
#[inline(never)]
pub(crate) fn fetch_as<'a>(
    backend: &'a SharedBackend,
    caller: Option<&'a Caller>,
) -> BoxFuture<'a, Result<Fetched, ClientError>> {
    Box::pin(fetch_unboxed(backend, caller))
}

async fn fetch_unboxed(
    backend: &SharedBackend,
    caller: Option<&Caller>,
) -> Result<Fetched, ClientError> {
    let discover = ask(backend, "server/discover", json!({}), caller).await;
    let caps = match &discover {
        Ok(d) => d["capabilities"].clone(),
        // An older server: its session says what it serves; ask for every list.
        Err(_) => json!({"tools": {}, "resources": {}, "prompts": {}}),
    };
    if let Err(e) = &discover
        && e.is_transport()
    {
        return Err(e.clone());
    }
    let offers = caps["extensions"]
        .get(crate::protocol::TASKS_EXTENSION)
        .is_some();
    backend
        .offers_tasks
        .store(offers, std::sync::atomic::Ordering::Relaxed);
    let subscribe = caps["resources"]["subscribe"] == true;
    backend
        .offers_subscribe
        .store(subscribe, std::sync::atomic::Ordering::Relaxed);
    let mut fetched = Fetched {
        items: Vec::new(),
        problems: Vec::new(),
        fresh_for: discover
            .as_ref()
            .ok()
            .and_then(|d| d["ttlMs"].as_u64())
            .map(Duration::from_millis),
        skills: None,
    };
    // Without the `skills` feature a mounted server's skills are not served, and their files
    // are the plain resources its `resources/list` lists.
    #[cfg(feature = "skills")]
    if caller.is_none()
        && caps["extensions"]
            .get(crate::protocol::SKILLS_EXTENSION)
            .is_some()
    {
        fetched.skills = Some(super::skills::fetch_skills(backend).await?);
    }
    let lists: [(&str, &str, &str); 4] = [
        ("tools", "tools/list", "tools"),
        ("resources", "resources/list", "resources"),
        ("resources", "resources/templates/list", "resourceTemplates"),
        ("prompts", "prompts/list", "prompts"),
    ];
    for (capability, method, field) in lists {
        if caps.get(capability).is_none() {
            continue;
        }
        let listed = match list(backend, method, field, &mut fetched, caller).await {
            Ok(listed) => listed,
            // The server cannot be asked: the whole fetch fails (what it served stays).
            Err(e) if e.is_transport() => return Err(e),
            // It does not serve this list (a 2025 server asked for every list, say): nothing
            // of it, and the others still count.
            Err(e) => {
                if e.code() != Some(-32601) {
                    fetched.problems.push(format!("`{method}` failed: {e}"));
                }
                Vec::new()
            }
        };
        for listed in listed {
            // A skill's files come with its skill (below), not as resources of their own.
            let skill_file = listed["uri"]
                .as_str()
                .is_some_and(|u| u.starts_with("skill://"));
            if method == "resources/list" && fetched.skills.is_some() && skill_file {
                continue;
            }
            let made = match method {
                "tools/list" => primitives::tool(backend, &listed).map(Primitive::Tool),
                "resources/list" => primitives::resource(backend, &listed).map(Primitive::Resource),
                "resources/templates/list" => {
                    primitives::template(backend, &listed).map(Primitive::ResourceTemplate)
                }
                _ => primitives::prompt(backend, &listed).map(Primitive::Prompt),
            };
            match made {
                Ok(item) => fetched.items.push(item),
                Err(why) => fetched.problems.push(why),
            }
        }
    }
    Ok(fetched)
}

async fn list(
    backend: &SharedBackend,
    method: &str,
    field: &str,
    fetched: &mut Fetched,
    caller: Option<&Caller>,
) -> Result<Vec<Value>, ClientError> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            None => json!({}),
            Some(c) => json!({"cursor": c}),
        };
        let mut page = ask(backend, method, params, caller).await?;
        if let Some(ttl) = page["ttlMs"].as_u64() {
            let ttl = Duration::from_millis(ttl);
            fetched.fresh_for = Some(fetched.fresh_for.map_or(ttl, |f| f.min(ttl)));
        }
        if let Some(Value::Array(items)) = page.get_mut(field).map(Value::take) {
            out.extend(items);
        }
        match page["nextCursor"].as_str() {
            Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
            _ => return Ok(out),
        }
    }
    Ok(out)
}

/// One request of a fetch, as `caller` when given.
async fn ask(
    backend: &SharedBackend,
    method: &str,
    params: Value,
    caller: Option<&Caller>,
) -> Result<Value, ClientError> {
    let client = &backend.client;
    match caller {
        None => client.request(method, params).await,
        Some(caller) => {
            client
                .request_as(method, params, Some(caller), &mut |_| {})
                .await
        }
    }
}

/// The items of a server mounted in process, each relayed to it and requiring what it requires
/// there (so lists filter alike), and its skills, read synchronously at build.
pub(crate) fn local_items(
    backend: &SharedBackend,
    items: &Items,
) -> Result<(Vec<Primitive>, Vec<SkillSet>), String> {
    {
        #[cfg(feature = "skills")]
        let skills = super::skills::local_skills(backend, &items.skills);
        #[cfg(not(feature = "skills"))]
        let skills = Vec::new();
        let mut out = Vec::new();
        for tool in &items.tools {
            let mut listed = serde_json::to_value(&tool.info).unwrap_or_default();
            let support = match tool.task {
                crate::registry::TaskSupport::Required => "required",
                crate::registry::TaskSupport::Optional => "optional",
                _ => "forbidden",
            };
            listed["execution"] = json!({"taskSupport": support});
            let mut made = primitives::tool(backend, &listed)?;
            made.access = tool.access.clone();
            out.push(Primitive::Tool(made));
        }
        for resource in &items.resources {
            let listed = serde_json::to_value(&resource.info).unwrap_or_default();
            let mut made = primitives::resource(backend, &listed)?;
            made.access = resource.access.clone();
            made.cache = resource.cache;
            out.push(Primitive::Resource(made));
        }
        for template in &items.templates {
            let listed = serde_json::to_value(&template.info).unwrap_or_default();
            let mut made = primitives::template(backend, &listed)?;
            made.access = template.access.clone();
            made.cache = template.cache;
            out.push(Primitive::ResourceTemplate(made));
        }
        for prompt in &items.prompts {
            let listed = serde_json::to_value(&prompt.info).unwrap_or_default();
            let mut made = primitives::prompt(backend, &listed)?;
            made.access = prompt.access.clone();
            out.push(Primitive::Prompt(made));
        }
        Ok((out, skills))
    }
}
