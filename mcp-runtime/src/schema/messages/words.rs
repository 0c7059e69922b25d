//! The words both sources share: how an argument is named, how a value is quoted, how a list
//! and a count are written, and the sentence for members an object does not declare.

use serde_json::Value;

/// How much of a value a message quotes.
const SHOWN_CHARS: usize = 60;

/// The argument at `path` as a sentence's subject.
pub(super) fn subject(path: &str) -> String {
    match path {
        "" => "the arguments".into(),
        _ => format!("`{path}`"),
    }
}

/// `name` below `path`.
pub(super) fn child(path: &str, name: &str) -> String {
    match path {
        "" => name.to_owned(),
        _ => format!("{path}.{name}"),
    }
}

/// A value as the message quotes it: its JSON, cut short when long.
pub(super) fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= SHOWN_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SHOWN_CHARS).collect();
    format!("{cut}…")
}

/// Values as a list: `"low", "normal", "high"`.
pub(super) fn listed(values: &[Value]) -> String {
    values.iter().map(shown).collect::<Vec<_>>().join(", ")
}

/// Names as a list: `` `a`, `b` ``.
fn names<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `n thing` or `n things`.
pub(crate) fn count(n: u64, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        _ => format!("{n} {thing}s"),
    }
}

/// Members an object does not declare: `` `c` is not an argument of this tool (its arguments:
/// `a`, `b`) ``, or below the root `` `inner.c` is not allowed (`inner` takes `a`, `b`) ``.
pub(super) fn unknown_members<S: AsRef<str>>(
    path: &str,
    unexpected: &[S],
    declared: &[String],
) -> String {
    let full: Vec<String> = unexpected.iter().map(|n| child(path, n.as_ref())).collect();
    let (one, verb) = match full.len() {
        1 => (true, "is"),
        _ => (false, "are"),
    };
    let what = if path.is_empty() {
        match (declared.is_empty(), one) {
            (true, _) => return format!("this tool takes no arguments (got {})", names(&full)),
            (false, true) => "not an argument of this tool",
            (false, false) => "not arguments of this tool",
        }
    } else {
        "not allowed"
    };
    let takes = match (path, declared.is_empty()) {
        (_, true) => format!(" (`{path}` takes no members)"),
        ("", false) => format!(" (its arguments: {})", names(declared)),
        (_, false) => format!(" (`{path}` takes {})", names(declared)),
    };
    format!("{} {verb} {what}{takes}", names(&full))
}
