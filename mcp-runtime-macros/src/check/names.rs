//! The names the protocol constrains.

/// A tool name is 1 to 64 characters of `[A-Za-z0-9_.-]`.
pub(crate) fn tool_name(name: &str) -> Result<(), String> {
    let count = name.chars().count();
    if count == 0 || count > 64 {
        return Err(format!(
            "a tool name must be 1 to 64 characters long, and `{name}` has {count}; set a shorter one with `name = \"...\"`"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(format!(
            "`{name}` is not a valid tool name: it contains {c:?}, but a tool name may contain only ASCII letters, digits, `_`, `.` and `-`"
        ));
    }
    Ok(())
}

/// A prompt name is non-empty, without whitespace or control characters.
pub(crate) fn prompt_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!(
            "`{name}` is not a valid prompt name: it must be non-empty, without spaces or control characters"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(tool_name("add").is_ok());
        assert!(tool_name("a.b-c_9").is_ok());
        assert!(tool_name("").is_err());
        assert!(tool_name("has space").is_err());
        assert!(tool_name(&"x".repeat(65)).is_err());
        assert!(tool_name(&"x".repeat(64)).is_ok());
    }
}
