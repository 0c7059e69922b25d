//! The server's DPoP nonce (RFC 9449 §9), kept in no memory: the time it was made, sealed with
//! the key ring that seals `requestState` (AES-256-GCM-SIV), so that only this server (or one
//! holding its keys) makes one, and a nonce expires with its lifetime.

use crate::seal::KeyRing;

/// What the sealed plaintext starts with: a nonce is never taken for another sealed thing (a
/// `requestState` record starts with its format byte, 1), nor another for a nonce.
const DOMAIN: &[u8] = b"\0mcp-runtime DPoP-Nonce v1";

/// Longest nonce opened, well above what this server makes (BENCHMARKS.md, "DPoP: what a
/// server keeps").
const MAX_NONCE_BYTES: usize = 256;

/// How far a nonce's time may be ahead of this server's clock: another instance's clock may be
/// a little ahead.
const SKEW_SECS: u64 = 5;

/// Makes and checks nonces.
#[derive(Clone)]
pub(super) struct Nonces {
    keys: KeyRing,
    lifetime: u64,
}

impl Nonces {
    pub(super) fn new(keys: KeyRing, lifetime: u64) -> Nonces {
        Nonces { keys, lifetime }
    }

    /// A nonce made at `now` (seconds since the Unix epoch); `None` when the system gave no
    /// random bytes to seal it.
    pub(super) fn issue(&self, now: u64) -> Option<String> {
        let mut plain = Vec::with_capacity(DOMAIN.len() + 8);
        plain.extend_from_slice(DOMAIN);
        plain.extend_from_slice(&now.to_be_bytes());
        self.keys.seal(&plain).ok()
    }

    /// Whether `nonce` was made by these keys and is still fresh at `now`.
    pub(super) fn is_valid(&self, nonce: &str, now: u64) -> bool {
        if nonce.len() > MAX_NONCE_BYTES {
            return false;
        }
        let Ok(plain) = self.keys.open(nonce) else {
            return false;
        };
        let Some(time) = plain.strip_prefix(DOMAIN) else {
            return false;
        };
        let Ok(time) = <[u8; 8]>::try_from(time) else {
            return false;
        };
        let made = u64::from_be_bytes(time);
        made <= now.saturating_add(SKEW_SECS) && now.saturating_sub(made) <= self.lifetime
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_are_sealed_and_expire() {
        let nonces = Nonces::new(KeyRing::new(&[[4; 32]]).unwrap(), 300);
        let nonce = nonces.issue(1_000).unwrap();
        assert!(nonce.len() < MAX_NONCE_BYTES, "{}", nonce.len());
        // RFC 9449 §8.1: `nonce = 1*NQCHAR`.
        assert!(
            nonce
                .bytes()
                .all(|b| matches!(b, 0x21 | 0x23..=0x5b | 0x5d..=0x7e))
        );
        assert!(nonces.is_valid(&nonce, 1_000));
        assert!(nonces.is_valid(&nonce, 1_300));
        assert!(!nonces.is_valid(&nonce, 1_301), "expired");
        assert!(nonces.is_valid(&nonce, 996), "a clock a little behind");
        assert!(!nonces.is_valid(&nonce, 990), "made in the future");
        let other = Nonces::new(KeyRing::new(&[[5; 32]]).unwrap(), 300);
        assert!(!other.is_valid(&nonce, 1_000), "another server's keys");
        assert!(!nonces.is_valid("not-a-nonce", 1_000));
        // Something else sealed with the same keys is no nonce.
        let sealed = KeyRing::new(&[[4; 32]])
            .unwrap()
            .seal(b"\x01state")
            .unwrap();
        assert!(!nonces.is_valid(&sealed, 1_000));
        assert!(!nonces.is_valid(&"x".repeat(10_000), 1_000));
    }
}
