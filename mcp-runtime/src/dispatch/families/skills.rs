//! The `skills` family (the Skills extension): `skills/get`, one skill's entry, and
//! `resources/directory/read`, a page of a folder's children. `skills/list` is a list (in
//! `lists`), and the skills' files are resources (in `resources`). Each answer is written from
//! what the registry holds, after the caller passed the skill's requirement: its scopes at
//! once, its custom checks before the answer goes out.
//!
//! A skill nested in another's folder is left out of what the outer one shows (its folder in a
//! directory, its files in the outer entry) for a caller who may not read it, decided as
//! `skills/list` decides: scopes, then custom checks asked with `Purpose::List`.

use super::lists::{decode_cursor, encode_cursor};
use crate::context::{Caller, RequestContext};
use crate::dispatch::authorize::{self, Target};
use crate::dispatch::dispatcher::Dispatcher;
use crate::dispatch::encode::Response;
use crate::dispatch::work::Prepared;
use crate::error::McpError;
use crate::protocol::{
    CacheScope, GetSkillRequestParams, ReadDirectoryRequestParams, RequestId, ResultMeta,
};
use crate::registry::{DirChild, PrimitiveKind, Registry, SkillEntry};
use serde_json::json;
use std::sync::Arc;

/// `skills/get`: the entry of the skill whose `SKILL.md` is `params.uri`.
pub(crate) fn get(
    d: &Arc<Dispatcher>,
    reg: &Arc<Registry>,
    params: GetSkillRequestParams,
    cx: RequestContext,
) -> Result<Prepared, McpError> {
    let uri = params.uri;
    let Some((at, entry)) = reg
        .skills
        .by_uri
        .get(&uri)
        .and_then(|&i| Some((i, reg.skills.entries.get(i)?)))
    else {
        return Err(
            McpError::invalid_params(format!("No skill is served at {uri}"))
                .with_data(json!({ "uri": uri })),
        );
    };
    authorize::check_scopes(&entry.access, &cx, PrimitiveKind::Skill, &entry.data.name)?;
    let hint = entry.cache.unwrap_or(d.config.skills_cache);
    let nested = entry.nested_guard(d.policy.is_some());
    let guarded = !entry.access.scopes.is_empty()
        || entry.access.check.is_some()
        || d.policy.is_some()
        || nested.scoped
        || nested.checked;
    let scope = if guarded {
        CacheScope::Private
    } else {
        hint.scope
    };
    let (ttl_ms, meta) = (hint.ttl_ms, d.result_meta());
    let response = if nested.checked {
        // Custom checks decide which nested skills the caller may read.
        let (d, reg, id) = (d.clone(), reg.clone(), cx.request_id().clone());
        let caller = cx.inner.caller.clone();
        Prepared::Pending(Box::pin(async move {
            let entry = reg
                .skills
                .entries
                .get(at)
                .ok_or_else(|| McpError::internal("the skill went away"))?;
            let skills = entry.nested.iter().map(|n| n.skill);
            let readable = readable(&d, &reg, caller.as_ref(), skills).await;
            let shown = entry.entry_for(|i| readable.get(i).copied().unwrap_or(false));
            let skill = shown.as_deref().unwrap_or(entry.data.entry.get());
            Ok(write_get(&id, skill, ttl_ms, scope, meta))
        }))
    } else if nested.scoped {
        let caller = cx.inner.caller.as_deref();
        let shown = entry.entry_for(|i| scopes_met(reg, i, caller));
        let skill = shown.as_deref().unwrap_or(entry.data.entry.get());
        Prepared::Ready(write_get(cx.request_id(), skill, ttl_ms, scope, meta))
    } else {
        let skill = entry.data.entry.get();
        Prepared::Ready(write_get(cx.request_id(), skill, ttl_ms, scope, meta))
    };
    checked(d, entry, &cx, Some(uri), response)
}

/// Whether `caller` has the scopes of the skill at position `skill`.
fn scopes_met(reg: &Registry, skill: usize, caller: Option<&Caller>) -> bool {
    reg.skills
        .entries
        .get(skill)
        .is_some_and(|e| e.access.scopes_met(caller).is_ok())
}

