//! The guide's section on hosts (`mcp-runtime/src/guide/hosts.md`, "How a host uses your server")
//! shows code of the two client scripts CI runs against the notes example
//! (`.ci/interop/host_tasks.py`, `.ci/interop/host-tasks.mjs`). Each ```python and ```js block of
//! the section must be found verbatim in its script, and each script's part between its
//! `guide: start` and `guide: end` markers must be shown whole, so that the two cannot drift
//! apart.

use std::path::Path;

/// The section's heading, without its number.
const SECTION: &str = "How a host uses your server";

/// A script whose excerpt the guide shows: its fence language, its path and its comment marker.
struct Script {
    lang: &'static str,
    path: &'static str,
    comment: &'static str,
}

const SCRIPTS: [Script; 2] = [
    Script {
        lang: "python",
        path: ".ci/interop/host_tasks.py",
        comment: "#",
    },
    Script {
        lang: "js",
        path: ".ci/interop/host-tasks.mjs",
        comment: "//",
    },
];

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The lines of the section whose heading ends with [`SECTION`], to the next heading of its
/// level or above.
fn section<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("## ") && l.ends_with(SECTION))
        .unwrap_or_else(|| panic!("the guide has no section \"{SECTION}\""));
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with("## ") && !l.starts_with("# "))
        .copied()
        .collect()
}

/// The fenced code blocks of `lines`: each one's language and text.
fn code_blocks(lines: &[&str]) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in lines {
        match open.take() {
            None => {
                if let Some(lang) = line.strip_prefix("```") {
                    open = Some((lang.trim().to_owned(), Vec::new()));
                }
            }
            Some((lang, body)) if line.trim_end() == "```" => blocks.push((lang, body.join("\n"))),
            Some((lang, mut body)) => {
                body.push(line);
                open = Some((lang, body));
            }
        }
    }
    assert!(
        open.is_none(),
        "a code block of the section is never closed"
    );
    blocks
}

/// The part of `script` between its `guide: start` and `guide: end` marker lines.
fn excerpt(script: &Script) -> String {
    let text = read(script.path);
    let lines: Vec<&str> = text.lines().collect();
    let marker = |what: &str| {
        let want = format!("{} guide: {what}", script.comment);
        let found: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].trim() == want)
            .collect();
        match found.as_slice() {
            [i] => *i,
            _ => panic!(
                "{} needs exactly one `{want}` line ({} found)",
                script.path,
                found.len()
            ),
        }
    };
    let (start, end) = (marker("start"), marker("end"));
    assert!(
        start < end,
        "{}: `guide: end` comes before `guide: start`",
        script.path
    );
    lines[start + 1..end].join("\n")
}

/// Where `shown` and `source` first differ, for the failure message.
fn first_difference(shown: &str, source: &str) -> String {
    let (mut shown_lines, mut source_lines) = (shown.lines(), source.lines());
    for n in 1.. {
        match (shown_lines.next(), source_lines.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => break,
            (a, b) => return format!("line {n} of the block: guide {a:?}, script {b:?}"),
        }
    }
    "no line differs".into()
}

#[test]
fn the_guide_shows_the_host_scripts_as_they_are() {
    let guide = read("mcp-runtime/src/guide/hosts.md");
    let lines: Vec<&str> = guide.lines().collect();
    let blocks = code_blocks(&section(&lines));
    for script in &SCRIPTS {
        let source = read(script.path);
        let part = excerpt(script);
        let shown: Vec<&String> = blocks
            .iter()
            .filter(|(lang, _)| lang == script.lang)
            .map(|(_, text)| text)
            .collect();
        assert!(
            !shown.is_empty(),
            "the guide's section \"{SECTION}\" shows no ```{} block of {}",
            script.lang,
            script.path
        );
        for text in &shown {
            assert!(
                source.contains(text.as_str()),
                "a ```{} block of the guide's section \"{SECTION}\" is not in {} as it is \
                 shown ({}); copy the part between the `guide:` markers again",
                script.lang,
                script.path,
                first_difference(text, &part)
            );
        }
        assert!(
            shown.iter().any(|text| **text == part),
            "the guide's section \"{SECTION}\" does not show the whole part of {} between its \
             `guide:` markers ({})",
            script.path,
            first_difference(shown[0], &part)
        );
    }
}

#[test]
fn code_blocks_are_read_with_their_language() {
    let lines = [
        "text",
        "```python",
        "a = 1",
        "",
        "```",
        "```js",
        "b();",
        "```",
    ];
    assert_eq!(
        code_blocks(&lines),
        [
            ("python".to_owned(), "a = 1\n".to_owned()),
            ("js".to_owned(), "b();".to_owned())
        ]
    );
    let guide =
        "## 12. How a host uses your server\n\n```js\nx();\n```\n## 13. Next\n```js\ny();\n```\n";
    let lines: Vec<&str> = guide.lines().collect();
    assert_eq!(
        code_blocks(&section(&lines)),
        [("js".to_owned(), "x();".to_owned())]
    );
}
