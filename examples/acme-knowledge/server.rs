//! Acme Knowledge's primitives and its document store (shared with the transcript tests).

use mcp_runtime::protocol::CacheScope;
use mcp_runtime::{
    BuildError, CacheTarget, PrimitiveKind, Server, ServerBuilder, State, Structured, prompt,
    resource, tool,
};
use serde::Serialize;
use std::collections::BTreeSet;

/// One stored document.
pub struct Document {
    /// Opaque identifier (`doc_…`).
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// Topics the document is filed under.
    pub topics: &'static [&'static str],
    /// The body, one passage per sentence.
    pub body: &'static str,
}

/// The documents the connected user may read.
pub struct Store {
    docs: Vec<Document>,
}

/// One search hit.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Match {
    document_id: &'static str,
    title: &'static str,
    passage: String,
}

/// The structured result of a search.
#[derive(Debug, Serialize)]
pub struct SearchResults {
    matches: Vec<Match>,
}

fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

impl Store {
    /// The example's fixed corpus.
    pub fn sample() -> Store {
        Store {
            docs: vec![
                Document {
                    id: "doc_policy_17",
                    title: "Support retention policy",
                    topics: &["support", "retention", "policy"],
                    body: "Resolved cases are retained for 365 days. Open cases are kept until they are resolved.",
                },
                Document {
                    id: "doc_policy_22",
                    title: "Deletion exceptions",
                    topics: &["retention", "policy", "legal"],
                    body: "Legal holds suspend scheduled deletion. A hold is lifted only by the legal team.",
                },
                Document {
                    id: "doc_runbook_05",
                    title: "Deletion review runbook",
                    topics: &["deletion", "runbook"],
                    body: "Review steps before a scheduled deletion is executed. Record the reviewer.",
                },
                Document {
                    id: "doc_guide_03",
                    title: "Onboarding guide",
                    topics: &["onboarding"],
                    body: "New agents shadow a senior agent for two weeks.",
                },
            ],
        }
    }

    /// Ranks documents by how many query words their title, topics and body share, and returns
    /// the best passage of each of the top `limit`.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Match> {
        let wanted = words(query);
        let mut scored: Vec<(usize, &Document)> = self
            .docs
            .iter()
            .map(|d| {
                let mut have = words(d.title);
                have.extend(d.topics.iter().map(|t| t.to_lowercase()));
                have.extend(words(d.body));
                (wanted.intersection(&have).count(), d)
            })
            .filter(|(score, _)| *score > 0)
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(b.1.id)));
        scored
            .into_iter()
            .take(limit)
            .map(|(_, d)| Match {
                document_id: d.id,
                title: d.title,
                passage: best_passage(d.body, &wanted),
            })
            .collect()
    }

    /// A document by id.
    pub fn get(&self, id: &str) -> Option<&Document> {
        self.docs.iter().find(|d| d.id == id)
    }
}

/// The sentence sharing most words with the query (the first one on a tie).
fn best_passage(body: &str, wanted: &BTreeSet<String>) -> String {
    let sentences = body
        .split_inclusive('.')
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let mut best = ("", 0usize);
    for s in sentences {
        let score = words(s).intersection(wanted).count();
        if best.0.is_empty() || score > best.1 {
            best = (s, score);
        }
    }
    best.0.to_owned()
}

/// Search documents the connected user is authorized to read.
#[tool]
pub fn search_private_docs(
    #[schemars(length(min = 3))] query: String,
    limit: i64,
    store: State<Store>,
) -> Structured<SearchResults> {
    let limit = usize::try_from(limit).unwrap_or(0);
    let matches = store.search(&query, limit);
    let text = format!(
        "Found {} authorized passage{}.",
        matches.len(),
        if matches.len() == 1 { "" } else { "s" }
    );
    Structured::new(SearchResults { matches }).text(text)
}