/// Which skills `caller` may read, for each of `skills` (positions; the others are `false`),
/// decided as `skills/list` decides: scopes, then the custom checks with `Purpose::List`.
async fn readable(
    d: &Dispatcher,
    reg: &Registry,
    caller: Option<&Arc<Caller>>,
    skills: impl Iterator<Item = usize>,
) -> Vec<bool> {
    let mut readable = vec![false; reg.skills.entries.len()];
    for i in skills {
        let Some(entry) = reg.skills.entries.get(i) else {
            continue;
        };
        let (access, name) = (&entry.access, entry.data.name.as_str());
        let policy = d.policy.as_ref();
        readable[i] = authorize::listable(policy, access, caller, PrimitiveKind::Skill, name).await;
    }
    readable
}

/// `response` once `entry`'s custom checks (and the server's) pass for the caller.
fn checked(
    d: &Dispatcher,
    entry: &SkillEntry,
    cx: &RequestContext,
    uri: Option<String>,
    response: Prepared,
) -> Result<Prepared, McpError> {
    let checking = authorize::custom_checks(d.policy.as_ref(), &entry.access, cx, || Target {
        kind: PrimitiveKind::Skill,
        name: Arc::from(entry.data.name.as_str()),
        uri: uri.map(Arc::from),
        arguments: None,
    });
    Ok(match checking {
        None => response,
        Some(checking) => Prepared::Checked(Box::new((checking, response))),
    })
}

