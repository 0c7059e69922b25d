//! The `lists` family, `server/discover` and the list methods (`skills/list` among them): pages
//! of registered items behind opaque, stable cursors, with their caching hints.

use crate::context::RequestContext;
use crate::dispatch::authorize;
use crate::dispatch::dispatcher::Dispatcher;
use crate::dispatch::encode::Response;
use crate::dispatch::work::Prepared;
use crate::error::McpError;
use crate::protocol::{CacheScope, PaginatedRequestParams, RequestId, ResultMeta};
use crate::registry::{NameIndex, PrimitiveKind, Registry, Requirement};
use base64::Engine as _;
use serde_json::value::RawValue;
use std::sync::Arc;

/// `server/discover`: what the server advertises now, answered without a handler.
pub(crate) fn discover(d: &Dispatcher, cx: &RequestContext) -> Prepared {
    Prepared::Ready(Response::result(cx.request_id(), &d.discover_result()))
}

/// A list method: a page of what the caller may use. A list whose items require scopes or
/// checks depends on the caller: it is filtered, and `cacheScope: "private"`.
pub(crate) fn prepare(
    d: &Arc<Dispatcher>,
    reg: &Arc<Registry>,
    kind: PrimitiveKind,
    cx: &RequestContext,
    params: PaginatedRequestParams,
) -> Result<Prepared, McpError> {
    let id = cx.request_id();
    let guard = reg.list_guard(kind);
    let checked = guard.checked || d.policy.is_some();
    if !guard.scoped && !checked {
        return Ok(Prepared::Ready(list_page(d, reg, kind, id, params, None)?));
    }
    let caller = cx.inner.caller.clone();
    let items = items_of(reg, kind);
    if !checked {
        let caller = caller.as_deref();
        let visible: Vec<bool> = items
            .iter()
            .map(|(access, _)| access.scopes_met(caller).is_ok())
            .collect();
        let page = list_page(d, reg, kind, id, params, Some(&visible))?;
        return Ok(Prepared::Ready(page));
    }
    let (d, reg, id) = (d.clone(), reg.clone(), id.clone());
    Ok(Prepared::Pending(Box::pin(async move {
        let mut visible = Vec::new();
        for (access, name) in items_of(&reg, kind) {
            let policy = d.policy.as_ref();
            visible.push(authorize::listable(policy, access, caller.as_ref(), kind, name).await);
        }
        list_page(&d, &reg, kind, &id, params, Some(&visible))
    })))
}

/// One page of a list method; `visible` says which items the caller may see, when that
/// depends on the caller.
#[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
fn list_page(
    d: &Dispatcher,
    reg: &Registry,
    kind: PrimitiveKind,
    id: &RequestId,
    params: PaginatedRequestParams,
    visible: Option<&[bool]>,
) -> Result<Response, McpError> {
    let cfg = &d.config;
    let cursor = params.cursor.as_deref();
    let shown = |i: usize| visible.is_none_or(|v| v.get(i).copied().unwrap_or(false));
    // A skill's entry leaves out the nested skills the caller does not see.
    let trimmed = match (kind, visible) {
        (PrimitiveKind::Skill, Some(v)) => reg.skills.entries_for(v),
        _ => Vec::new(),
    };
    // Only the page is touched: the cursor is resolved through the name index (O(1)), and
    // nothing is collected over the whole registry, so a page costs the same whatever the
    // number of registered items.
    let (hint, (page, next_cursor)) = match kind {
        PrimitiveKind::Tool => (
            cfg.tools_cache,
            page_of(
                &reg.tools,
                Some(&reg.tool_index),
                "tools",
                cursor,
                cfg.page_size,
                &shown,
                |t| (t.tool.info.name.as_str(), &*t.json),
            )?,
        ),
        PrimitiveKind::Resource => (
            cfg.resources_cache,
            page_of(
                &reg.resources,
                Some(&reg.resource_index),
                "resources",
                cursor,
                cfg.page_size,
                &shown,
                |r| (r.resource.info.uri.as_str(), &*r.json),
            )?,
        ),
        PrimitiveKind::ResourceTemplate => (
            cfg.templates_cache,
            page_of(
                &reg.templates,
                None,
                "templates",
                cursor,
                cfg.page_size,
                &shown,
                |t| (t.template.info.uri_template.as_str(), &*t.json),
            )?,
        ),
        PrimitiveKind::Skill => (
            cfg.skills_cache,
            page_of(
                &reg.skills.entries,
                Some(&reg.skills.by_uri),
                "skills",
                cursor,
                cfg.page_size,
                &shown,
                |s| (s.data.uri.as_str(), reg.skills.listed_entry(&trimmed, s)),
            )?,
        ),
        PrimitiveKind::Prompt => (
            cfg.prompts_cache,
            page_of(
                &reg.prompts,
                Some(&reg.prompt_index),
                "prompts",
                cursor,
                cfg.page_size,
                &shown,
                |p| (p.prompt.info.name.as_str(), &*p.json),
            )?,
        ),
    };
    let items_key = match kind {
        PrimitiveKind::Tool => "tools",
        PrimitiveKind::Resource => "resources",
        PrimitiveKind::ResourceTemplate => "resourceTemplates",
        PrimitiveKind::Skill => "skills",
        PrimitiveKind::Prompt => "prompts",
    };
    let cache_scope = match visible {
        Some(_) => CacheScope::Private,
        None => hint.scope,
    };
    // Sized for the items and the fields around them: a page of 50 tools is ~15 KB, which a
    // buffer grown from the default 512 bytes copies five times (BENCHMARKS.md, "List pages").
    let size: usize = page.iter().map(|item| item.get().len() + 1).sum();
    let page = Page {
        items_key,
        items: page,
        next_cursor,
        ttl_ms: hint.ttl_ms,
        cache_scope,
        meta: d.result_meta(),
    };
    Ok(Response::result_written(id, size + 512, |out| {
        page.write(out)
    }))
}

