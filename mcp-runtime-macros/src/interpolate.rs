//! `{name}` placeholders in `#[elicit(message = "…")]` and `#[sample(prompt = "…")]`: the
//! function's arguments interpolated into the text sent to the client.

/// The argument names a text interpolates, in order of first use (`{{` and `}}` are literal
/// braces; `{name:spec}` keeps its format spec). An error for a brace that opens no placeholder.
pub(crate) fn placeholders(text: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
            }
            '{' => {
                let mut inside = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => inside.push(c),
                        None => return Err("a `{` is not closed: write `{name}` to insert an argument, or `{{` for a brace".into()),
                    }
                }
                let name = inside.split(':').next().unwrap_or("").trim();
                let is_ident = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                if !is_ident {
                    return Err(format!(
                        "`{{{inside}}}` names no argument: write `{{name}}` with the name of one of the function's arguments, or `{{{{` for a brace"
                    ));
                }
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
            }
            '}' => {
                return Err("a `}` closes nothing: write `}}` for a brace".into());
            }
            _ => {}
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn names_in_order() {
        assert_eq!(
            placeholders("Delete {count} notes tagged {tag}? ({count})").unwrap(),
            ["count", "tag"]
        );
        assert_eq!(
            placeholders("no args {{literal}}").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(placeholders("{n:>5}").unwrap(), ["n"]);
        assert!(placeholders("open {").is_err());
        assert!(placeholders("stray }").is_err());
        assert!(placeholders("{1}").is_err());
        assert!(placeholders("{}").is_err());
    }
}
