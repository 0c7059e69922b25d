//! URI templates (RFC 6570, the subset the runtime serves): their variables, read at compile
//! time.

/// Parses a URI template the way the runtime does (`{var}` and `{+var}` only, no two variables
/// in a row), returning the names of its variables or a message saying what is wrong.
pub(crate) fn uri_template(template: &str) -> Result<Vec<String>, String> {
    let mut vars: Vec<String> = Vec::new();
    let mut rest = template;
    let mut last_was_var = false;
    let mut first = true;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            last_was_var = false;
        }
        if rest[..open].contains('}') {
            return Err(format!("unmatched `}}` in URI template `{template}`"));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(format!("unclosed `{{` in URI template `{template}`"));
        };
        let expr = &after[..close];
        let name = expr.strip_prefix('+').unwrap_or(expr);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`{{{expr}}}` is not a supported template expression: use `{{name}}` or `{{+name}}`, where the name is a parameter of the function"
            ));
        }
        if first && open == 0 {
            return Err(format!(
                "the URI template `{template}` must start with a scheme, like `files://{{path}}`"
            ));
        }
        if last_was_var {
            return Err(format!(
                "two variables in a row in `{template}` cannot be told apart: put a literal between them"
            ));
        }
        if vars.iter().any(|v| v == name) {
            return Err(format!(
                "the variable `{name}` appears twice in `{template}`; use each variable once"
            ));
        }
        vars.push(name.to_owned());
        last_was_var = true;
        first = false;
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("unmatched `}}` in URI template `{template}`"));
    }
    Ok(vars)
}

/// A URI (or template) starts with a scheme. The runtime's snapshot check keeps the same
/// rule for builder registrations (a proc-macro crate cannot share code with it).
pub(crate) fn has_scheme(uri: &str) -> bool {
    match uri.find(':') {
        Some(i) if i > 0 => {
            let scheme = &uri[..i];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        let v = uri_template("files://{+path}/x/{id}").unwrap();
        assert_eq!(v, ["path", "id"]);
        assert!(uri_template("files://{a}{b}").is_err());
        assert!(uri_template("files://{a").is_err());
        assert!(uri_template("files://{?q}").is_err());
        assert!(uri_template("files://{a}/{a}").is_err());
        assert!(uri_template("config://service").unwrap().is_empty());
    }
}
