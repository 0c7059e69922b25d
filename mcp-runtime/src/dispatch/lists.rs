//! `server/discover` and the list methods: pages of registered items behind opaque, stable
//! cursors, with their caching hints.

use super::Dispatcher;
use super::encode::Response;
use crate::error::McpError;
use crate::protocol::{
    CacheScope, DiscoverResult, Method, PaginatedRequestParams, RequestId, ResultMeta, ResultType,
};
use crate::registry::{NameIndex, Registry};
use base64::Engine as _;
use serde::Serialize;
use serde_json::value::RawValue;
use std::sync::Arc;

impl Dispatcher {
    /// The `server/discover` result as currently advertised.
    pub(crate) fn discover_result(&self) -> DiscoverResult {
        let cfg = &self.config;
        DiscoverResult {
            result_type: ResultType::Complete,
            supported_versions: cfg.supported_versions.clone(),
            capabilities: self.capabilities(),
            instructions: cfg.instructions.clone(),
            ttl_ms: cfg.discover_cache.ttl_ms,
            cache_scope: cfg.discover_cache.scope,
            meta: self.result_meta(),
        }
    }

    /// One page of a list method.
    pub(super) fn list_page(
        &self,
        reg: &Registry,
        method: Method,
        id: &RequestId,
        params: PaginatedRequestParams,
    ) -> Result<Response, McpError> {
        let cfg = &self.config;
        let cursor = params.cursor.as_deref();
        // Only the page is touched: the cursor is resolved through the name index (O(1)), and
        // nothing is collected over the whole registry, so a page costs the same whatever the
        // number of registered items.
        let (hint, (page, next_cursor)) = match method {
            Method::ToolsList => (
                cfg.tools_cache,
                page_of(
                    &reg.tools,
                    Some(&reg.tool_index),
                    "tools",
                    cursor,
                    cfg.page_size,
                    |t| (t.tool.info.name.as_str(), &*t.json),
                )?,
            ),
            Method::ResourcesList => (
                cfg.resources_cache,
                page_of(
                    &reg.resources,
                    Some(&reg.resource_index),
                    "resources",
                    cursor,
                    cfg.page_size,
                    |r| (r.resource.info.uri.as_str(), &*r.json),
                )?,
            ),
            Method::ResourceTemplatesList => (
                cfg.templates_cache,
                page_of(
                    &reg.templates,
                    None,
                    "templates",
                    cursor,
                    cfg.page_size,
                    |t| (t.template.info.uri_template.as_str(), &*t.json),
                )?,
            ),
            _ => (
                cfg.prompts_cache,
                page_of(
                    &reg.prompts,
                    Some(&reg.prompt_index),
                    "prompts",
                    cursor,
                    cfg.page_size,
                    |p| (p.prompt.info.name.as_str(), &*p.json),
                )?,
            ),
        };
        let items = match method {
            Method::ToolsList => PageItems::Tools(page),
            Method::ResourcesList => PageItems::Resources(page),
            Method::ResourceTemplatesList => PageItems::ResourceTemplates(page),
            _ => PageItems::Prompts(page),
        };
        Ok(Response::result(
            id,
            &Page {
                result_type: ResultType::Complete,
                items,
                next_cursor,
                ttl_ms: hint.ttl_ms,
                cache_scope: hint.scope,
                meta: self.result_meta(),
            },
        ))
    }
}

/// A page of a list result: the items' JSON is serialized once, when the registry is built.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Page<'a> {
    result_type: ResultType,
    #[serde(flatten)]
    items: PageItems<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    ttl_ms: u64,
    cache_scope: CacheScope,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<ResultMeta>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum PageItems<'a> {
    Tools(Vec<&'a RawValue>),
    Resources(Vec<&'a RawValue>),
    ResourceTemplates(Vec<&'a RawValue>),
    Prompts(Vec<&'a RawValue>),
}

/// An opaque, stable cursor: the name (or URI) of the last item of the previous page.
fn encode_cursor(kind: &str, last: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{kind}\n{last}"))
}

fn decode_cursor(kind: &str, cursor: &str) -> Result<String, McpError> {
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
            match found {
                Some(i) => i + 1,
                None => {
                    return Err(McpError::invalid_params(
                        "Invalid params: the cursor points at an item that no longer exists; list again from the start",
                    ));
                }
            }
        }
    };
    let end = (start + page_size).min(entries.len());
    let page = entries[start.min(end)..end]
        .iter()
        .map(|e| item(e).1)
        .collect();
    let next = (end < entries.len()).then(|| encode_cursor(kind, item(&entries[end - 1]).0));
    Ok((page, next))
}
