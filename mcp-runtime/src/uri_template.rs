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

    /// Matches a URI, returning the variable values: simple ones (`{var}`) percent-decoded,
    /// reserved ones (`{+var}`) as they are. A simple value is non-empty and never contains `/`,
    /// `?` or `#`; a reserved one may be empty and contain anything; values split only at char
    /// boundaries. Where a URI can be split in several ways, each variable, first to last,
    /// takes the shortest value for which the rest of the template still matches.
    ///
    /// Time is O(n·k + n·L) for a URI of n bytes and a template of k parts whose literals total
    /// L bytes, whatever the template: a backward pass marks, for each part and position,
    /// whether the rest of the template can match the rest of the URI (one bitset per part),
    /// and a forward pass then takes each variable's shortest feasible value. The literals at
    /// either end are compared first, so a URI of another scheme is refused at once, and a
    /// template with at most one variable is matched without the tables (and, fixed, without
    /// allocating). URIs longer than 8 KiB never match: client input stays bounded anyway.
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        // The literals at either end must be the URI's ends.
        let mut parts = &self.parts[..];
        let mut rest = uri;
        while let Some((Part::Literal(lit), tail)) = parts.split_first() {
            rest = rest.strip_prefix(lit.as_str())?;
            parts = tail;
        }
        while let Some((Part::Literal(lit), head)) = parts.split_last() {
            rest = rest.strip_suffix(lit.as_str())?;
            parts = head;
        }
        let mut out = HashMap::new();
        match parts {
            [] => rest.is_empty().then_some(out),
            // One variable: its value is what the literals leave.
            [Part::Var { name, reserved }] => {
                if !reserved && (rest.is_empty() || rest.contains(DELIMITERS)) {
                    return None;
                }
                out.insert(name.clone(), value_of(rest, *reserved));
                Some(out)
            }
            _ => {
                match_linear(parts, rest, &mut out)?;
                Some(out)
            }
        }
    }

    /// Why the template can match a URI in more than one way, if it can: two variables with a
    /// literal between them that the first may itself contain (it is reserved, or the literal
    /// has none of `/`, `?` and `#`), shown by an example URI that does split in two ways.
    /// Matching then takes the shortest first value, which may not be what the author meant.
    pub(crate) fn ambiguity(&self) -> Option<String> {
        for (at, window) in self.parts.windows(3).enumerate() {
            let [
                Part::Var {
                    name: first,
                    reserved,
                },
                Part::Literal(lit),
                Part::Var {
                    name: second,
                    reserved: second_reserved,
                },
            ] = window
            else {
                continue;
            };
            if !reserved && lit.contains(DELIMITERS) {
                continue;
            }
            let example = self.example(at, lit);
            if count_splits(&self.parts, &example) < 2 {
                continue;
            }
            let shown = |name: &str, reserved: bool| {
                format!("`{{{}{name}}}`", if reserved { "+" } else { "" })
            };
            let (a, b) = (shown(first, *reserved), shown(second, *second_reserved));
            let fix = if *reserved {
                format!("make {a} a simple variable, or make the values unambiguous")
            } else {
                "put a `/` between them, or make the values unambiguous".to_owned()
            };
            return Some(format!(
                "{a} and {b} in `{}` are separated by `{lit}`, which {a} may itself contain: a URI \
                 such as `{example}` can be split in several ways; the shortest first value is \
                 taken ({fix})",
                self.source
            ));
        }
        None
    }

    /// The template expanded with values `1`, `2`, ..., the variable at part `at` given one
    /// that contains `lit` (`1.2` for `.`).
    fn example(&self, at: usize, lit: &str) -> String {
        let mut out = String::new();
        let mut n = 1;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(l) => out.push_str(l),
                Part::Var { .. } if i == at => {
                    out.push_str(&format!("{n}{lit}{}", n + 1));
                    n += 2;
                }
                Part::Var { .. } => {
                    out.push_str(&n.to_string());
                    n += 1;
                }
            }
        }
        out
    }
}

/// Bytes a simple variable (`{var}`) never contains.
const DELIMITERS: [char; 3] = ['/', '?', '#'];

fn is_delimiter(b: u8) -> bool {
    matches!(b, b'/' | b'?' | b'#')
}

fn value_of(raw: &str, reserved: bool) -> String {
    if reserved {
        raw.to_owned()
    } else {
        percent_decode(raw)
    }
}

/// For each part `i` and byte position `p` of the input, whether `parts[i..]` can match
/// `input[p..]`: row `i` of a bitset over positions `0..=n`.
struct Feasible {
    words: usize,
    bits: Vec<u64>,
}

