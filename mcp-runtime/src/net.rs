//! Host names in `Host`, `Origin` and URIs: the host part of an authority, and loopback names;
//! client addresses as the server counts them ([`ClientNet`]), and networks of addresses
//! ([`Network`]: trusted proxies).

use std::net::IpAddr;

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The host part of `host[:port]`, trimmed (IPv6 literals keep their brackets; case is kept:
/// compare with `eq_ignore_ascii_case`). No allocation: this runs on every request.
///
/// Strict about IPv6 literals: `[...]` may be followed by nothing or `:port` (digits) only.
/// Anything else (`[::1]evil.com`, `[::1].evil.com`, `[::1]:80x`) is no authority, and the
/// whole text is returned: no loopback name, nor any allowed host, equals it.
pub(crate) fn host_part(authority: &str) -> &str {
    let a = authority.trim();
    if a.starts_with('[') {
        return match a.find(']') {
            Some(i) if port_or_nothing(&a[i + 1..]) => &a[..=i],
            _ => a,
        };
    }
    // By bytes: `rsplit_once(':')` sets up a char searcher on every request (BENCHMARKS.md,
    // "Header checks").
    match a.bytes().rposition(|b| b == b':') {
        Some(i) if a.as_bytes()[i + 1..].iter().all(u8::is_ascii_digit) => &a[..i],
        _ => a,
    }
}

/// Whether what follows an IPv6 literal is nothing or `:port` (`port = *DIGIT`, RFC 3986).
fn port_or_nothing(rest: &str) -> bool {
    match rest.as_bytes().split_first() {
        None => true,
        Some((b':', port)) => port.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// Whether a host name (as [`host_part`] returns it) is this machine.
pub(crate) fn is_loopback(host: &str) -> bool {
    LOOPBACK.iter().any(|l| l.eq_ignore_ascii_case(host))
}

/// Whether a URL's host (`http::Uri::host`: an IPv6 literal in brackets) is this machine: a
/// loopback name, or any loopback address (`127.0.0.2` too). Where a plain-http URL may be
/// fetched (an authorization server's documents, a token endpoint): only from this machine.
#[cfg(any(feature = "jwt", feature = "client"))]
pub(crate) fn is_loopback_host(host: &str) -> bool {
    is_loopback(host)
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `text` as one key or value of `application/x-www-form-urlencoded` (what OAuth requests and
/// `client_secret_basic` credentials are sent as, RFC 6749 §2.3.1 and appendix B).
#[cfg(any(feature = "jwt", feature = "client"))]
pub(crate) fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A client as the server's per-caller shares and rate limit count it: its address, an IPv6
/// address by its network (a /64 by default: what one subscriber is given, so that a client
/// cannot pass for 2^64 clients). Two values are equal when their networks are; the whole
/// address is kept for logs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientNet {
    addr: IpAddr,
    /// Bits of an IPv6 address that tell clients apart (32 for IPv4).
    prefix: u8,
}

impl ClientNet {
    /// `addr` (an IPv4-mapped IPv6 address as the IPv4 address it is), grouped by `v6_prefix`
    /// bits when it is IPv6 (clamped to 1..=128).
    pub(crate) fn new(addr: IpAddr, v6_prefix: u8) -> ClientNet {
        let addr = addr.to_canonical();
        let prefix = match addr {
            IpAddr::V4(_) => 32,
            IpAddr::V6(_) => v6_prefix.clamp(1, 128),
        };
        ClientNet { addr, prefix }
    }

    /// The client's whole address.
    pub(crate) fn address(&self) -> IpAddr {
        self.addr
    }

    /// The network's first address: what tells this client apart.
    fn network(&self) -> IpAddr {
        match self.addr {
            IpAddr::V4(v4) => IpAddr::V4(v4),
            IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & mask(self.prefix)).into()),
        }
    }
}

/// The mask of the first `prefix` bits of an IPv6 address (`prefix` in 1..=128).
fn mask(prefix: u8) -> u128 {
    u128::MAX << (128 - u32::from(prefix.clamp(1, 128)))
}

impl PartialEq for ClientNet {
    fn eq(&self, other: &Self) -> bool {
        self.prefix == other.prefix && self.network() == other.network()
    }
}

impl Eq for ClientNet {}

impl std::hash::Hash for ClientNet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.network().hash(state);
    }
}

impl std::fmt::Display for ClientNet {
    /// The address (IPv4, or IPv6 counted one by one); else the network, `2001:db8::/64`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.addr {
            IpAddr::V6(_) if self.prefix < 128 => write!(f, "{}/{}", self.network(), self.prefix),
            addr => write!(f, "{addr}"),
        }
    }
}

/// A network of addresses, `10.0.0.0/8` or one address (`127.0.0.1`, `::1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Network {
    base: IpAddr,
    prefix: u8,
}

