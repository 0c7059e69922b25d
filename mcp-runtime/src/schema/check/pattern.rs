//! `pattern`: the common shape (anchors, literals, classes, `.`, repeats of one of them; no
//! groups or alternatives) matched by bit-parallel Shift-And over at most 64 positions, the
//! rest by `regex-lite` (the `regex` feature). Both read patterns alike (ASCII `\d`, `\w`,
//! `\s`; `.` any but a newline); the tests compare them.
//!
//! Hand-written in front of `regex-lite`: its PikeVM dominated a call with patterned arguments
//! (BENCHMARKS.md, "Checking arguments without an engine"); and it makes `regex-lite` (2.4 s
//! of a release build) needed only by servers whose patterns have more.

/// A compiled `pattern`.
pub(super) enum Pattern {
    Simple(Box<ShiftAnd>),
    #[cfg(feature = "regex")]
    Lite(regex_lite::Regex),
}

/// Why a `pattern` was not compiled.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Unread {
    /// It has more than the common shape, and the `regex` feature is off.
    #[cfg(not(feature = "regex"))]
    NeedsRegex,
    /// `regex-lite` cannot read it either (look-around, Unicode classes).
    #[cfg(feature = "regex")]
    Unreadable,
}

impl Pattern {
    /// Compiles `source`.
    pub(super) fn new(source: &str) -> Result<Pattern, Unread> {
        if let Some(simple) = ShiftAnd::parse(source) {
            return Ok(Pattern::Simple(Box::new(simple)));
        }
        #[cfg(feature = "regex")]
        return regex_lite::Regex::new(source)
            .map(Pattern::Lite)
            .map_err(|_| Unread::Unreadable);
        #[cfg(not(feature = "regex"))]
        Err(Unread::NeedsRegex)
    }

    /// Whether `s` has a match (anywhere, unless anchored).
    pub(super) fn is_match(&self, s: &str) -> bool {
        match self {
            Pattern::Simple(p) => p.is_match(s),
            #[cfg(feature = "regex")]
            Pattern::Lite(re) => re.is_match(s),
        }
    }
}

/// A set of characters: ranges, maybe negated.
#[derive(Clone)]
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
}

impl Class {
    fn one(c: char) -> Class {
        Class {
            negated: false,
            ranges: vec![(c, c)],
        }
    }

    fn has(&self, c: char) -> bool {
        self.ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != self.negated
    }
}

/// The ASCII classes of `\d`, `\w`, `\s` (upper case: negated).
fn perl_class(letter: char) -> Option<Class> {
    let ranges = match letter.to_ascii_lowercase() {
        'd' => vec![('0', '9')],
        'w' => vec![('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')],
        's' => vec![('\t', '\r'), (' ', ' ')],
        _ => return None,
    };
    Some(Class {
        negated: letter.is_ascii_uppercase(),
        ranges,
    })
}

/// A character escaped with `\` that stands for itself (or a control character).
fn escaped_char(c: char) -> Option<char> {
    match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        c if c.is_ascii_punctuation() => Some(c),
        _ => None,
    }
}

/// The pattern as positions, one class each: Shift-And's state is one bit per position.
pub(super) struct ShiftAnd {
    classes: Vec<Class>,
    /// For each ASCII character, the positions whose class holds it.
    ascii: [u64; 128],
    /// Positions that may be skipped, and positions that may repeat.
    optional: u64,
    repeat: u64,
    /// The positions skippable from the start.
    lead: u64,
    starts: bool,
    ends: bool,
}

