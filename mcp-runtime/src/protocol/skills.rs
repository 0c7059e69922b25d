//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list`,
//! `skills/get`, `resources/directory/read`, and the skill entry both list and get answer with.

use super::content::Resource;
use super::messages::ResultType;
use super::meta::RequestMeta;
use super::method::{ParamStrings, VisitString};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The extension's identifier, under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of a directory resource (`resources/directory/read` lists its children).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// `skills/get` params.
///
/// ```
/// use mcp_runtime::protocol::GetSkillRequestParams;
/// let p: GetSkillRequestParams = serde_json::from_str(r#"{"uri": "skill://pdf/SKILL.md"}"#).unwrap();
/// assert_eq!(p.uri, "skill://pdf/SKILL.md");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetSkillRequestParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// Per-request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

impl ParamStrings for GetSkillRequestParams {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        let GetSkillRequestParams { uri, meta: _ } = self;
        visit("skill URI", uri)
    }
}

/// `resources/directory/read` params.
///
/// ```
/// use mcp_runtime::protocol::ReadDirectoryRequestParams;
/// let p: ReadDirectoryRequestParams =
///     serde_json::from_str(r#"{"uri": "skill://pdf/templates"}"#).unwrap();
/// assert!(p.cursor.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadDirectoryRequestParams {
    /// The URI of the directory resource.
    pub uri: String,
    /// Opaque cursor from a previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Per-request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
}

impl ParamStrings for ReadDirectoryRequestParams {
    fn visit_strings<E>(&self, visit: &mut impl VisitString<E>) -> Result<(), E> {
        let ReadDirectoryRequestParams {
            uri,
            cursor,
            meta: _,
        } = self;
        visit("directory URI", uri)?;
        cursor
            .as_deref()
            .map_or(Ok(()), |cursor| visit("cursor", cursor))
    }
}

/// One file of a skill: its URI, digest and size.
///
/// ```
/// use mcp_runtime::protocol::SkillResource;
/// let r: SkillResource = serde_json::from_str(
///     r#"{"uri": "skill://pdf/SKILL.md", "digest": "sha256:00", "size": 12}"#,
/// ).unwrap();
/// assert_eq!(r.size, 12);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and the lowercase hexadecimal SHA-256 of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// A skill's files: every one of them, or `"dynamic"` for generated content.
///
/// ```
/// use mcp_runtime::protocol::{DynamicTag, SkillResources};
/// let dynamic: SkillResources = serde_json::from_str(r#""dynamic""#).unwrap();
/// assert_eq!(dynamic, SkillResources::Dynamic(DynamicTag::Dynamic));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SkillResources {
    /// The complete list of the skill's files.
    Files(Vec<SkillResource>),
    /// Generated content: no stable digests.
    Dynamic(DynamicTag),
}

/// The string `"dynamic"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DynamicTag {
    /// `"dynamic"`.
    Dynamic,
}

/// The entry of one skill, as `skills/list` and `skills/get` answer it.
///
/// ```
/// use mcp_runtime::protocol::Skill;
/// let s: Skill = serde_json::from_str(r#"{"uri": "skill://pdf/SKILL.md",
///     "frontmatter": {"name": "pdf", "description": "PDFs"}, "resources": "dynamic"}"#).unwrap();
/// assert_eq!(s.frontmatter["name"], "pdf");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Skill {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// Its `SKILL.md` frontmatter, as written.
    pub frontmatter: Map<String, Value>,
    /// Its files.
    pub resources: SkillResources,
}

/// `skills/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListSkillsResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// A page of skills.
    pub skills: Vec<Skill>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness hint.
    pub ttl_ms: u64,
    /// Cache scope.
    pub cache_scope: super::messages::CacheScope,
}

/// `skills/get` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The skill.
    pub skill: Skill,
    /// Freshness hint.
    pub ttl_ms: u64,
    /// Cache scope.
    pub cache_scope: super::messages::CacheScope,
}

/// `resources/directory/read` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadDirectoryResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// A page of the directory's direct children (`mimeType: "inode/directory"` for folders).
    pub resources: Vec<Resource>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}
