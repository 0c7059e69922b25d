//! RFC 6570 URI templates, level 1 (`{var}`) and reserved expansion (`{+var}`), for matching
//! `resources/read` URIs against resource templates.

use std::collections::HashMap;

/// Longest URI matched against a template, in bytes.
const MAX_URI_LEN: usize = 8 * 1024;

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Var { name: String, reserved: bool },
}

/// A parsed URI template.
///
/// ```
/// use mcp_runtime::UriTemplate;
/// let t = UriTemplate::parse("test://template/{id}/data").unwrap();
/// assert_eq!(t.variables().collect::<Vec<_>>(), ["id"]);
/// let vars = t.matches("test://template/123/data").unwrap();
/// assert_eq!(vars["id"], "123");
/// assert!(t.matches("test://template/1/2/data").is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses a template; the error says what is wrong.
    pub fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after
                .find('}')
                .ok_or_else(|| format!("unclosed `{{` in URI template `{template}`"))?;
            let expr = &after[..close];
            let (reserved, name) = match expr.strip_prefix('+') {
                Some(n) => (true, n),
                None => (false, expr),
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                return Err(format!(
                    "`{{{expr}}}` is not a supported template expression: use `{{name}}` or `{{+name}}` with a name of letters, digits and `_`"
                ));
            }
            if matches!(parts.last(), Some(Part::Var { .. })) {
                return Err(format!(
                    "two variables in a row in `{template}` cannot be told apart: put a literal between them"
                ));
            }
            if parts
                .iter()
                .any(|p| matches!(p, Part::Var { name: n, .. } if n == name))
            {
                return Err(format!("variable `{name}` appears twice in `{template}`"));
            }
            parts.push(Part::Var {
                name: name.to_owned(),
                reserved,
            });
            rest = &after[close + 1..];
        }
        if rest.contains('}') {
            return Err(format!("stray `}}` in URI template `{template}`"));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate {
            source: template.to_owned(),
            parts,
        })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Variable names in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Whether the template has no variables.
    pub fn is_fixed(&self) -> bool {
        self.variables().next().is_none()
    }

    /// Matches a URI, returning the (percent-decoded) variable values. URIs longer than 8 KiB
    /// never match (matching backtracks; client input must stay bounded).
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut out = HashMap::new();
        if match_parts(&self.parts, uri, &mut out) {
            Some(out)
        } else {
            None
        }
    }
}

fn match_parts(parts: &[Part], input: &str, out: &mut HashMap<String, String>) -> bool {
    match parts.split_first() {
        None => input.is_empty(),
        Some((Part::Literal(lit), rest)) => match input.strip_prefix(lit.as_str()) {
            Some(tail) => match_parts(rest, tail, out),
            None => false,
        },
        Some((Part::Var { name, reserved }, rest)) => {
            // Try every split point, shortest first; a simple variable is never empty and never
            // spans `/`, `?` or `#`; a reserved one (`{+var}`) may be empty (RFC 6570).
            let shortest = usize::from(!*reserved);
            for end in shortest..=input.len() {
                if !input.is_char_boundary(end) {
                    continue;
                }
                let value = &input[..end];
                if !reserved && value.ends_with(['/', '?', '#']) {
                    break;
                }
                if match_parts(rest, &input[end..], out) {
                    let decoded = if *reserved {
                        value.to_owned()
                    } else {
                        percent_decode(value)
                    };
                    out.insert(name.clone(), decoded);
                    return true;
                }
            }
            false
        }
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_matches() {
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        assert_eq!(t.matches("file:///a/b.txt").unwrap()["path"], "a/b.txt");
        let t = UriTemplate::parse("users://{id}/profile").unwrap();
        assert_eq!(t.matches("users://a%20b/profile").unwrap()["id"], "a b");
        assert!(t.matches("users:///profile").is_none());
        let t = UriTemplate::parse("items://{id}/detail{+rest}").unwrap();
        assert_eq!(t.matches("items://3/detail").unwrap()["rest"], "");
        assert_eq!(t.matches("items://3/detail/a/b").unwrap()["rest"], "/a/b");
        assert!(UriTemplate::parse("x://{a}{b}").is_err());
        assert!(UriTemplate::parse("x://{a").is_err());
        assert!(UriTemplate::parse("x://{a b}").is_err());
        assert!(UriTemplate::parse("x://{?q}").is_err());
        assert!(UriTemplate::parse("x://fixed").unwrap().is_fixed());
    }
}
