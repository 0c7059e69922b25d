//! Where in a JSON text serde_json met an error: the path of the value it is about, found by
//! one linear scan of the text up to the error's position, without deserializing again.
//!
//! The path is written as serde_path_to_error wrote it (`a.b[0].c`; `.` for the whole text),
//! which [`parse_error_sentence`](crate::schema::parse_error_sentence) reads. It replaces
//! re-parsing a failed text through that crate's wrapper deserializer, which was instantiated
//! once per argument type.
//!
//! serde_json's reader places an error where it stood (its column counts bytes; a syntax
//! error is placed one byte further, on the byte it peeked). A wrong type is placed right
//! after the value read (a string, a number, a literal) or on the opening bracket of a value
//! refused whole; an unknown or repeated field right after its key. An error raised by a
//! type's visitor once its object or array is read (`missing field`, a short array) is placed
//! right after that container's closing bracket, which the reader eats whatever the outcome.
//! An error raised by code holding no reader of its own (a value converted after it was read,
//! `try_from`, or buffered first, as internally tagged and untagged enums are) is placed where
//! the reader of the enclosing container stopped: at the comma after the value in an object,
//! after the comma in an array, or after the container's closing bracket (the value being its
//! last member). The position and the message together name the value:
//!
//! - `duplicate field`, trailing items, and an unknown variant given as an object's key
//!   (an externally tagged enum) belong to the innermost container;
//! - after an array's comma, the item before it (unless a container starts there: the item
//!   there, refused whole);
//! - right after a container's closing bracket, its last member, unless the message is the
//!   container's own complaint about its end (`missing field`, `invalid length`), names a
//!   value that member cannot be or hold (`invalid type: map` of a number), or a comma
//!   follows in an object (the container itself, converted: or its member, which the text
//!   cannot tell, and then the container is named, never another member);
//! - a unit variant's name given for a variant carrying data adds the variant, as
//!   serde_path_to_error followed it;
//! - anything else is the member being read (an unknown field's path ends with the field).
//!
//! Errors inside a buffered value (an internally tagged enum's fields) name the buffered value
//! or, at the end of its container, what encloses it: serde_path_to_error could see no deeper.
//! A visitor's own complaint at its container's end other than a missing field or a length (a
//! flattened struct's) may name the container's last member. Checked against
//! serde_path_to_error over 200,000 random texts of a type with every shape above: the paths
//! differ only for values read through a buffer or converted once read (`flatten`, internally
//! tagged enums, `try_from` items of an array, a unit variant's name in an array).

/// A segment of the path: an object's member (its key, as the span of the quoted key in the
/// text, or unknown when the key is not read whole).
#[derive(Clone, Copy)]
enum Member {
    /// No member yet (just after `{` or a comma).
    None,
    /// A key whose closing quote was not reached.
    Partial,
    /// The quoted key, `text[start..end]`, quotes included.
    Key { start: usize, end: usize },
}

/// A container open at the position.
#[derive(Clone, Copy)]
enum Frame {
    /// An object: its current member, and the first byte of that member's value, once read.
    Object { member: Member, value: Option<u8> },
    /// An array: the index of its current item, and the first byte of that item, once read.
    Array { index: usize, value: Option<u8> },
}

/// Which value a position names, by the message serde gave.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// The member being read.
    Member,
    /// The innermost container.
    Container,
    /// The member, never the last member of a container just closed (`missing field`,
    /// `invalid length`: the container's own complaint about its end).
    Closed,
    /// The member, then the variant named by the string read last.
    Variant,
}

/// What [`scan`] finds at a position.
struct Scanned {
    /// The containers open there, outermost first.
    stack: Vec<Frame>,
    /// The last value read, when it is a string (quotes included).
    string: Option<(usize, usize)>,
    /// The container whose closing bracket is the last byte read (none for an empty array).
    closed: Option<Frame>,
    /// Whether the last byte read, whitespace aside, is a comma.
    comma: bool,
}

