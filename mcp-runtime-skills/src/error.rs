//! Why a skill folder cannot be served: the file at fault, the skill it belongs to and the rule
//! it breaks.

use std::fmt;
use std::path::{Path, PathBuf};

/// A skill that breaks a rule of the Agent Skills format or of the Skills extension, or a file
/// that cannot be read. Its message names the file (and the line, in a frontmatter), the skill
/// and the rule.
///
/// ```
/// use mcp_runtime_skills::SkillError;
/// let e = SkillError::new("skills/Refunds/SKILL.md", "a skill's folder name is its name".into());
/// assert!(e.to_string().starts_with("skills/Refunds/SKILL.md: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillError {
    file: PathBuf,
    line: Option<usize>,
    message: String,
}

impl SkillError {
    /// An error about `file`.
    pub fn new(file: impl Into<PathBuf>, message: String) -> Self {
        SkillError {
            file: file.into(),
            line: None,
            message,
        }
    }

    /// The same error, at `line` (1-based) of its file.
    #[must_use]
    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// The file at fault.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The line of the file at fault, when the error is inside a frontmatter.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// What is wrong, without the file.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SkillError {}