/// A page of a list result: the items' JSON is serialized once, when the registry is built.
struct Page<'a> {
    /// `tools`, `resources`, `resourceTemplates`, `prompts` or `skills`.
    items_key: &'static str,
    items: Vec<&'a RawValue>,
    next_cursor: Option<String>,
    ttl_ms: u64,
    cache_scope: CacheScope,
    meta: Option<ResultMeta>,
}

impl Page<'_> {
    /// Appends the page's JSON. Written by hand rather than through serde, whose flattened enum
    /// of raw values costs more per page (BENCHMARKS.md, "List pages").
    fn write(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(br#"{"resultType":"complete",""#);
        out.extend_from_slice(self.items_key.as_bytes());
        out.extend_from_slice(b"\":[");
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(item.get().as_bytes());
        }
        out.push(b']');
        if let Some(cursor) = &self.next_cursor {
            out.extend_from_slice(br#","nextCursor":"#);
            serde_json::to_writer(&mut *out, cursor)?;
        }
        out.extend_from_slice(br#","ttlMs":"#);
        serde_json::to_writer(&mut *out, &self.ttl_ms)?;
        out.extend_from_slice(br#","cacheScope":"#);
        serde_json::to_writer(&mut *out, &self.cache_scope)?;
        if let Some(meta) = &self.meta {
            out.extend_from_slice(br#","_meta":"#);
            serde_json::to_writer(&mut *out, meta)?;
        }
        out.push(b'}');
        Ok(())
    }
}

/// An opaque, stable cursor: the name (or URI) of the last item of the previous page.
pub(super) fn encode_cursor(kind: &str, last: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{kind}\n{last}"))
}

pub(super) fn decode_cursor(kind: &str, cursor: &str) -> Result<String, McpError> {
    let bad = || McpError::invalid_params(format!("Invalid params: invalid cursor `{cursor}`"));
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .map_err(|_| bad())?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    match text.split_once('\n') {
        Some((k, last)) if k == kind => Ok(last.to_owned()),
        _ => Err(bad()),
    }
}

/// One page of `entries` after `cursor`: the items' JSON and the next cursor.
fn page_of<'r, E>(
    entries: &'r [Arc<E>],
    index: Option<&NameIndex>,
    kind: &str,
    cursor: Option<&str>,
    page_size: usize,
    shown: &dyn Fn(usize) -> bool,
    item: impl Fn(&'r E) -> (&'r str, &'r RawValue),
) -> Result<(Vec<&'r RawValue>, Option<String>), McpError> {
    let start = match cursor {
        None => 0,
        Some(c) => {
            let last = decode_cursor(kind, c)?;
            let found = match index {
                Some(ix) => ix.get(&last).copied(),
                None => entries.iter().position(|e| item(e).0 == last),
            };
            // A cursor naming an item this caller may not see is no cursor: answered as one
            // naming nothing, so that a forged one cannot tell what exists.
            match found {
                Some(i) if shown(i) => i + 1,
                _ => {
                    return Err(McpError::invalid_params(
                        "Invalid params: the cursor points at an item that no longer exists; list again from the start",
                    ));
                }
            }
        }
    };
    // The page: the next `page_size` items the caller may see; a next cursor when any item
    // after them may be seen too.
    let mut page = Vec::with_capacity(page_size.min(entries.len().saturating_sub(start)));
    let mut last = None;
    let mut more = false;
    for (i, e) in entries.iter().enumerate().skip(start) {
        if !shown(i) {
            continue;
        }
        if page.len() == page_size {
            more = true;
            break;
        }
        page.push(item(e).1);
        last = Some(i);
    }
    let next = match last {
        Some(i) if more => Some(encode_cursor(kind, item(&entries[i]).0)),
        _ => None,
    };
    Ok((page, next))
}

/// The requirement and registered name of every item of a list, in order.
#[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
fn items_of(reg: &Registry, kind: PrimitiveKind) -> Vec<(&Requirement, &str)> {
    match kind {
        PrimitiveKind::Tool => reg
            .tools
            .iter()
            .map(|t| (&t.tool.access, t.tool.info.name.as_str()))
            .collect(),
        PrimitiveKind::Resource => reg
            .resources
            .iter()
            .map(|r| (&r.resource.access, r.resource.info.uri.as_str()))
            .collect(),
        PrimitiveKind::ResourceTemplate => reg
            .templates
            .iter()
            .map(|t| (&t.template.access, t.template.info.uri_template.as_str()))
            .collect(),
        PrimitiveKind::Skill => reg
            .skills
            .entries
            .iter()
            .map(|s| (&s.access, s.data.name.as_str()))
            .collect(),
        PrimitiveKind::Prompt => reg
            .prompts
            .iter()
            .map(|p| (&p.prompt.access, p.prompt.info.name.as_str()))
            .collect(),
    }
}