/// The path of the value serde_json's `error`, met reading `text`, is about.
pub(crate) fn error_path(text: &str, error: &serde_json::Error) -> String {
    if error.line() == 0 {
        return ".".into();
    }
    let message = error.to_string();
    let starts = |head: &str| message.starts_with(head);
    let mut at = offset(text, error.line(), error.column());
    let bytes = text.as_bytes();
    if error.classify() == serde_json::error::Category::Syntax {
        at = at.saturating_sub(1);
    }
    let scanned = scan(text, at);
    let mode = if starts("duplicate field ") || starts("trailing ") {
        Mode::Container
    } else if starts("unknown variant ") {
        match scanned.stack.last() {
            Some(Frame::Object {
                member: Member::Key { .. },
                value: None,
            }) => Mode::Container,
            _ => Mode::Member,
        }
    } else if starts("missing field ") || starts("invalid length ") {
        Mode::Closed
    } else if starts("invalid type: unit variant, ") {
        Mode::Variant
    } else {
        Mode::Member
    };
    // A value refused whole, at its first byte: a map or an array where a scalar was
    // expected, a container too deep, a value that cannot be an enum.
    let whole = match bytes.get(at) {
        Some(b'{') => starts("invalid type: map,") || starts("recursion limit exceeded"),
        Some(b'[') => starts("invalid type: sequence,") || starts("recursion limit exceeded"),
        Some(_) => starts("expected value"),
        None => false,
    };
    written(text, &scanned, at, mode, whole, unexpected(&message))
}

/// The first byte of the JSON values an `invalid type` or `invalid value` message says it got
/// (`map`: `{`; a number: `-` stands for any), or `0` when it names none.
fn unexpected(message: &str) -> u8 {
    let Some(got) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
    else {
        return 0;
    };
    let kinds: [(&[&str], u8); 6] = [
        (&["map,"], b'{'),
        (&["sequence,"], b'['),
        (&["string "], b'"'),
        (&["integer ", "floating point "], b'-'),
        (&["boolean "], b't'),
        (&["unit value,", "null,"], b'n'),
    ];
    kinds
        .iter()
        .find(|(heads, _)| heads.iter().any(|head| got.starts_with(head)))
        .map_or(0, |(_, first)| *first)
}

/// Whether a value whose first byte is `first` can be, or hold, what [`unexpected`] names.
fn fits(first: Option<u8>, named: u8) -> bool {
    let Some(first) = first else { return true };
    match (named, first) {
        (0, _) | (_, b'{' | b'[') => true,
        (b'-', b'-' | b'0'..=b'9') | (b't', b't' | b'f') => true,
        (named, first) => named == first,
    }
}

/// The byte offset of serde_json's `line` (from 1) and `column` (bytes into the line).
fn offset(text: &str, line: usize, column: usize) -> usize {
    let bytes = text.as_bytes();
    let mut start = 0;
    for _ in 1..line {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(n) => start += n + 1,
            None => return bytes.len(),
        }
    }
    start.saturating_add(column).min(bytes.len())
}

/// The path of the value at byte `at` of `text`, as `mode` reads the position.
#[cfg(test)]
fn path_at(text: &str, at: usize, mode: Mode, whole: bool) -> String {
    written(text, &scan(text, at), at, mode, whole, 0)
}

/// The path `scanned`, what was read before byte `at` of `text`, names as `mode` reads it
/// (`whole`: the error refuses the value at `at` whole; `got`: the first byte of what the
/// message says it got, as [`unexpected`] gives it).
fn written(text: &str, scanned: &Scanned, at: usize, mode: Mode, whole: bool, got: u8) -> String {
    let mut path = String::new();
    let stack = &scanned.stack;
    let last = stack.len().saturating_sub(1);
    for (i, frame) in stack.iter().enumerate() {
        if mode == Mode::Container && i == last {
            break;
        }
        let mut frame = *frame;
        if let (true, Frame::Array { index, .. }) = (i == last && scanned.comma, &mut frame) {
            // After an array's comma: the item before it, unless the item here is refused
            // whole.
            if !whole {
                *index = index.saturating_sub(1);
            }
        }
        segment(text, &mut path, frame);
    }
    // Whether the path names the value read last (not a container around it).
    let mut last_read = scanned.closed.is_none();
    if let (Some(closed), Mode::Member | Mode::Variant) = (scanned.closed, mode) {
        let in_array = matches!(stack.last(), Some(Frame::Array { .. }));
        let value = match closed {
            Frame::Object { value, .. } | Frame::Array { value, .. } => value,
        };
        if (in_array || text.as_bytes().get(at) != Some(&b',')) && fits(value, got) {
            segment(text, &mut path, closed);
            last_read = true;
        }
    }
    if let (Mode::Variant, Some(span), true) = (mode, scanned.string, last_read) {
        key(&mut path, &decoded(text, span));
    }
    if path.is_empty() {
        path.push('.');
    }
    path
}

