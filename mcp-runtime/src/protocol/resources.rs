//! Resources: the lists (`resources/list`, `resources/templates/list`) and a read
//! (`resources/read` params and result).

use super::content::{Resource, ResourceContents, ResourceTemplate};
use super::input_responses::RawInputResponses;
use super::messages::{CacheScope, ResultType};
use super::meta::{RequestMeta, ResultMeta};
use super::method::{ParamStrings, VisitString};
use serde::{Deserialize, Serialize};

/// `resources/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourcesResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// One page of resources.
    pub resources: Vec<Resource>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness hint.
    pub ttl_ms: u64,
    /// Cache scope.
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// `resources/templates/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourceTemplatesResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// One page of templates.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness hint.
    pub ttl_ms: u64,
    /// Cache scope.
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// `resources/read` params (`inputResponses` borrowed from the message's text).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceRequestParams<'a> {
    /// The URI to read.
    pub uri: String,
    /// MRTR answers, each as sent.
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<RawInputResponses<'a>>,
    /// MRTR state echoed back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Per-request metadata (boxed: it is large, and a request moves several times).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

impl ParamStrings for ReadResourceRequestParams<'_> {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        let ReadResourceRequestParams {
            uri,
            input_responses: _,
            request_state: _,
            meta: _,
        } = self;
        visit("resource URI", uri)
    }
}

/// `resources/read` complete result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The contents.
    pub contents: Vec<ResourceContents>,
    /// Freshness hint.
    pub ttl_ms: u64,
    /// Cache scope.
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}
