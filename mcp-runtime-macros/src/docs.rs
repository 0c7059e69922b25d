//! Doc comments as data: `///` on a function or a parameter becomes a description.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `///` doc comments (and `#[doc = "..."]` attributes) in `attrs`, formatted as
/// a description: lines are trimmed, joined with spaces within a paragraph, and paragraphs are
/// separated by a blank line. `None` when there is no (non-blank) doc comment.
///
/// Like clap, the first paragraph is the short summary and the rest the details; both are kept.
pub(crate) fn description(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            // A block comment (`/** ... */`) arrives as one attribute with many lines.
            lines.extend(s.value().split('\n').map(|l| l.trim().to_owned()));
        }
    }
    format(&lines)
}

fn format(lines: &[String]) -> Option<String> {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in lines {
        let line = line.trim_start_matches('*').trim();
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join(" "));
    }
    if paragraphs.is_empty() {
        None
    } else {
        Some(paragraphs.join("\n\n"))
    }
}

/// Whether `attr` is a doc comment.
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(attrs: &str) -> Option<String> {
        let item: syn::ItemFn = syn::parse_str(&format!("{attrs} fn f() {{}}")).unwrap();
        description(&item.attrs)
    }

    #[test]
    fn joins_lines_and_paragraphs() {
        assert_eq!(
            doc("/// Add two integers.\n/// Use only for arithmetic addition.\n"),
            Some("Add two integers. Use only for arithmetic addition.".into())
        );
        assert_eq!(
            doc("/// Summary.\n///\n///   Details   here.\n/// More.\n///\n"),
            Some("Summary.\n\nDetails   here. More.".into())
        );
        assert_eq!(doc("///\n///   \n"), None);
        assert_eq!(doc(""), None);
        assert_eq!(
            doc("/** Block\n * comment.\n */"),
            Some("Block comment.".into())
        );
    }
}