/// Appends the current member of `frame` to `path`.
fn segment(text: &str, path: &mut String, frame: Frame) {
    match frame {
        Frame::Object { member, .. } => match member {
            Member::None => {}
            Member::Partial => key(path, "?"),
            Member::Key { start, end } => key(path, &decoded(text, (start, end))),
        },
        Frame::Array { index, .. } => {
            path.push('[');
            path.push_str(&index.to_string());
            path.push(']');
        }
    }
}

/// Appends a member's key to `path`.
fn key(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

/// The JSON string `text[start..end]` (quotes included) decoded, or `?`.
fn decoded(text: &str, (start, end): (usize, usize)) -> String {
    serde_json::from_str::<String>(&text[start..end]).unwrap_or_else(|_| "?".to_owned())
}

/// What was read before byte `at` of `text`: the containers open there, outermost first, and
/// the last things read. One pass, no recursion: the stack is on the heap, as deep as the text
/// nests.
fn scan(text: &str, at: usize) -> Scanned {
    let bytes = text.as_bytes();
    let end = at.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut string = None;
    let mut closed = None;
    let mut comma = false;
    // The last byte read that is not whitespace.
    let mut prev = 0u8;
    let mut i = 0;
    while i < end {
        let byte = bytes[i];
        closed = None;
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
            continue;
        }
        comma = byte == b',';
        i += 1;
        match byte {
            b'{' | b'[' => {
                value_starts(&mut stack, byte);
                string = None;
                stack.push(match byte {
                    b'{' => Frame::Object {
                        member: Member::None,
                        value: None,
                    },
                    _ => Frame::Array {
                        index: 0,
                        value: None,
                    },
                });
            }
            // An empty array has no item to name.
            b'}' | b']' => closed = stack.pop().filter(|_| !(byte == b']' && prev == b'[')),
            b',' => match stack.last_mut() {
                Some(Frame::Object { member, value }) => {
                    *member = Member::None;
                    *value = None;
                }
                Some(Frame::Array { index, value }) => {
                    *index += 1;
                    *value = None;
                }
                None => {}
            },
            b':' => {}
            b'"' => {
                let start = i - 1;
                let (after, done) = string_end(bytes, i, end);
                i = after;
                match stack.last_mut() {
                    Some(Frame::Object {
                        member: member @ Member::None,
                        value: None,
                    }) => {
                        string = None;
                        *member = match done {
                            true => Member::Key { start, end: after },
                            false => Member::Partial,
                        };
                    }
                    _ => {
                        value_starts(&mut stack, byte);
                        string = done.then_some((start, after));
                    }
                }
            }
            // A number or a literal.
            _ => {
                value_starts(&mut stack, byte);
                string = None;
            }
        }
        prev = byte;
    }
    Scanned {
        stack,
        string,
        closed,
        comma,
    }
}

/// Notes `byte` as the first of the innermost container's current value, unless one was.
fn value_starts(stack: &mut [Frame], byte: u8) {
    if let Some(Frame::Object { value, .. } | Frame::Array { value, .. }) = stack.last_mut() {
        value.get_or_insert(byte);
    }
}

