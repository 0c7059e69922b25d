//! The `format`s the built-in checker asserts (RFC 3339 dates and times, RFC 5321 email
//! addresses, RFC 1123 host names, IP addresses, RFC 3986 absolute URIs, UUIDs), each a
//! linear scan of the string. Formats the full engine would assert and these do not are
//! refused at build (`Format::of`); unknown ones are annotations, as in the engine.

use std::net::{Ipv4Addr, Ipv6Addr};

/// One asserted format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    DateTime,
    Date,
    Time,
    Email,
    Hostname,
    Ipv4,
    Ipv6,
    Uri,
    Uuid,
}

/// Formats the full engine asserts that the built-in checker does not.
const ENGINE_ONLY: &[&str] = &[
    "idn-email",
    "idn-hostname",
    "iri",
    "iri-reference",
    "uri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
    "duration",
];

impl Format {
    /// The format named `name`: `Ok(None)` for an annotation, `Err` for one only the full
    /// engine asserts.
    pub(super) fn of(name: &str) -> Result<Option<Format>, String> {
        Ok(Some(match name {
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "time" => Format::Time,
            "email" => Format::Email,
            "hostname" => Format::Hostname,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "uri" => Format::Uri,
            "uuid" => Format::Uuid,
            other if ENGINE_ONLY.contains(&other) => {
                return Err(format!("asserts the `{other}` format"));
            }
            _ => return Ok(None),
        }))
    }

    /// The name the schema gave.
    pub(super) fn name(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Time => "time",
            Format::Email => "email",
            Format::Hostname => "hostname",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
            Format::Uri => "uri",
            Format::Uuid => "uuid",
        }
    }

    /// Whether `s` is in this format.
    pub(super) fn accepts(self, s: &str) -> bool {
        match self {
            Format::DateTime => date_time(s),
            Format::Date => date(s),
            Format::Time => time(s),
            Format::Email => email(s),
            Format::Hostname => hostname(s),
            Format::Ipv4 => s.parse::<Ipv4Addr>().is_ok(),
            Format::Ipv6 => s.parse::<Ipv6Addr>().is_ok(),
            Format::Uri => uri(s),
            Format::Uuid => uuid(s),
        }
    }
}

/// `n` ASCII digits as a number.
fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
    })
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a day the month has.
fn date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..]))
    else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `full-time`: `HH:MM:SS[.frac]` and `Z` or `±HH:MM`; a leap second only at
/// 23:59:60 UTC.
fn time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[..2]), digits(&b[3..5]), digits(&b[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &b[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    // Minutes east of UTC.
    let offset: i32 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(h), Some(m)) = (digits(&[*h1, *h2]), digits(&[*m1, *m2])) else {
                return false;
            };
            if h > 23 || m > 59 {
                return false;
            }
            let minutes = (h * 60 + m) as i32;
            if *sign == b'+' { minutes } else { -minutes }
        }
        _ => return false,
    };
    if second == 60 {
        let utc = ((hour * 60 + minute) as i32 - offset).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

/// RFC 3339 `date-time`: a date, `T`, a time.
fn date_time(s: &str) -> bool {
    match s.find(['T', 't']) {
        Some(at) => date(&s[..at]) && time(&s[at + 1..]),
        None => false,
    }
}

/// RFC 1123 host name: labels of letters, digits and inner hyphens, 1–63 bytes each, 253 in
/// all, no trailing dot; a hyphen in the third and fourth places only in an `xn--` label.
fn hostname(s: &str) -> bool {
    if s.is_empty() || s.len() > 253 {
        return false;
    }
    s.split('.').all(|label| {
        let b = label.as_bytes();
        !b.is_empty()
            && b.len() <= 63
            && b[0] != b'-'
            && b[b.len() - 1] != b'-'
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
            && (b.len() < 4 || &b[2..4] != b"--" || b[..2].eq_ignore_ascii_case(b"xn"))
    })
}

/// RFC 5322 `atext`.
fn atext(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&c)
}

/// RFC 5321 `Mailbox`: a dot-atom or quoted local part (64 bytes at most), `@`, a host name
/// or an address literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`).
fn email(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s.as_bytes()[..at], &s[at + 1..]);
    let local_ok = match local {
        [b'"', inner @ .., b'"'] => {
            let mut escaped = false;
            inner.iter().all(|&c| {
                let ok = match escaped {
                    true => (b' '..=b'~').contains(&c),
                    false => c != b'"' && (c == b' ' || c == b'\\' || (b'!'..=b'~').contains(&c)),
                };
                escaped = !escaped && c == b'\\';
                ok
            }) && !escaped
        }
        _ => {
            !local.is_empty()
                && local
                    .split(|c| *c == b'.')
                    .all(|atom| !atom.is_empty() && atom.iter().all(|c| atext(*c)))
        }
    };
    if !local_ok || local.len() > 64 {
        return false;
    }
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => {
                literal[5..].parse::<Ipv6Addr>().is_ok()
            }
            _ => literal.parse::<Ipv4Addr>().is_ok(),
        },
        None => hostname(domain),
    }
}

/// RFC 3986 `unreserved` or `sub-delims`.
fn plain(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&c)
}