impl Feasible {
    /// The backward pass: row `k` holds only `n`; row `i` follows from row `i + 1` in O(n) for a
    /// variable (a sweep from the right keeping the next feasible end and the next delimiter)
    /// and O(n·len) for a literal.
    fn new(parts: &[Part], input: &str) -> Self {
        let bytes = input.as_bytes();
        let n = bytes.len();
        let words = n / 64 + 1;
        let mut bits = vec![0u64; (parts.len() + 1) * words];
        set(&mut bits[parts.len() * words..], n);
        for (i, part) in parts.iter().enumerate().rev() {
            let (head, tail) = bits.split_at_mut((i + 1) * words);
            let (row, next) = (&mut head[i * words..], &tail[..words]);
            match part {
                Part::Literal(lit) => {
                    let lit = lit.as_bytes();
                    let mut end = lit.len();
                    while let Some(e) = next_set(next, end) {
                        let p = e - lit.len();
                        if &bytes[p..e] == lit {
                            set(row, p);
                        }
                        end = e + 1;
                    }
                }
                Part::Var { reserved: true, .. } => {
                    // Some end at or after `p` is feasible.
                    let mut feasible = false;
                    for p in (0..=n).rev() {
                        feasible |= get(next, p);
                        if feasible && input.is_char_boundary(p) {
                            set(row, p);
                        }
                    }
                }
                Part::Var {
                    reserved: false, ..
                } => {
                    // The first feasible end after `p`, and the first delimiter at or after it:
                    // a value is `input[p..e]` for a feasible `e` in `p + 1..=delimiter`.
                    let (mut end, mut delimiter) = (usize::MAX, n);
                    for p in (0..=n).rev() {
                        if p < n && is_delimiter(bytes[p]) {
                            delimiter = p;
                        }
                        if end <= delimiter && input.is_char_boundary(p) {
                            set(row, p);
                        }
                        if get(next, p) {
                            end = p;
                        }
                    }
                }
            }
        }
        Feasible { words, bits }
    }

    fn get(&self, row: usize, p: usize) -> bool {
        get(&self.bits[row * self.words..][..self.words], p)
    }

    /// The first feasible position of row `row` at or after `from`.
    fn next(&self, row: usize, from: usize) -> Option<usize> {
        next_set(&self.bits[row * self.words..][..self.words], from)
    }
}

fn get(row: &[u64], p: usize) -> bool {
    row[p / 64] >> (p % 64) & 1 == 1
}

fn set(row: &mut [u64], p: usize) {
    row[p / 64] |= 1 << (p % 64);
}

fn next_set(row: &[u64], from: usize) -> Option<usize> {
    let mut w = from / 64;
    let mut word = *row.get(w)? & (!0u64 << (from % 64));
    loop {
        if word != 0 {
            return Some(w * 64 + word.trailing_zeros() as usize);
        }
        w += 1;
        word = *row.get(w)?;
    }
}

/// Matches `parts` against all of `input` in O(n·k + n·L): the backward pass of [`Feasible`],
/// then a forward pass that gives each variable, first to last, its shortest value after which
/// the rest still matches (what trying every split point, shortest first, finds).
fn match_linear(parts: &[Part], input: &str, out: &mut HashMap<String, String>) -> Option<()> {
    let table = Feasible::new(parts, input);
    if !table.get(0, 0) {
        return None;
    }
    let mut pos = 0;
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Literal(lit) => pos += lit.len(),
            Part::Var { name, reserved } => {
                // Row `i` holds `pos`, so a feasible end follows (within the segment if simple).
                let end = table.next(i + 1, pos + usize::from(!*reserved))?;
                out.insert(name.clone(), value_of(&input[pos..end], *reserved));
                pos = end;
            }
        }
    }
    Some(())
}