impl ShiftAnd {
    /// Reads `source` when it has the simple shape; `None` sends it to regex-lite.
    fn parse(source: &str) -> Option<ShiftAnd> {
        let mut chars = source.chars().peekable();
        let starts = chars.next_if_eq(&'^').is_some();
        let mut classes: Vec<Class> = Vec::new();
        let (mut optional, mut repeat) = (0u64, 0u64);
        let mut ends = false;
        while let Some(c) = chars.next() {
            let class = match c {
                '$' if chars.peek().is_none() => {
                    ends = true;
                    break;
                }
                '.' => Class {
                    negated: true,
                    ranges: vec![('\n', '\n')],
                },
                '\\' => {
                    let e = chars.next()?;
                    match perl_class(e) {
                        Some(class) => class,
                        None => Class::one(escaped_char(e)?),
                    }
                }
                '[' => bracket(&mut chars)?,
                '^' | '$' | '(' | ')' | '|' | '*' | '+' | '?' | '{' | '}' | ']' => return None,
                c => Class::one(c),
            };
            let (min, max) = quantifier(&mut chars)?;
            let copies = max.unwrap_or(min.max(1));
            if classes.len() + copies > 64 || copies == 0 {
                return None;
            }
            for i in 0..copies {
                let bit = 1u64 << classes.len();
                if i >= min {
                    optional |= bit;
                }
                if max.is_none() && i + 1 == copies {
                    repeat |= bit;
                }
                classes.push(class.clone());
            }
        }
        let mut ascii = [0u64; 128];
        for (c, mask) in ascii.iter_mut().enumerate() {
            let c = char::from(c as u8);
            for (i, class) in classes.iter().enumerate() {
                if class.has(c) {
                    *mask |= 1 << i;
                }
            }
        }
        let lead = (0..classes.len())
            .take_while(|i| optional & (1 << i) != 0)
            .fold(0u64, |m, i| m | 1 << i);
        Some(ShiftAnd {
            classes,
            ascii,
            optional,
            repeat,
            lead,
            starts,
            ends,
        })
    }

    fn mask(&self, c: char) -> u64 {
        match self.ascii.get(c as usize) {
            Some(mask) => *mask,
            None => (0..self.classes.len())
                .filter(|i| self.classes[*i].has(c))
                .fold(0u64, |m, i| m | 1 << i),
        }
    }

    /// The positions reached by skipping optional ones from `d` (and from the start).
    fn close(&self, mut d: u64, start: bool) -> u64 {
        if start {
            d |= self.lead;
        }
        loop {
            let next = d | ((d << 1) & self.optional);
            if next == d {
                return d;
            }
            d = next;
        }
    }

    fn is_match(&self, s: &str) -> bool {
        let n = self.classes.len();
        if n == 0 {
            return !(self.starts && self.ends) || s.is_empty();
        }
        // Every position may be skipped: the empty match, unless it must span the text.
        let empty = self.lead.count_ones() as usize == n;
        if empty && !(self.starts && self.ends) {
            return true;
        }
        (self.ends && s.is_empty() && empty) || self.run(s, !self.ends)
    }

    /// Runs the text through; with `anywhere` a match may end before the text does (no `$`).
    fn run(&self, s: &str, anywhere: bool) -> bool {
        let last = 1u64 << (self.classes.len() - 1);
        let mut d = self.close(0, true);
        for (i, c) in s.chars().enumerate() {
            let b = self.mask(c);
            // The start is open at the first character, and everywhere when unanchored.
            let start = u64::from(!self.starts || i == 0);
            d = self.close(
                (((d << 1) | start) & b) | (d & self.repeat & b),
                !self.starts,
            );
            if anywhere && d & last != 0 {
                return true;
            }
            if d == 0 && self.starts {
                return false;
            }
        }
        d & last != 0
    }
}

/// A bracketed class after its `[`; `None` for what only regex-lite reads (nested classes,
/// set operations, POSIX names, a leading `]`).
fn bracket(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<Class> {
    let negated = chars.next_if_eq(&'^').is_some();
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = chars.next()?;
        let lo = match c {
            ']' if !first => break,
            '[' | ']' | '&' | '~' => return None,
            '\\' => {
                let e = chars.next()?;
                if let Some(class) = perl_class(e) {
                    if class.negated {
                        return None;
                    }
                    ranges.extend(class.ranges);
                    first = false;
                    continue;
                }
                escaped_char(e)?
            }
            c => c,
        };
        first = false;
        if chars.next_if_eq(&'-').is_some() {
            match chars.peek() {
                Some(']') => {
                    ranges.push((lo, lo));
                    ranges.push(('-', '-'));
                    continue;
                }
                Some('-' | '[' | '\\' | '&' | '~') | None => return None,
                Some(_) => {
                    let hi = chars.next()?;
                    if hi < lo {
                        return None;
                    }
                    ranges.push((lo, hi));
                    continue;
                }
            }
        }
        ranges.push((lo, lo));
    }
    Some(Class { negated, ranges })
}