/// Whether `b` is made of `plain` bytes, percent-escapes and the bytes of `extra`.
fn uri_chars(b: &[u8], extra: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
                {
                    return false;
                }
                i += 3;
            }
            c if plain(c) || extra.contains(&c) => i += 1,
            _ => return false,
        }
    }
    true
}

/// RFC 3986 `absolute-URI` with an optional fragment: `scheme:hier-part[?query][#fragment]`.
fn uri(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let scheme = &s.as_bytes()[..colon];
    if scheme.is_empty()
        || !scheme[0].is_ascii_alphabetic()
        || !scheme
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
    {
        return false;
    }
    let rest = &s[colon + 1..];
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (hier, query) = rest.split_once('?').unwrap_or((rest, ""));
    if !uri_chars(fragment.as_bytes(), b":@/?") || !uri_chars(query.as_bytes(), b":@/?") {
        return false;
    }
    let path = match hier.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            if !authority(&after[..end]) {
                return false;
            }
            &after[end..]
        }
        None => hier,
    };
    uri_chars(path.as_bytes(), b":@/")
}

/// RFC 3986 `authority`: `[userinfo@]host[:port]`.
fn authority(a: &str) -> bool {
    let (userinfo, hostport) = match a.rfind('@') {
        Some(at) => (&a[..at], &a[at + 1..]),
        None => ("", a),
    };
    if !uri_chars(userinfo.as_bytes(), b":") {
        return false;
    }
    let (host, port) = match hostport.strip_prefix('[') {
        Some(literal) => match literal.split_once(']') {
            Some((inside, after)) => {
                let ok = inside.parse::<Ipv6Addr>().is_ok()
                    || (inside.starts_with(['v', 'V'])
                        && inside.contains('.')
                        && uri_chars(&inside.as_bytes()[1..], b":"));
                if !ok {
                    return false;
                }
                ("", after)
            }
            None => return false,
        },
        None => match hostport.rfind(':') {
            Some(c) => (&hostport[..c], &hostport[c..]),
            None => (hostport, ""),
        },
    };
    let port_ok = match port.strip_prefix(':') {
        Some(digits) => digits.bytes().all(|c| c.is_ascii_digit()),
        None => port.is_empty(),
    };
    port_ok && uri_chars(host.as_bytes(), b"")
}

/// A hyphenated UUID: `8-4-4-4-12` hexadecimal digits.
fn uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_accepts_and_refuses() {
        let cases: &[(Format, &[&str], &[&str])] = &[
            (
                Format::DateTime,
                &[
                    "2025-01-31T09:30:00Z",
                    "1990-12-31T23:59:60Z",
                    "1990-12-31t15:59:60-08:00",
                    "2025-01-31T09:30:00.123+05:30",
                ],
                &[
                    "2025-01-31",
                    "2025-01-31T09:30:00",
                    "2025-02-30T09:30:00Z",
                    "2025-01-31T09:30:60Z",
                    "2025-01-31 09:30:00Z",
                ],
            ),
            (
                Format::Date,
                &["2024-02-29", "2025-12-31"],
                &["2025-02-29", "2025-13-01", "2025-1-01", "31/01"],
            ),
            (
                Format::Time,
                &["09:30:00Z", "23:59:60Z", "09:30:00.5+01:00"],
                &["09:30:00", "24:00:00Z", "09:30Z", "09:30:00.Z"],
            ),
            (
                Format::Email,
                &[
                    "a@example.com",
                    "first.last+tag@sub.example.org",
                    "\"quoted name\"@example.com",
                    "x@[192.0.2.1]",
                    "x@[IPv6:2001:db8::1]",
                ],
                &[
                    "nope",
                    "a@",
                    "@example.com",
                    "a..b@example.com",
                    ".a@example.com",
                    "a@-example.com",
                    "a b@example.com",
                ],
            ),
            (
                Format::Hostname,
                &["example.com", "a-b.c", "xn--bcher-kva.example"],
                &[
                    "",
                    "-a.com",
                    "a-.com",
                    "a..b",
                    "example.com.",
                    "ab--cd.com",
                    "a_b.com",
                ],
            ),
            (
                Format::Ipv4,
                &["192.0.2.1"],
                &["192.0.2", "256.0.0.1", "01.2.3.4"],
            ),
            (
                Format::Ipv6,
                &["::1", "2001:db8::1"],
                &["2001:db8:::1", "192.0.2.1"],
            ),
            (
                Format::Uri,
                &[
                    "https://example.com/a",
                    "urn:isbn:0451450523",
                    "mailto:a@example.com",
                    "http://[::1]:8080/x?y=1#z",
                    "file:///tmp/a%20b",
                ],
                &[
                    "example.com",
                    "/relative",
                    "https://exa mple.com",
                    "ht tp://x",
                    "1http://x",
                    "http://x/%zz",
                    "http://[::1/",
                ],
            ),
            (
                Format::Uuid,
                &["123e4567-e89b-12d3-a456-426614174000"],
                &[
                    "123e4567e89b12d3a456426614174000",
                    "123e4567-e89b-12d3-a456-42661417400g",
                ],
            ),
        ];
        for (format, good, bad) in cases {
            for s in *good {
                assert!(format.accepts(s), "{format:?} accepts {s:?}");
            }
            for s in *bad {
                assert!(!format.accepts(s), "{format:?} refuses {s:?}");
            }
        }
    }
}
