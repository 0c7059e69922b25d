//! A `SKILL.md` frontmatter: the YAML block between its first two `---` lines, read into JSON
//! with the author's key order (the extension asks for the frontmatter "rendered verbatim as a
//! JSON object"), and checked against the Agent Skills rules.
//!
//! The YAML is read by events (`yaml-rust2`'s parser) rather than through its document loader,
//! so that aliases (which the loader expands by copying: a few lines can expand to gigabytes)
//! are refused, nesting is bounded and duplicate keys are errors.

use crate::rules::{MAX_COMPATIBILITY, MAX_DESCRIPTION, RESERVED_METADATA_PREFIX, name_problem};
use yaml_rust2::Yaml;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Largest frontmatter read, in bytes.
pub const MAX_FRONTMATTER: usize = 64 * 1024;

/// Deepest nesting of mappings and sequences in a frontmatter.
const MAX_DEPTH: usize = 32;

/// What a frontmatter says, once read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontmatter {
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// The whole frontmatter as a JSON object, keys in the author's order.
    pub json: String,
}

/// Why a frontmatter was refused: the message, and the line of `SKILL.md` it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    /// What is wrong.
    pub message: String,
    /// The line of `SKILL.md` (1-based), when one is at fault.
    pub line: Option<usize>,
}

impl FrontmatterError {
    fn new(message: impl Into<String>) -> Self {
        FrontmatterError {
            message: message.into(),
            line: None,
        }
    }
    fn at(message: impl Into<String>, line: usize) -> Self {
        FrontmatterError {
            message: message.into(),
            line: Some(line),
        }
    }
}

/// Reads and checks the frontmatter of `skill_md` (the text of a `SKILL.md`).
///
/// ```
/// use mcp_runtime_skills::frontmatter::read;
/// let f = read("---\nname: pdf\ndescription: Fill PDF forms\nlicense: MIT\n---\n# PDF\n").unwrap();
/// assert_eq!(f.name, "pdf");
/// assert_eq!(f.json, r#"{"name":"pdf","description":"Fill PDF forms","license":"MIT"}"#);
/// assert!(read("# no frontmatter\n").is_err());
/// ```
pub fn read(skill_md: &str) -> Result<Frontmatter, FrontmatterError> {
    let yaml = block(skill_md)?;
    let node = parse(yaml)?;
    let Node::Map(fields) = &node else {
        return Err(FrontmatterError::at(
            "the frontmatter is not a mapping of fields",
            2,
        ));
    };
    let field = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let name = match field("name") {
        Some(Node::Str(name)) => name.clone(),
        Some(_) => {
            return Err(FrontmatterError::new(
                "the frontmatter `name` is not a string",
            ));
        }
        None => return Err(FrontmatterError::new("the frontmatter has no `name`")),
    };
    if let Some(why) = name_problem(&name) {
        return Err(FrontmatterError::new(format!(
            "`{name}` is not a skill name: {why} (Agent Skills: 1-64 lowercase letters, digits \
             and hyphens, no leading, trailing or doubled hyphen)"
        )));
    }
    let description = match field("description") {
        Some(Node::Str(d)) if !d.trim().is_empty() => d.clone(),
        Some(Node::Str(_)) => {
            return Err(FrontmatterError::new(
                "the frontmatter `description` is empty",
            ));
        }
        Some(_) => {
            return Err(FrontmatterError::new(
                "the frontmatter `description` is not a string",
            ));
        }
        None => {
            return Err(FrontmatterError::new(
                "the frontmatter has no `description`",
            ));
        }
    };
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(FrontmatterError::new(format!(
            "the frontmatter `description` is longer than {MAX_DESCRIPTION} characters"
        )));
    }
    match field("compatibility") {
        None => {}
        Some(Node::Str(c)) if c.chars().count() <= MAX_COMPATIBILITY => {}
        Some(_) => {
            return Err(FrontmatterError::new(format!(
                "the frontmatter `compatibility` is not a string of at most {MAX_COMPATIBILITY} \
                 characters"
            )));
        }
    }
    match field("metadata") {
        None | Some(Node::Null) => {}
        Some(Node::Map(entries)) => {
            if let Some((key, _)) = entries
                .iter()
                .find(|(k, _)| k.starts_with(RESERVED_METADATA_PREFIX))
            {
                return Err(FrontmatterError::new(format!(
                    "the frontmatter `metadata` has the key `{key}`: keys starting with \
                     `{RESERVED_METADATA_PREFIX}` are reserved for MCP extensions"
                )));
            }
        }
        Some(_) => {
            return Err(FrontmatterError::new(
                "the frontmatter `metadata` is not a mapping",
            ));
        }
    }
    let mut json = String::with_capacity(yaml.len() + 16);
    write_json(&node, &mut json);
    Ok(Frontmatter {
        name,
        description,
        json,
    })
}