impl Network {
    /// Loopback: `127.0.0.0/8` and `::1`.
    pub(crate) const LOOPBACK: [Network; 2] = [
        Network {
            base: IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 0)),
            prefix: 8,
        },
        Network {
            base: IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            prefix: 128,
        },
    ];

    /// Reads `address` or `address/bits`; why not, in a sentence.
    pub(crate) fn parse(text: &str) -> Result<Network, String> {
        let text = text.trim();
        let (addr, bits) = match text.split_once('/') {
            Some((addr, bits)) => (addr, Some(bits)),
            None => (text, None),
        };
        let addr = addr
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .map_err(|_| format!("`{text}` is not an IP address or a network like 10.0.0.0/8"))?
            .to_canonical();
        let most = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match bits {
            None => most,
            Some(bits) => match bits.parse::<u8>() {
                Ok(b) if b <= most => b,
                _ => {
                    return Err(format!(
                        "`{text}`: the prefix length must be a number from 0 to {most}"
                    ));
                }
            },
        };
        Ok(Network { base: addr, prefix })
    }

    /// Whether `addr` is in the network (an IPv4-mapped IPv6 address as its IPv4 address).
    pub(crate) fn contains(&self, addr: IpAddr) -> bool {
        match (self.base, addr.to_canonical()) {
            (IpAddr::V4(base), IpAddr::V4(a)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(base) & mask == u32::from(a) & mask
            }
            (IpAddr::V6(base), IpAddr::V6(a)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(base) & mask == u128::from(a) & mask
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.base, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        assert_eq!(host_part("localhost:8000"), "localhost");
        assert_eq!(host_part("[::1]:8000"), "[::1]");
        assert_eq!(host_part(" 127.0.0.1"), "127.0.0.1");
        assert_eq!(host_part("Evil.example.com:80"), "Evil.example.com");
        assert!(is_loopback("LocalHost"));
        assert!(!is_loopback("localhost.evil.example"));
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_network() {
        let a = ClientNet::new("2001:db8:1:2::1".parse().unwrap(), 64);
        let b = ClientNet::new("2001:db8:1:2:ffff::9".parse().unwrap(), 64);
        let c = ClientNet::new("2001:db8:1:3::1".parse().unwrap(), 64);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
        assert_eq!(a.address().to_string(), "2001:db8:1:2::1");
        let hash = |n: &ClientNet| {
            use std::hash::{BuildHasher, BuildHasherDefault};
            BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(n)
        };
        assert_eq!(hash(&a), hash(&b));
        // One by one when asked; IPv4 always; a mapped IPv4 address is that address.
        let one = ClientNet::new("2001:db8::1".parse().unwrap(), 128);
        assert_eq!(one.to_string(), "2001:db8::1");
        let v4 = ClientNet::new("203.0.113.9".parse().unwrap(), 64);
        assert_eq!(v4.to_string(), "203.0.113.9");
        let mapped = ClientNet::new("::ffff:203.0.113.9".parse().unwrap(), 64);
        assert_eq!(mapped, v4);
        assert_eq!(mapped.to_string(), "203.0.113.9");
    }

    #[test]
    fn networks() {
        let ten = Network::parse("10.0.0.0/8").unwrap();
        assert!(ten.contains("10.200.1.1".parse().unwrap()));
        assert!(!ten.contains("11.0.0.1".parse().unwrap()));
        assert!(ten.contains("::ffff:10.0.0.1".parse().unwrap()));
        let one = Network::parse("192.0.2.7").unwrap();
        assert!(one.contains("192.0.2.7".parse().unwrap()));
        assert!(!one.contains("192.0.2.8".parse().unwrap()));
        let v6 = Network::parse("[fd00::]/8").unwrap();
        assert!(v6.contains("fd12::1".parse().unwrap()));
        assert!(!v6.contains("10.0.0.1".parse().unwrap()));
        assert!(
            Network::parse("0.0.0.0/0")
                .unwrap()
                .contains("8.8.8.8".parse().unwrap())
        );
        assert!(
            Network::LOOPBACK
                .iter()
                .any(|n| n.contains("127.0.0.5".parse().unwrap()))
        );
        assert!(
            Network::LOOPBACK
                .iter()
                .any(|n| n.contains("::1".parse().unwrap()))
        );
        for bad in [
            "10.0.0.0/33",
            "nowhere",
            "10.0.0/8",
            "::1/129",
            "1.2.3.4/x",
            "",
        ] {
            assert!(Network::parse(bad).is_err(), "{bad}");
        }
    }

    /// An IPv6 literal followed by anything but `:port` is not that literal.
    #[test]
    fn an_ipv6_literal_is_followed_by_a_port_or_nothing() {
        assert_eq!(host_part("[::1]"), "[::1]");
        assert_eq!(host_part("[::1]:"), "[::1]");
        assert_eq!(host_part(" [::1]:443 "), "[::1]");
        for bad in [
            "[::1]evil.com",
            "[::1].evil.com",
            "[::1]:80evil.com",
            "[::1]:80:80",
            "[::1]@evil.com",
            "[::1]/x",
            "[::1]]",
            "[::1",
        ] {
            assert_eq!(host_part(bad), bad, "{bad}");
            assert!(!is_loopback(host_part(bad)), "{bad}");
        }
    }
}