/// Where the string whose contents start at `from` ends (the offset after its closing quote,
/// at most `end`), and whether that quote is before `end`.
fn string_end(bytes: &[u8], from: usize, end: usize) -> (usize, bool) {
    let mut i = from;
    while i < end {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return (i + 1, true),
            _ => i += 1,
        }
    }
    (end, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        a: Option<i64>,
        inner: Option<Inner>,
        list: Option<Vec<Inner>>,
        map: Option<BTreeMap<String, Inner>>,
        pair: Option<(u8, String)>,
        grid: Option<Vec<Vec<u8>>>,
        shape: Option<Shape>,
        email: Option<Email>,
        emails: Option<Vec<Email>>,
        deep: Option<serde_json::Value>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        x: bool,
        y: Option<u8>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Shape {
        Circle { r: f64 },
        Point,
    }

    /// A string that must hold an `@`, checked once read.
    #[derive(Debug, Deserialize)]
    #[serde(try_from = "String")]
    struct Email;

    impl TryFrom<String> for Email {
        type Error = &'static str;
        fn try_from(s: String) -> Result<Self, Self::Error> {
            s.contains('@').then_some(Email).ok_or("not an email")
        }
    }

    /// The path of the error reading `text` as [`Args`], and its message.
    fn located(text: &str) -> (String, String) {
        let e = serde_json::from_str::<Args>(text).expect_err("invalid");
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or_default();
        (error_path(text, &e), message.to_owned())
    }

    fn path(text: &str) -> String {
        located(text).0
    }

    #[test]
    fn a_wrong_type_names_its_value() {
        assert_eq!(path(r#"{"a": "one"}"#), "a");
        assert_eq!(path(r#"{"a": 1, "inner": {"x": "yes"}}"#), "inner.x");
        assert_eq!(
            path(r#"{"inner": {"x": true, "y": 300}, "a": 1}"#),
            "inner.y"
        );
        assert_eq!(path(r#"{"inner": 5}"#), "inner");
        assert_eq!(path(r#"{"a": {"b": 1}}"#), "a");
        assert_eq!(path(r#"{"a": [1, 2]}"#), "a");
    }

    #[test]
    fn arrays_are_indexed() {
        assert_eq!(path(r#"{"list": [{"x": true}, {"x": 1}]}"#), "list[1].x");
        assert_eq!(path(r#"{"grid": [[1, 2], [3, 256]]}"#), "grid[1][1]");
        assert_eq!(path(r#"{"grid": [[1], {"no": 1}]}"#), "grid[1]");
        assert_eq!(path(r#"{"grid": [[1], [[2]]]}"#), "grid[1][0]");
        assert_eq!(path(r#"{"list": [{"x": true}, {}]}"#), "list[1]");
        assert_eq!(
            located(r#"{"pair": [1]}"#),
            (
                "pair".into(),
                "invalid length 1, expected a tuple of size 2".into()
            )
        );
        assert_eq!(
            located(r#"{"pair": [1, "a", 3]}"#),
            ("pair".into(), "trailing characters".into())
        );
    }

    #[test]
    fn fields_missing_unknown_or_twice() {
        assert_eq!(
            located(r#"{"inner": {}}"#),
            ("inner".into(), "missing field `x`".into())
        );
        assert_eq!(path(r#"{"inner": {"y": 1}, "a": 1}"#), "inner");
        assert_eq!(path(r#"{"list": [{"x": true}, {"y": 2}]}"#), "list[1]");
        // serde_path_to_error's path ended with the unknown field itself.
        assert_eq!(path(r#"{"a": 1, "b": 2}"#), "b");
        assert_eq!(path(r#"{"inner": {"x": true, "z": 1}}"#), "inner.z");
        assert_eq!(
            located(r#"{"a": 1, "a": 2}"#),
            (".".into(), "duplicate field `a`".into())
        );
        assert_eq!(path(r#"{"inner": {"x": true, "x": true}}"#), "inner");
    }

    #[test]
    fn keys_are_decoded() {
        let text = r#"{"map": {"a\"b\u00e9": {"x": 1}}}"#;
        assert_eq!(path(text), "map.a\"bé.x");
        assert_eq!(path(r#"{"map": {"a.b": {"x": null}}}"#), "map.a.b.x");
        // A key not read whole (a lone surrogate in it) is unknown.
        assert_eq!(path(r#"{"map": {"\ud800": {}}}"#), "map.?");
    }

    #[test]
    fn whitespace_and_lines_do_not_move_the_path() {
        let text = "{\n  \"a\" :\t1 ,\r\n  \"list\"\n  : [\n    { \"x\" : true } ,\n    { \"x\" :\n\"no\" }\n  ]\n}";
        assert_eq!(path(text), "list[1].x");
        assert_eq!(path("{\n\"inner\":\n{\n}\n}"), "inner");
        assert_eq!(
            path("{ \"inner\" : { \"x\" : true , \"q\" : 1 } }"),
            "inner.q"
        );
    }

    #[test]
    fn columns_count_bytes() {
        // serde_json's column is bytes into the line: "é" and "日本" are two and six.
        let text = "{\"map\": {\"é日本\": {\"x\": true}, \"k\": {\"x\": 3}}}";
        let e = serde_json::from_str::<Args>(text).expect_err("invalid");
        let at = text.find('3').expect("there") + 1;
        assert_eq!((e.line(), e.column()), (1, at));
        assert_eq!(path(text), "map.k.x");
        let text = "{\"map\": {\"é\": {\"x\": true},\n\"日本\": {\"x\": \"é\"}}}";
        assert_eq!(path(text), "map.日本.x");
    }

    #[test]
    fn enums() {
        assert_eq!(
            path(r#"{"shape": {"Circle": {"r": "big"}}}"#),
            "shape.Circle.r"
        );
        let (at, message) = located(r#"{"shape": {"Square": {}}}"#);
        assert!(message.starts_with("unknown variant `Square`"), "{message}");
        assert_eq!(at, "shape");
        let (at, message) = located(r#"{"shape": "Square"}"#);
        assert!(message.starts_with("unknown variant `Square`"), "{message}");
        assert_eq!(at, "shape");
        // A unit variant's name for one that carries data: the variant is followed.
        assert_eq!(path(r#"{"shape": "Circle", "a": 1}"#), "shape.Circle");
        assert_eq!(path(r#"{"shape": "Circle"}"#), "shape.Circle");
    }

    #[test]
    fn values_converted_once_read() {
        // `try_from`: the error leaves no mark where the value ends; the reader of the
        // enclosing container stopped after it.
        assert_eq!(path(r#"{"email": "no", "a": 1}"#), "email");
        assert_eq!(path(r#"{"a": 1, "email": "no"}"#), "email");
        assert_eq!(path(r#"{"emails": ["a@b", "no", "c@d"]}"#), "emails[1]");
        assert_eq!(path(r#"{"emails": ["a@b", "no"] }"#), "emails[1]");
        // A comma right after the array: the array or its item, which the text cannot
        // tell: the array.
        assert_eq!(path(r#"{"emails": ["a@b", "no"], "a": 1}"#), "emails");
    }

    #[test]
    fn a_position_before_anything_is_the_whole() {
        assert_eq!(path_at("{}", 0, Mode::Member, false), ".");
        assert_eq!(path_at(r#"{"a": 1}"#, 1, Mode::Member, false), ".");
        assert_eq!(path_at(r#"{"a": 1}"#, 8, Mode::Member, false), "a");
        assert_eq!(path_at(r#"{"a": 1}"#, 99, Mode::Container, false), ".");
    }

    #[test]
    fn deep_nesting_is_scanned_without_recursion() {
        let depth = 200_000;
        let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let at = depth + 1;
        assert_eq!(path_at(&text, at, Mode::Member, false), "[0]".repeat(depth));
        let text = format!("{}1{}", r#"{"k":"#.repeat(depth), "}".repeat(depth));
        let expected = vec!["k"; depth].join(".");
        assert_eq!(path_at(&text, depth * 5 + 1, Mode::Member, false), expected);
        // serde_json stops at its recursion limit, and says where.
        let text = format!(r#"{{"deep": {}{}}}"#, "[".repeat(200), "]".repeat(200));
        let (at, message) = located(&text);
        assert_eq!(message, "recursion limit exceeded");
        assert_eq!(at, format!("deep{}", "[0]".repeat(126)));
    }
}
