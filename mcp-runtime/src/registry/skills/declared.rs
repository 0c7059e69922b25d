//! [`Skills`]: the skills a server declares (the Skills extension, SEP-2640), from a folder
//! read at startup or embedded at compile time by `skills!`, with who may read each of them.

#[cfg(feature = "skills")]
use super::data::{ScanLimits, load_dir};
use super::data::{SkillData, load_embedded};
use super::embedded::EmbeddedSkill;
use crate::config::CacheHint;
use crate::error::BuildError;
use crate::protocol::CacheScope;
use crate::registry::access::{AccessCheck, Requirement};
use std::sync::Arc;
#[cfg(feature = "skills")]
use std::{
    path::{Path, PathBuf},
    time::Duration,
};

/// Where a set of skills comes from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// A folder, read when the server is built (and again when it changes, if watched).
    #[cfg(feature = "skills")]
    Dir {
        root: PathBuf,
        limits: ScanLimits,
        watch: Option<Duration>,
    },
    /// Embedded by `skills!` at compile time.
    Embedded {
        origin: &'static str,
        skills: &'static [EmbeddedSkill],
    },
    /// A mounted server's, fetched through the mount (`crate::proxy`): its loaded skills are
    /// put in place by the mount, never read here.
    #[cfg(feature = "mounts")]
    Relayed { origin: String },
}

/// The skills a server serves through the Skills extension (`io.modelcontextprotocol/skills`):
/// every folder holding a `SKILL.md` below a root, as the
/// [Agent Skills](https://agentskills.io/specification) format has it. Each skill is listed by
/// `skills/list`, described by `skills/get`, and each of its files is a resource
/// (`skill://<path>/<file>`) read with `resources/read`; `resources/directory/read` lists its
/// folders.
///
/// Two ways to provide them, both with this crate's `skills` feature, which answer byte for
/// byte the same for the same tree:
/// - `Skills::dir`: a folder read when the server is built (a broken skill is a startup
///   error naming the file, the skill and the rule), optionally watched (`Skills::watch`);
/// - `skills!("path")` (a macro of this crate): the folder embedded in the binary at compile
///   time, checked by the compiler, so a deployed server reads no file.
///
/// Without the feature a server still serves the skills of the servers it mounts.
///
/// Either way, every file is read through a descriptor of its folder and no symbolic link is
/// followed (a link is an error), names starting with `.` are left out, and the extension's
/// limits hold: 512 files and 16 MiB per skill.
///
/// ```no_run
/// # #[cfg(feature = "skills")] {
/// use mcp_runtime::{Server, Skills};
/// let server = Server::builder()
///     .skills(Skills::dir("skills").skill_scopes("refunds", ["billing:read"]))
///     .build()?;
/// # }
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Skills {
    pub(crate) source: Source,
    /// What every skill of the set requires.
    pub(crate) access: Requirement,
    /// What one skill requires besides (by name).
    pub(crate) per_skill: Vec<(String, Requirement)>,
    /// The caching hint of `resources/read` of their files.
    pub(crate) cache: Option<CacheHint>,
}

impl Skills {
    /// The skills of the folder `root` (relative to the working directory), read when the
    /// server is built.
    ///
    /// ```
    /// # #[cfg(feature = "skills")] {
    /// let skills = mcp_runtime::Skills::dir("skills");
    /// # }
    /// ```
    #[cfg(feature = "skills")]
    pub fn dir(root: impl Into<PathBuf>) -> Skills {
        Skills::from_source(Source::Dir {
            root: root.into(),
            limits: ScanLimits::default(),
            watch: None,
        })
    }

    /// What `skills!` expands to.
    #[doc(hidden)]
    pub fn embedded(origin: &'static str, skills: &'static [EmbeddedSkill]) -> Skills {
        Skills::from_source(Source::Embedded { origin, skills })
    }

    pub(crate) fn from_source(source: Source) -> Skills {
        Skills {
            source,
            access: Requirement::default(),
            per_skill: Vec::new(),
            cache: None,
        }
    }

    /// Reads the folder again every `every` while the server runs; when it changed and still
    /// holds valid skills, serves the new tree and tells listen streams (a
    /// `notifications/resources/list_changed`, and `notifications/resources/updated` for each
    /// subscribed file that changed or went away). A change that breaks a skill is logged and
    /// the last good tree stays. Watching turns on the server's `listChanged` and `subscribe`
    /// resource capabilities. For `Skills::dir` only.
    ///
    /// ```
    /// # #[cfg(feature = "skills")] {
    /// use std::time::Duration;
    /// let skills = mcp_runtime::Skills::dir("skills").watch(Duration::from_secs(2));
    /// # }
    /// ```
    #[cfg(feature = "skills")]
    pub fn watch(mut self, every: Duration) -> Self {
        if let Source::Dir { watch, .. } = &mut self.source {
            *watch = Some(every.max(Duration::from_millis(50)));
        }
        self
    }

    /// The most bytes the folder's files may hold in all (default 256 MiB): a larger folder is
    /// a startup error. For `Skills::dir` only.
    ///
    /// ```
    /// # #[cfg(feature = "skills")] {
    /// let skills = mcp_runtime::Skills::dir("skills").max_total_bytes(1 << 20);
    /// # }
    /// ```
    #[cfg(feature = "skills")]
    pub fn max_total_bytes(mut self, bytes: u64) -> Self {
        if let Source::Dir { limits, .. } = &mut self.source {
            limits.total_bytes = bytes;
        }
        self
    }