/// The answer of `skills/get`: `skill` is the entry (JSON) as the caller is shown it.
fn write_get(
    id: &RequestId,
    skill: &str,
    ttl_ms: u64,
    scope: CacheScope,
    meta: Option<ResultMeta>,
) -> Response {
    Response::result_written(id, skill.len() + 128, |out| {
        out.extend_from_slice(br#"{"resultType":"complete","skill":"#);
        out.extend_from_slice(skill.as_bytes());
        out.extend_from_slice(br#","ttlMs":"#);
        serde_json::to_writer(&mut *out, &ttl_ms)?;
        out.extend_from_slice(br#","cacheScope":"#);
        serde_json::to_writer(&mut *out, &scope)?;
        if let Some(meta) = &meta {
            out.extend_from_slice(br#","_meta":"#);
            serde_json::to_writer(&mut *out, meta)?;
        }
        out.push(b'}');
        Ok(())
    })
}

/// `resources/directory/read`: a page of the direct children of a skill's folder (or of a
/// folder above skills: its children that hold a skill the caller may read).
pub(crate) fn read_directory(
    d: &Arc<Dispatcher>,
    reg: &Arc<Registry>,
    params: ReadDirectoryRequestParams,
    cx: RequestContext,
) -> Result<Prepared, McpError> {
    let ReadDirectoryRequestParams { uri, cursor, .. } = params;
    let Some(dir) = reg.skills.dirs.get(&uri) else {
        let why = if reg.resource_index.contains_key(&uri) {
            format!("{uri} is not a directory resource: read it with resources/read")
        } else {
            format!("{uri} is not a directory resource of this server")
        };
        return Err(McpError::invalid_params(why).with_data(json!({ "uri": uri })));
    };
    let id = cx.request_id().clone();
    if let Some(entry) = dir.owner.and_then(|owner| reg.skills.entries.get(owner)) {
        // Inside a skill: the skill's requirement, and every child but the folders of nested
        // skills the caller may not read.
        authorize::check_scopes(&entry.access, &cx, PrimitiveKind::Skill, &entry.data.name)?;
        let nested = dir.nested_guard(d.policy.is_some());
        let page = if nested.checked {
            let (d, reg, dir_uri) = (d.clone(), reg.clone(), uri.clone());
            let caller = cx.inner.caller.clone();
            Prepared::Pending(Box::pin(async move {
                let dir = reg
                    .skills
                    .dirs
                    .get(&dir_uri)
                    .ok_or_else(|| McpError::internal("the directory went away"))?;
                let skills = dir.children.iter().filter_map(|c| c.folder_of);
                let readable = readable(&d, &reg, caller.as_ref(), skills).await;
                let shown = |c: &DirChild| {
                    c.folder_of
                        .is_none_or(|i| readable.get(i).copied().unwrap_or(false))
                };
                write_page(&d, &id, &dir.children, cursor.as_deref(), &shown)
            }))
        } else if nested.scoped {
            let caller = cx.inner.caller.as_deref();
            let shown = |c: &DirChild| c.folder_of.is_none_or(|i| scopes_met(reg, i, caller));
            Prepared::Ready(write_page(
                d,
                &id,
                &dir.children,
                cursor.as_deref(),
                &shown,
            )?)
        } else {
            let page = write_page(d, &id, &dir.children, cursor.as_deref(), &|_| true)?;
            Prepared::Ready(page)
        };
        return checked(d, entry, &cx, Some(uri), page);
    }
    // Above every skill: a child is shown when the caller may read a skill it holds.
    let guard = reg.skills.guard;
    let checked = guard.checked || d.policy.is_some();
    if !guard.scoped && !checked {
        let page = write_page(d, &id, &dir.children, cursor.as_deref(), &|_| true)?;
        return Ok(Prepared::Ready(page));
    }
    let caller = cx.inner.caller.clone();
    if !checked {
        let may = |i: usize| {
            reg.skills.entries[i]
                .access
                .scopes_met(caller.as_deref())
                .is_ok()
        };
        let shown = |c: &DirChild| c.skills.iter().any(|&i| may(i));
        let page = write_page(d, &id, &dir.children, cursor.as_deref(), &shown)?;
        return Ok(Prepared::Ready(page));
    }
    let (d, reg) = (d.clone(), reg.clone());
    Ok(Prepared::Pending(Box::pin(async move {
        let all = 0..reg.skills.entries.len();
        let readable = readable(&d, &reg, caller.as_ref(), all).await;
        let dir = reg
            .skills
            .dirs
            .get(&uri)
            .ok_or_else(|| McpError::internal("the directory went away"))?;
        let shown = |c: &DirChild| c.skills.iter().any(|&i| readable[i]);
        write_page(&d, &id, &dir.children, cursor.as_deref(), &shown)
    })))
}

/// One page of `children` after `cursor`, those `shown` to the caller.
fn write_page(
    d: &Dispatcher,
    id: &RequestId,
    children: &[DirChild],
    cursor: Option<&str>,
    shown: &dyn Fn(&DirChild) -> bool,
) -> Result<Response, McpError> {
    let start = match cursor {
        None => 0,
        Some(c) => {
            let last = decode_cursor("directory", c)?;
            // A cursor naming a child the caller is not shown is refused as one naming nothing:
            // a forged cursor does not tell which hidden children exist.
            match children.binary_search_by(|child| child.uri.as_str().cmp(&last)) {
                Ok(i) if shown(&children[i]) => i + 1,
                _ => {
                    return Err(McpError::invalid_params(
                        "Invalid params: the cursor points at an entry that no longer exists; \
                         read the directory again from the start",
                    ));
                }
            }
        }
    };
    let page_size = d.config.page_size;
    let mut page: Vec<&DirChild> = Vec::new();
    let mut more = false;
    for child in children[start.min(children.len())..]
        .iter()
        .filter(|c| shown(c))
    {
        if page.len() == page_size {
            more = true;
            break;
        }
        page.push(child);
    }
    let next = match page.last() {
        Some(last) if more => Some(encode_cursor("directory", &last.uri)),
        _ => None,
    };
    let meta = d.result_meta();
    let size: usize = page.iter().map(|c| c.json.get().len() + 1).sum();
    Ok(Response::result_written(id, size + 128, |out| {
        out.extend_from_slice(br#"{"resultType":"complete","resources":["#);
        for (i, child) in page.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(child.json.get().as_bytes());
        }
        out.push(b']');
        if let Some(next) = &next {
            out.extend_from_slice(br#","nextCursor":"#);
            serde_json::to_writer(&mut *out, next)?;
        }
        if let Some(meta) = &meta {
            out.extend_from_slice(br#","_meta":"#);
            serde_json::to_writer(&mut *out, meta)?;
        }
        out.push(b'}');
        Ok(())
    }))
}