/// The YAML between the opening `---` line and the next `---` line (spaces or tabs may
/// follow it); a byte-order mark before the first is allowed.
fn block(text: &str) -> Result<&str, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(|| {
            FrontmatterError::at(
                "SKILL.md does not begin with a `---` line opening its YAML frontmatter",
                1,
            )
        })?;
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            let yaml = &body[..at];
            if yaml.len() > MAX_FRONTMATTER {
                break;
            }
            return Ok(yaml);
        }
        at += line.len();
        if at > MAX_FRONTMATTER {
            return Err(FrontmatterError::at(
                format!(
                    "the frontmatter is longer than {} KiB",
                    MAX_FRONTMATTER / 1024
                ),
                2,
            ));
        }
    }
    Err(FrontmatterError::at(
        "the frontmatter has no closing `---` line",
        1,
    ))
}

/// A YAML value, as JSON can hold it.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

/// A mapping or sequence being read.
enum Frame {
    Seq(Vec<Node>),
    /// The entries so far, and the key waiting for its value.
    Map(Vec<(String, Node)>, Option<String>),
}

#[derive(Default)]
struct Reader {
    stack: Vec<Frame>,
    done: Option<Node>,
    error: Option<FrontmatterError>,
    documents: usize,
}

/// The frontmatter starts on the second line of `SKILL.md`.
fn file_line(mark: Marker) -> usize {
    mark.line() + 1
}

impl Reader {
    fn fail(&mut self, message: String, mark: Marker) {
        if self.error.is_none() {
            self.error = Some(FrontmatterError::at(message, file_line(mark)));
        }
    }

    fn push(&mut self, node: Node, mark: Marker) {
        match self.stack.last_mut() {
            None => self.done = Some(node),
            Some(Frame::Seq(items)) => items.push(node),
            Some(Frame::Map(entries, key)) => match key.take() {
                Some(key) => {
                    if entries.iter().any(|(k, _)| *k == key) {
                        self.fail(format!("the key `{key}` appears twice"), mark);
                    } else {
                        entries.push((key, node));
                    }
                }
                None => match node {
                    Node::Str(s) => *key = Some(s),
                    Node::Null => *key = Some("null".into()),
                    Node::Bool(b) => *key = Some(b.to_string()),
                    Node::Int(i) => *key = Some(i.to_string()),
                    Node::Float(f) => *key = Some(f.to_string()),
                    Node::Seq(_) | Node::Map(_) => {
                        self.fail("a key is a mapping or a sequence".into(), mark);
                    }
                },
            },
        }
    }

    fn open(&mut self, frame: Frame, mark: Marker) {
        if self.stack.len() >= MAX_DEPTH {
            self.fail(
                format!("the frontmatter nests deeper than {MAX_DEPTH} levels"),
                mark,
            );
        } else {
            self.stack.push(frame);
        }
    }
}

/// A scalar as YAML 1.2's core schema reads it; keys keep their text (as JSON object keys).
fn scalar(text: String, style: TScalarStyle, is_key: bool) -> Result<Node, String> {
    if style != TScalarStyle::Plain || is_key {
        return Ok(Node::Str(text));
    }
    Ok(match Yaml::from_str(&text) {
        Yaml::Null => Node::Null,
        Yaml::Boolean(b) => Node::Bool(b),
        Yaml::Integer(i) => Node::Int(i),
        Yaml::Real(r) => match r.parse::<f64>() {
            Ok(f) if f.is_finite() => Node::Float(f),
            _ => return Err(format!("`{text}` is a number JSON cannot hold")),
        },
        _ => Node::Str(text),
    })
}

impl MarkedEventReceiver for Reader {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        match event {
            Event::Alias(_) => self.fail(
                "aliases (`*name`) are not allowed in a frontmatter".into(),
                mark,
            ),
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents > 1 {
                    self.fail(
                        "the frontmatter holds more than one YAML document".into(),
                        mark,
                    );
                }
            }
            Event::Scalar(text, style, _, _) => {
                let is_key = matches!(self.stack.last(), Some(Frame::Map(_, None)));
                match scalar(text, style, is_key) {
                    Ok(node) => self.push(node, mark),
                    Err(why) => self.fail(why, mark),
                }
            }
            Event::SequenceStart(..) => self.open(Frame::Seq(Vec::new()), mark),
            Event::MappingStart(..) => self.open(Frame::Map(Vec::new(), None), mark),
            Event::SequenceEnd | Event::MappingEnd => {
                let node = match self.stack.pop() {
                    Some(Frame::Seq(items)) => Node::Seq(items),
                    Some(Frame::Map(entries, _)) => Node::Map(entries),
                    None => return,
                };
                self.push(node, mark);
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
    }
}