/// Retrieve one authorized document by its opaque identifier.
#[tool]
pub fn get_document(
    #[serde(rename = "documentId")]
    #[schemars(regex(pattern = "^doc_"))]
    document_id: String,
    store: State<Store>,
) -> Result<String, String> {
    match store.get(&document_id) {
        Some(d) => Ok(format!("# {}\n\n{}", d.title, d.body)),
        None => Err(format!(
            "No authorized document has the id `{document_id}`."
        )),
    }
}

/// Approved retention periods and legal-hold exceptions.
#[resource(
    "acme-knowledge://policies/support-retention",
    name = "support-retention.md",
    title = "Support retention policy",
    mime_type = "text/markdown"
)]
pub fn support_retention() -> String {
    "# Support retention\n\nResolved cases are retained for 365 days. Legal holds suspend scheduled deletion."
        .to_owned()
}

/// Review steps before a scheduled deletion is executed.
#[resource(
    "acme-knowledge://runbooks/deletion-review",
    name = "deletion-review.md",
    title = "Deletion review runbook",
    mime_type = "text/markdown"
)]
pub fn deletion_review() -> String {
    "# Deletion review\n\nReview steps before a scheduled deletion is executed. Record the reviewer."
        .to_owned()
}

/// Create a source-grounded briefing for a named audience.
#[prompt(title = "Draft a policy briefing")]
pub fn draft_policy_brief(
    /// Who will read the briefing
    audience: String,
) -> mcp_runtime::protocol::GetPromptResult {
    let mut result = mcp_runtime::protocol::GetPromptResult::new(vec![
        mcp_runtime::protocol::PromptMessage::user(format!(
            "Draft a concise briefing for {audience}. Cite the approved retention resource and surface legal-hold exceptions."
        )),
    ]);
    result.description = Some("A user-controlled template for a cited policy briefing.".into());
    result
}

/// The Acme Knowledge server, primitives in the seed's order.
#[allow(dead_code)] // the binary composes its builder itself; the transcript tests use this
pub fn build() -> Result<Server, BuildError> {
    builder().build()
}

/// The server as deployed behind OAuth (`--jwks`): `search_private_docs` needs the `docs:read`
/// scope; `get_document`, the resources and the prompt need none.
#[allow(dead_code)] // the binary composes its builder itself; the transcript tests use this
pub fn build_protected() -> Result<Server, BuildError> {
    protect(builder()).build()
}

/// `builder` with `search_private_docs` needing the `docs:read` scope.
pub fn protect(builder: ServerBuilder) -> ServerBuilder {
    builder.require_scopes(PrimitiveKind::Tool, "search_private_docs", ["docs:read"])
}

/// A layer writing every call, read and get the server receives to stderr as one
/// `audit: METHOD NAME OUTCOME` line (what the lab page's browser test checks on the server side).
#[allow(dead_code)] // the transcript tests do not audit
pub fn audit() -> mcp_runtime::layers::AuditLog {
    mcp_runtime::layers::AuditLog::with_sink(|record| {
        eprintln!(
            "audit: {} {} {}",
            record.method,
            record.name.unwrap_or("-"),
            record.outcome
        )
    })
}

/// The server's builder: its identity, caching hints and primitives.
pub fn builder() -> ServerBuilder {
    Server::builder()
        .name("Acme Knowledge")
        .version("2.4.1")
        .instructions(
            "Use the separate tool, resource, and prompt grants; never treat discovery as authorization.",
        )
        .list_changed(true)
        .explicit_is_error(false)
        .state(Store::sample())
        .cache(CacheTarget::Discover, 300_000, CacheScope::Public)
        .cache(CacheTarget::ToolsList, 120_000, CacheScope::Private)
        .cache(CacheTarget::ResourcesList, 120_000, CacheScope::Private)
        .cache(CacheTarget::TemplatesList, 120_000, CacheScope::Private)
        .cache(CacheTarget::PromptsList, 300_000, CacheScope::Public)
        .cache(CacheTarget::ResourceRead, 60_000, CacheScope::Private)
        .tool(search_private_docs {})
        .tool(get_document {})
        .resource(support_retention {})
        .resource(deletion_review {})
        .prompt(draft_policy_brief {})
}