    /// Requires these OAuth scopes (all of them) of whoever lists, gets or reads any skill of
    /// the set: a caller without them does not see the skills listed, and is refused (with a
    /// challenge naming them) on `skills/get`, on `resources/read` of their files and on
    /// `resources/directory/read` of their folders.
    ///
    /// ```
    /// # #[cfg(feature = "skills")] {
    /// let skills = mcp_runtime::Skills::dir("skills").scopes(["skills:read"]);
    /// # }
    /// ```
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.access.add_scopes(scopes);
        self
    }

    /// A custom check for every skill of the set (asked with the skill's name; see
    /// [`AccessCheck`]).
    ///
    /// ```
    /// # #[cfg(feature = "skills")] {
    /// use mcp_runtime::auth::AccessCheck;
    /// let skills = mcp_runtime::Skills::dir("skills")
    ///     .authorize(AccessCheck::new(|_access| async { Ok(()) }));
    /// # }
    /// ```
    pub fn authorize(mut self, check: AccessCheck) -> Self {
        self.access.check = Some(check);
        self
    }

    /// Requires these scopes besides for the skill named `name` (an unknown name is a startup
    /// error).
    ///
    /// ```
    /// # #[cfg(feature = "skills")] {
    /// let skills = mcp_runtime::Skills::dir("skills")
    ///     .skill_scopes("refunds", ["billing:read"]);
    /// # }
    /// ```
    pub fn skill_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        name: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.per_skill_mut(name.into()).add_scopes(scopes);
        self
    }

    /// A custom check for the skill named `name`, in place of the set's.
    ///
    /// ```
    /// # #[cfg(feature = "skills")] {
    /// use mcp_runtime::auth::{AccessCheck, Denied};
    /// let skills = mcp_runtime::Skills::dir("skills").skill_authorize(
    ///     "refunds",
    ///     AccessCheck::new(|_access| async { Err(Denied::new("closed today")) }),
    /// );
    /// # }
    /// ```
    pub fn skill_authorize(mut self, name: impl Into<String>, check: AccessCheck) -> Self {
        self.per_skill_mut(name.into()).check = Some(check);
        self
    }

    /// The caching hint of `skills/get` and of `resources/read` of the skills' files
    /// (default: the server's for `resources/read`).
    ///
    /// ```
    /// # #[cfg(feature = "skills")] {
    /// use mcp_runtime::protocol::CacheScope;
    /// let skills = mcp_runtime::Skills::dir("skills").cache(300_000, CacheScope::Public);
    /// # }
    /// ```
    pub fn cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.cache = Some(CacheHint { ttl_ms, scope });
        self
    }

    /// What the skill `name` requires besides the set's (`ServerBuilder::require_scopes`).
    pub(crate) fn skill_access_mut(&mut self, name: &str) -> &mut Requirement {
        self.per_skill_mut(name.to_owned())
    }

    fn per_skill_mut(&mut self, name: String) -> &mut Requirement {
        let at = match self.per_skill.iter().position(|(n, _)| *n == name) {
            Some(at) => at,
            None => {
                self.per_skill.push((name, Requirement::default()));
                self.per_skill.len() - 1
            }
        };
        &mut self.per_skill[at].1
    }

    /// Where the set comes from, as errors name it.
    pub(crate) fn origin(&self) -> String {
        match &self.source {
            #[cfg(feature = "skills")]
            Source::Dir { root, .. } => root.display().to_string(),
            Source::Embedded { origin, .. } => (*origin).to_owned(),
            #[cfg(feature = "mounts")]
            Source::Relayed { origin } => origin.clone(),
        }
    }

    /// The folder and how often to read it again, when watched.
    #[cfg(feature = "skills")]
    pub(crate) fn watched(&self) -> Option<(&Path, Duration)> {
        match &self.source {
            Source::Dir {
                root,
                watch: Some(every),
                ..
            } => Some((root, *every)),
            _ => None,
        }
    }

    /// Reads the set's skills now.
    pub(crate) fn load(&self) -> Result<Vec<Arc<SkillData>>, BuildError> {
        let skills = match &self.source {
            #[cfg(feature = "skills")]
            Source::Dir { root, limits, .. } => {
                load_dir(root, *limits).map_err(|e| invalid(&self.origin(), e.to_string()))?
            }
            Source::Embedded { skills, .. } => load_embedded(skills),
            #[cfg(feature = "mounts")]
            Source::Relayed { .. } => Vec::new(),
        };
        for (name, _) in &self.per_skill {
            if !skills.iter().any(|s| s.name == *name) {
                return Err(invalid(
                    &self.origin(),
                    format!("access is set for the skill `{name}`, which it does not hold"),
                ));
            }
        }
        Ok(skills)
    }

    /// What the skill `name` of the set requires: the set's scopes and the skill's own, the
    /// skill's check if it has one, else the set's.
    pub(crate) fn requirement_of(&self, name: &str) -> Requirement {
        let mut access = self.access.clone();
        if let Some((_, own)) = self.per_skill.iter().find(|(n, _)| n == name) {
            access.add_scopes(own.scopes.iter().cloned());
            if own.check.is_some() {
                access.check = own.check.clone();
            }
        }
        access
    }
}

pub(crate) fn invalid(origin: &str, reason: String) -> BuildError {
    BuildError::Invalid {
        kind: "skills folder",
        name: origin.to_owned(),
        reason,
        location: None,
    }
}

/// A set of skills as a server holds it: how it was declared, and its skills as last loaded.
#[derive(Debug, Clone)]
pub(crate) struct SkillSet {
    pub(crate) declared: Skills,
    pub(crate) loaded: Arc<Vec<Arc<SkillData>>>,
}