fn parse(yaml: &str) -> Result<Node, FrontmatterError> {
    let mut reader = Reader::default();
    let mut parser = Parser::new_from_str(yaml);
    if let Err(e) = parser.load(&mut reader, true) {
        return Err(FrontmatterError::at(
            format!("the frontmatter is not valid YAML: {}", e.info()),
            file_line(*e.marker()),
        ));
    }
    if let Some(e) = reader.error {
        return Err(e);
    }
    reader
        .done
        .ok_or_else(|| FrontmatterError::at("the frontmatter is empty", 2))
}

fn write_json(node: &Node, out: &mut String) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Int(i) => out.push_str(&i.to_string()),
        Node::Float(f) => out.push_str(
            &serde_json::Number::from_f64(*f).map_or_else(|| "null".to_owned(), |n| n.to_string()),
        ),
        Node::Str(s) => out.push_str(&json_string(s)),
        Node::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Node::Map(entries) => {
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&json_string(key));
                out.push(':');
                write_json(value, out);
            }
            out.push('}');
        }
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Frontmatter {
        read(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
    }

    fn err(text: &str) -> FrontmatterError {
        read(text).expect_err(text)
    }

    #[test]
    fn values_keep_their_yaml_types_and_keys_their_order() {
        let f = ok(
            "---\r\nname: a\ndescription: \"quoted: yes\"\nmetadata:\n  version: \"2.1\"\n  \
                    n: 2.5\n  on: true\n  list: [1, x, ~]\nz: 0x10\n---  \nbody",
        );
        assert_eq!(
            f.json,
            r#"{"name":"a","description":"quoted: yes","metadata":{"version":"2.1","n":2.5,"on":true,"list":[1,"x",null]},"z":16}"#
        );
    }

    #[test]
    fn a_bom_and_a_block_scalar_are_read() {
        let f = ok("\u{feff}---\nname: a\ndescription: >\n  folded\n  text\n---\n");
        assert_eq!(f.description, "folded text\n");
    }

    #[test]
    fn the_rules_of_the_format_are_enforced_with_their_reason() {
        assert!(
            err("---\nname: A\ndescription: x\n---\n")
                .message
                .contains("lowercase")
        );
        assert!(
            err("---\ndescription: x\n---\n")
                .message
                .contains("no `name`")
        );
        assert!(
            err("---\nname: a\n---\n")
                .message
                .contains("no `description`")
        );
        assert!(
            err("---\nname: a\ndescription: ' '\n---\n")
                .message
                .contains("empty")
        );
        let long = format!("---\nname: a\ndescription: {}\n---\n", "x".repeat(1025));
        assert!(err(&long).message.contains("1024"));
        let reserved =
            "---\nname: a\ndescription: x\nmetadata:\n  io.modelcontextprotocol/x: y\n---\n";
        assert!(err(reserved).message.contains("reserved"));
        assert!(
            err("---\nname: a\ndescription: x\nmetadata: [1]\n---\n")
                .message
                .contains("mapping")
        );
    }

    #[test]
    fn unsafe_or_ambiguous_yaml_is_refused_at_its_line() {
        let alias = err("---\nname: a\ndescription: &d x\nother: *d\n---\n");
        assert!(alias.message.contains("aliases"), "{alias:?}");
        assert_eq!(alias.line, Some(4));
        let twice = err("---\nname: a\nname: b\ndescription: x\n---\n");
        assert!(twice.message.contains("twice"), "{twice:?}");
        let deep = format!(
            "---\nname: a\ndescription: x\nd: {}{}\n---\n",
            "[".repeat(40),
            "]".repeat(40)
        );
        assert!(err(&deep).message.contains("deeper"));
        assert!(
            err("---\nname: a\ndescription: x\nn: .inf\n---\n")
                .message
                .contains("JSON")
        );
        let invalid = err("---\nname: a\ndescription: [unclosed\n---\n");
        assert!(
            invalid.message.contains("not valid YAML") && invalid.line.is_some(),
            "{invalid:?}"
        );
        assert!(err("---\nname: a\n").message.contains("closing"));
        assert!(err("---\n- a\n---\n").message.contains("mapping"));
    }
}
