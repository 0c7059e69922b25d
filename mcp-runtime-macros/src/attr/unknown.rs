//! The error for a key an attribute does not take, with a suggestion when one is close.

use crate::attr::read::path_string;
use crate::ctxt::Ctxt;
use syn::Path;

/// Records an "unknown key" error, with a "did you mean" when a known key is close.
pub(crate) fn unknown_key(cx: &Ctxt, path: &Path, known: &[&str], context: &str) {
    let found = path_string(path);
    let message = match suggest(&found, known) {
        Some(s) => format!("unknown {context} argument `{found}`; did you mean `{s}`?"),
        None => format!(
            "unknown {context} argument `{found}`; expected one of {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    cx.error_spanned_by(path, message);
}

/// The closest known key, if it is close enough to be a likely typo.
fn suggest<'a>(found: &str, known: &[&'a str]) -> Option<&'a str> {
    let found_lower = found.to_ascii_lowercase();
    known
        .iter()
        .map(|k| (edit_distance(&found_lower, k), *k))
        .filter(|(d, k)| {
            *d <= 2.max(k.len() / 3)
                || (found_lower.len() >= 3
                    && (k.starts_with(&found_lower) || found_lower.starts_with(k)))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let known = [
            "name",
            "title",
            "description",
            "annotations",
            "icon",
            "meta",
        ];
        assert_eq!(suggest("nmae", &known), Some("name"));
        assert_eq!(suggest("desc", &known), Some("description"));
        assert_eq!(suggest("descripton", &known), Some("description"));
        assert_eq!(suggest("annotation", &known), Some("annotations"));
        assert_eq!(suggest("zzzzzz", &known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