/// A quantifier after an atom: (min, max; `None` unbounded), `(1, Some(1))` when none.
fn quantifier(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
) -> Option<(usize, Option<usize>)> {
    let q = match chars.peek() {
        Some('?') => (0, Some(1)),
        Some('*') => (0, None),
        Some('+') => (1, None),
        Some('{') => {
            chars.next();
            let mut text = String::new();
            loop {
                match chars.next()? {
                    '}' => break,
                    c if c.is_ascii_digit() || c == ',' => text.push(c),
                    _ => return None,
                }
            }
            let q = match text.split_once(',') {
                None => {
                    let n = text.parse().ok()?;
                    (n, Some(n))
                }
                Some((lo, "")) => (lo.parse().ok()?, None),
                Some((lo, hi)) => (lo.parse().ok()?, Some(hi.parse().ok()?)),
            };
            if q.1.is_some_and(|hi| hi < q.0) || chars.next_if_eq(&'?').is_some() {
                return None;
            }
            return match chars.peek() {
                Some('?' | '*' | '+' | '{') => None,
                _ => Some(q),
            };
        }
        _ => return Some((1, Some(1))),
    };
    chars.next();
    chars.next_if_eq(&'?');
    match chars.peek() {
        Some('?' | '*' | '+' | '{') => None,
        _ => Some(q),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn the_fast_path_matches_as_regex_lite_does() {
        let patterns = [
            r"^\+?[0-9 ]{6,20}$",
            r"^[0-9A-Z -]{3,10}$",
            r"^[A-Za-z]+/[A-Za-z_]+$",
            r"^doc_",
            r"doc_\d+",
            r"a?b?c?$",
            r"^a*$",
            r"^(a|b)$",
            r"x.y",
            r"^[^a-c]{2}$",
            r"^\w+@\w+\.\w{2,}$",
            r"^a{2,}b{0,3}$",
            r"^[a\-z]\s\S$",
            r"^a?$",
            r"b*",
            r"",
            r"^$",
            r"^é[à-ü]+$",
            r"^[-a]+[b-]$",
        ];
        let alphabet: Vec<char> = "ab cxyz_/-+.@09AZé\nüà".chars().collect();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for source in patterns {
            let Ok(ours) = Pattern::new(source) else {
                // Only the `regex` feature reads a group.
                assert!(!cfg!(feature = "regex") && source.contains('('), "{source}");
                continue;
            };
            let lite = regex_lite::Regex::new(source).unwrap();
            let mut samples: Vec<String> = vec![String::new()];
            for _ in 0..3000 {
                let len = (rng.next() % 24) as usize;
                samples.push(
                    (0..len)
                        .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
                        .collect(),
                );
            }
            samples.extend(
                [
                    "+33 123 456",
                    "AB 12",
                    "Ab/c_d",
                    "doc_1",
                    "aaa",
                    "ab",
                    "x\ny",
                    "test@ex.com",
                ]
                .map(String::from),
            );
            for s in &samples {
                assert_eq!(ours.is_match(s), lite.is_match(s), "{source:?} on {s:?}");
            }
        }
        // The shapes the fast path takes, and those it leaves to regex-lite.
        assert!(matches!(
            Pattern::new(r"^\+?[0-9 ]{6,20}$"),
            Ok(Pattern::Simple(_))
        ));
        for other in [r"^(a|b)$", r"\bword", r"[[:alpha:]]", "(?i)a", "a{70}"] {
            #[cfg(feature = "regex")]
            assert!(
                matches!(Pattern::new(other), Ok(Pattern::Lite(_))),
                "{other}"
            );
            #[cfg(not(feature = "regex"))]
            assert!(
                matches!(Pattern::new(other), Err(Unread::NeedsRegex)),
                "{other}"
            );
        }
        // What neither reads (Unicode classes, look-around) goes to the full engine.
        for neither in [r"\p{L}", "(?=a)", "[a&&b]"] {
            assert!(Pattern::new(neither).is_err(), "{neither}");
        }
    }
}