/// In how many ways `parts` match all of `input`, up to 2: O(n²·k), for the short example URIs
/// of [`UriTemplate::ambiguity`] only (at build time, never on client input).
fn count_splits(parts: &[Part], input: &str) -> u8 {
    let bytes = input.as_bytes();
    let n = bytes.len();
    let mut next = vec![0u8; n + 1];
    next[n] = 1;
    for part in parts.iter().rev() {
        let mut row = vec![0u8; n + 1];
        for (p, count) in row.iter_mut().enumerate() {
            if !input.is_char_boundary(p) {
                continue;
            }
            *count = match part {
                Part::Literal(lit) if bytes[p..].starts_with(lit.as_bytes()) => next[p + lit.len()],
                Part::Literal(_) => 0,
                Part::Var { reserved, .. } => {
                    let mut sum = 0u8;
                    for e in p + usize::from(!*reserved)..=n {
                        if !reserved && is_delimiter(bytes[e - 1]) {
                            break;
                        }
                        sum = sum.saturating_add(next[e]).min(2);
                    }
                    sum
                }
            };
        }
        next = row;
    }
    next[0]
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
    use std::time::{Duration, Instant};

    /// The matcher this module had before: every split point, shortest first, recursively
    /// (cubic in the URI's length for three variables in one segment). The oracle of the tests.
    fn backtracking(t: &UriTemplate, uri: &str) -> Option<HashMap<String, String>> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut out = HashMap::new();
        match_parts(&t.parts, uri, &mut out).then_some(out)
    }

    fn match_parts(parts: &[Part], input: &str, out: &mut HashMap<String, String>) -> bool {
        match parts.split_first() {
            None => input.is_empty(),
            Some((Part::Literal(lit), rest)) => match input.strip_prefix(lit.as_str()) {
                Some(tail) => match_parts(rest, tail, out),
                None => false,
            },
            Some((Part::Var { name, reserved }, rest)) => {
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
        let t = UriTemplate::parse("semver://{major}.{minor}.{patch}").unwrap();
        let v = t.matches("semver://1.2.3.4").unwrap();
        assert_eq!(
            (&*v["major"], &*v["minor"], &*v["patch"]),
            ("1", "2", "3.4")
        );
        assert!(t.matches("semver://1.2.3/").is_none());
        assert!(t.matches("other://1.2.3").is_none());
    }

    /// xorshift64*: a fixed sequence, so a failure is reproducible.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
        fn text(&mut self, from: &[&str], max: usize) -> String {
            (0..self.below(max + 1)).map(|_| self.pick(from)).collect()
        }
    }

    const LITERALS: &[&str] = &[".", "/", "-", "ab", "a", "é", "?", "#", "//", ".a"];
    const PIECES: &[&str] = &[
        ".", "/", "-", "a", "b", "é", "?", "#", "%", "2", "0", "%20", "%C3%A9", "ab",
    ];

    fn template(rng: &mut Rng, at: usize) -> String {
        let mut t = String::new();
        if rng.below(3) > 0 {
            t.push_str(rng.pick(&["s://", "x:", "s:/"]));
        }
        for v in 0..rng.below(5) {
            if v > 0 || rng.below(2) == 0 {
                let lit = rng.text(LITERALS, 2);
                t.push_str(if lit.is_empty() && v > 0 { "." } else { &lit });
            }
            let plus = if rng.below(3) == 0 { "+" } else { "" };
            t.push_str(&format!("{{{plus}v{v}_{at}}}"));
        }
        t.push_str(&rng.text(LITERALS, 2));
        t
    }

    /// `t` expanded with random values (so that many URIs match), now and then altered.
    fn uri(rng: &mut Rng, t: &UriTemplate) -> String {
        let mut u = String::new();
        for part in &t.parts {
            match part {
                Part::Literal(lit) => u.push_str(lit),
                Part::Var { .. } => u.push_str(&rng.text(PIECES, 4)),
            }
        }
        match rng.below(6) {
            0 => u.push_str(rng.pick(PIECES)),
            1 => u.insert_str(0, rng.pick(PIECES)),
            2 => u = rng.text(PIECES, 8),
            _ => {}
        }
        u
    }

    #[test]
    fn the_linear_matcher_agrees_with_the_backtracking_one() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut cases, mut matched, mut split) = (0, 0, 0);
        for at in 0..3000 {
            let text = template(&mut rng, at);
            let t = UriTemplate::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            for _ in 0..40 {
                let u = uri(&mut rng, &t);
                let (new, old) = (t.matches(&u), backtracking(&t, &u));
                assert_eq!(new, old, "template `{text}`, URI `{u}`");
                cases += 1;
                matched += usize::from(old.is_some());
                split += usize::from(old.is_some() && count_splits(&t.parts, &u) > 1);
            }
        }
        println!("{cases} cases, {matched} matched, {split} of them in several ways");
        assert!(
            matched > cases / 4 && split > cases / 50,
            "{matched} {split}"
        );
        // Edge cases by hand: multibyte values, empty reserved values, delimiters.
        for (text, u) in [
            ("x://{a}é{b}", "x://ééé"),
            ("x://{+a}é{+b}", "x://éé"),
            ("x://{a}.{b}", "x://é.é.é"),
            ("x://{+a}/{b}", "x://a/b/c"),
            ("x://{a}?{+b}", "x://a?b?c#d"),
            ("x://{a}", "x://"),
            ("x://{+a}", "x://"),
            ("{a}", "%C3%A9"),
            ("{a}.{+b}.", ".."),
            ("a{+b}a", "a"),
        ] {
            let t = UriTemplate::parse(text).unwrap();
            assert_eq!(
                t.matches(u),
                backtracking(&t, u),
                "template `{text}`, URI `{u}`"
            );
        }
    }

    /// `scheme` then `filler` repeated, then `tail`: at most 8 KiB.
    fn long_uri(scheme: &str, filler: &str, tail: &str, max: usize) -> String {
        let times = (max - scheme.len() - tail.len()) / filler.len();
        format!("{scheme}{}{tail}", filler.repeat(times))
    }

    #[test]
    fn adversarial_uris_match_in_linear_time() {
        let templates = [
            "semver://{major}.{minor}.{patch}",
            "semver://{major}.{minor}.{patch}.{build}",
            "x://{+a}.{+b}.{c}",
            "x://{+a}/{+b}/{+c}/{d}",
            "x://{a}.{+b}.{c}.{+d}",
            "x://{+a}{+b}",
        ];
        let mut worst = (Duration::ZERO, String::new());
        for text in templates {
            let Ok(t) = UriTemplate::parse(text) else {
                continue;
            };
            let scheme = &text[..text.find("://").unwrap() + 3];
            for filler in [".", "./", "/", ".é", "/."] {
                for tail in ["/", "", "#", "x"] {
                    let u = long_uri(scheme, filler, tail, MAX_URI_LEN);
                    assert!(u.len() <= MAX_URI_LEN);
                    let at = Instant::now();
                    let got = t.matches(&u);
                    let took = at.elapsed();
                    if took > worst.0 {
                        worst = (took, format!("`{text}` on {filler:?}… {tail:?}"));
                    }
                    if text.starts_with("semver") && tail == "/" {
                        assert!(got.is_none(), "{text}");
                    }
                    // The same shape, short enough for the old matcher: the same answer.
                    let short = long_uri(scheme, filler, tail, 64);
                    assert_eq!(t.matches(&short), backtracking(&t, &short), "{short}");
                }
            }
        }
        println!("the slowest 8 KiB match took {:?} ({})", worst.0, worst.1);
        assert!(worst.0 < Duration::from_secs(2), "{worst:?}");

        // The old matcher on a much shorter URI, for comparison (it is cubic).
        let t = UriTemplate::parse("semver://{major}.{minor}.{patch}").unwrap();
        let u = format!("semver://{}/", ".".repeat(200));
        let at = Instant::now();
        assert!(backtracking(&t, &u).is_none());
        let old = at.elapsed();
        let at = Instant::now();
        assert!(t.matches(&u).is_none());
        println!("200 dots: backtracking {old:?}, linear {:?}", at.elapsed());
    }

    /// The measure of the old matcher on the URI of the report (seconds of CPU): run with
    /// `--ignored`.
    #[test]
    #[ignore]
    fn the_backtracking_matcher_on_1600_dots() {
        let t = UriTemplate::parse("semver://{major}.{minor}.{patch}").unwrap();
        let u = format!("semver://{}/", ".".repeat(1600));
        let at = Instant::now();
        assert!(backtracking(&t, &u).is_none());
        let old = at.elapsed();
        let at = Instant::now();
        assert!(t.matches(&u).is_none());
        println!("1600 dots: backtracking {old:?}, linear {:?}", at.elapsed());
    }

    #[test]
    fn ambiguous_templates_are_told() {
        let t = UriTemplate::parse("semver://{major}.{minor}.{patch}").unwrap();
        assert_eq!(
            t.ambiguity().unwrap(),
            "`{major}` and `{minor}` in `semver://{major}.{minor}.{patch}` are separated by `.`, \
             which `{major}` may itself contain: a URI such as `semver://1.2.3.4` can be split in \
             several ways; the shortest first value is taken (put a `/` between them, or make the \
             values unambiguous)"
        );
        for text in [
            "x://{a}-{b}",
            "x://{a}.{+b}",
            "x://{+dir}/{name}/{+rest}",
            "x://{+a}.{b}",
            "x://{id}/{a}_{b}",
        ] {
            let t = UriTemplate::parse(text).unwrap();
            let why = t
                .ambiguity()
                .unwrap_or_else(|| panic!("{text} is ambiguous"));
            // The example in the sentence does split in several ways.
            let example = why
                .split("such as `")
                .nth(1)
                .unwrap()
                .split('`')
                .next()
                .unwrap();
            assert!(count_splits(&t.parts, example) > 1, "{why}");
        }
        let t = UriTemplate::parse("x://{+dir}/{name}/{+rest}").unwrap();
        assert!(
            t.ambiguity()
                .unwrap()
                .contains("make `{+dir}` a simple variable")
        );
        for text in [
            "users://{id}/profile",
            "file:///{+path}",
            "items://{id}/detail{+rest}",
            "x://fixed",
            "x://{a}.json",
            "x://{a}/{b}?{c}#{+d}",
            // `{+dir}` may contain `/`, but `{name}` may not: the last `/` separates them.
            "x://{+dir}/{name}",
            "x://{+dir}/{a}/{b}",
        ] {
            let t = UriTemplate::parse(text).unwrap();
            assert_eq!(t.ambiguity(), None, "{text}");
        }
    }
}
