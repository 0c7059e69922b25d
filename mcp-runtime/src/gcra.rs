// Hand-written rather than `governor`: the 7 crates only it brought in cost 2.0 CPU-s per dev build (2.7 s release).
//! A keyed GCRA (generic cell rate algorithm), the token buckets of both rate limits: the
//! `RateLimit` layer's tool calls per caller (`layers/rate_limit.rs`) and the endpoint's
//! requests per caller or address (`transport/http/rate.rs`).
//!
//! Each key may spend up to `burst` cells at once, and gets one back every `period`. A key's
//! state is one number, its theoretical arrival time (TAT): when its bucket would be full
//! again. A check at `now` admits when `TAT - (burst - 1) × period ≤ now` and moves the TAT to
//! `max(TAT, now) + period`; otherwise it refuses with the wait until that holds. A key whose
//! TAT has passed has a full bucket, the same as a key never seen, so a sweep every
//! [`SWEEP_EVERY`] checks forgets those keys: the map holds the keys that spent a cell within
//! the last refill window (`burst × period`), plus those of the checks since the last sweep.
//!
//! Time is nanoseconds since an origin the owner picks (an `Instant` it keeps), passed to each
//! check: tests pass any time they like. Arithmetic is on whole nanoseconds, exact; the refill
//! window is capped at [`MAX_WINDOW`] (≈ 292 years), so that no sum overflows.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// Checks between two sweeps of the keys whose buckets are full again.
pub(crate) const SWEEP_EVERY: u32 = 4096;

/// The longest refill window (`burst × period`), in nanoseconds: half of `u64`'s range, so
/// that a TAT (at most `now` plus the window) never overflows before `now` has reached the
/// other half, 292 years after the origin. A longer window is taken as this one.
pub(crate) const MAX_WINDOW: u64 = u64::MAX / 2;

/// Keyed token buckets: one TAT per key, behind one lock (a check is one map lookup).
pub(crate) struct Gcra<K> {
    /// Nanoseconds per cell: at least 1, at most `MAX_WINDOW / burst`.
    period: u64,
    /// How far a TAT may run ahead of now and still admit: `(burst - 1) × period`.
    tolerance: u64,
    state: Mutex<State<K>>,
}

struct State<K> {
    /// Each key's theoretical arrival time, in nanoseconds since the origin; a key absent has
    /// a full bucket.
    tats: HashMap<K, u64>,
    /// Checks since the last sweep.
    checks: u32,
}

impl<K> Gcra<K> {
    /// The cells of a full bucket.
    fn burst(&self) -> u64 {
        self.tolerance / self.period + 1
    }
}

impl<K> std::fmt::Debug for Gcra<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gcra")
            .field("burst", &self.burst())
            .field("period", &Duration::from_nanos(self.period))
            .finish_non_exhaustive()
    }
}

impl<K: Hash + Eq> Gcra<K> {
    /// Buckets of `burst` cells (at least 1), one back every `period` (at least 1 ns; the
    /// window `burst × period` at most [`MAX_WINDOW`]).
    pub(crate) fn new(burst: u32, period: Duration) -> Gcra<K> {
        let burst = u64::from(burst.max(1));
        let period = u64::try_from(period.as_nanos())
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_WINDOW / burst);
        Gcra {
            period,
            tolerance: period * (burst - 1),
            state: Mutex::new(State {
                tats: HashMap::new(),
                checks: 0,
            }),
        }
    }

    /// Buckets of `burst` cells (at least 1) refilled evenly over `window`: one cell every
    /// `window / burst`, rounded down to the nanosecond.
    pub(crate) fn spread(burst: u32, window: Duration) -> Gcra<K> {
        let burst = burst.max(1);
        Gcra::new(burst, window / burst)
    }

    /// Takes a cell from `key`'s bucket at `now` (time since the origin); when it is empty,
    /// how long until it holds one. Every [`SWEEP_EVERY`]th check first forgets the keys whose
    /// buckets are full again and gives back the map's spare room.
    pub(crate) fn check(&self, key: K, now: Duration) -> Result<(), Duration> {
        let now = nanos(now);
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.checks += 1;
        if state.checks >= SWEEP_EVERY {
            state.checks = 0;
            state.tats.retain(|_, tat| *tat > now);
            state.tats.shrink_to_fit();
        }
        match state.tats.get_mut(&key) {
            Some(tat) => {
                *tat = self.step(*tat, now)?;
                Ok(())
            }
            None => {
                // A full bucket, as if its TAT were now.
                let tat = self.step(now, now)?;
                state.tats.insert(key, tat);
                Ok(())
            }
        }
    }

    /// One check of a bucket whose TAT is `tat`: the next TAT, or the wait.
    fn step(&self, tat: u64, now: u64) -> Result<u64, Duration> {
        let earliest = tat.saturating_sub(self.tolerance);
        if now < earliest {
            return Err(Duration::from_nanos(earliest - now));
        }
        Ok(tat.max(now).saturating_add(self.period))
    }

    /// The keys held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.tats.len()
    }
}

/// Whole nanoseconds of `d`, at most `u64::MAX` (584 years).
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn at(seconds: u64) -> Duration {
        Duration::from_secs(seconds)
    }

    #[test]
    fn a_burst_is_admitted_then_refused_with_the_wait_for_the_next_cell() {
        let gcra = Gcra::new(3, 2 * S);
        for _ in 0..3 {
            assert_eq!(gcra.check("a", at(100)), Ok(()));
        }
        assert_eq!(gcra.check("a", at(100)), Err(2 * S));
        // A refusal spends nothing: the wait counts down with the time.
        assert_eq!(gcra.check("a", at(100) + S / 2), Err(S * 3 / 2));
        assert_eq!(
            gcra.check("a", at(100) + 2 * S - Duration::from_nanos(1)),
            Err(Duration::from_nanos(1))
        );
    }

    #[test]
    fn cells_come_back_one_a_period() {
        let gcra = Gcra::new(2, 5 * S);
        assert!(gcra.check("a", at(0)).is_ok());
        assert!(gcra.check("a", at(0)).is_ok());
        assert_eq!(gcra.check("a", at(0)), Err(5 * S));
        assert!(gcra.check("a", at(5)).is_ok());
        assert_eq!(gcra.check("a", at(5)), Err(5 * S));
        // Two periods refill the whole bucket, and no more than that.
        assert!(gcra.check("a", at(20)).is_ok());
        assert!(gcra.check("a", at(20)).is_ok());
        assert_eq!(gcra.check("a", at(20)), Err(5 * S));
    }

    #[test]
    fn a_steady_caller_at_the_rate_is_never_refused() {
        let gcra = Gcra::new(1, Duration::from_millis(10));
        for i in 0..1000 {
            assert_eq!(
                gcra.check("a", Duration::from_millis(10 * i)),
                Ok(()),
                "{i}"
            );
        }
        assert!(gcra.check("a", Duration::from_millis(9990)).is_err());
    }

    #[test]
    fn keys_have_buckets_of_their_own() {
        let gcra = Gcra::new(1, 60 * S);
        assert!(gcra.check("a", at(0)).is_ok());
        assert!(gcra.check("a", at(0)).is_err());
        assert!(gcra.check("b", at(0)).is_ok());
        assert!(gcra.check("b", at(0)).is_err());
        assert!(gcra.check("c", at(30)).is_ok());
        assert_eq!(gcra.check("a", at(30)), Err(30 * S));
    }

    #[test]
    fn concurrent_checks_admit_one_burst() {
        let gcra = Gcra::new(100, 60 * S);
        let admitted = std::sync::atomic::AtomicU32::new(0);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..500 {
                        if gcra.check("a", at(0)).is_ok() {
                            admitted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(admitted.into_inner(), 100);
    }

    #[test]
    fn spread_splits_the_window_into_periods() {
        let gcra = Gcra::<&str>::spread(3, 10 * S);
        assert_eq!(gcra.period, 3_333_333_333);
        assert_eq!(gcra.burst(), 3);
        // No burst of zero, no period of zero.
        let gcra = Gcra::<&str>::spread(0, Duration::ZERO);
        assert_eq!((gcra.burst(), gcra.period), (1, 1));
        assert!(gcra.check("a", at(0)).is_ok());
        assert_eq!(gcra.check("a", at(0)), Err(Duration::from_nanos(1)));
        assert!(gcra.check("a", Duration::from_nanos(1)).is_ok());
    }

    #[test]
    fn buckets_full_again_are_swept_and_the_others_kept() {
        let gcra = Gcra::new(1, Duration::from_millis(10));
        for i in 0..SWEEP_EVERY - 2 {
            assert!(gcra.check(i, at(0)).is_ok());
        }
        assert!(gcra.check(u32::MAX, at(1)).is_ok());
        assert_eq!(gcra.len(), (SWEEP_EVERY - 1) as usize);
        // The next check sweeps first: every bucket but the last one has refilled.
        assert!(gcra.check(u32::MAX - 1, at(1)).is_ok());
        assert_eq!(gcra.len(), 2);
        assert!(gcra.check(u32::MAX, at(1)).is_err());
        // A bucket exactly full again is gone at the next sweep.
        for _ in 0..SWEEP_EVERY - 2 {
            assert!(gcra.check(u32::MAX, at(1)).is_err());
        }
        assert!(gcra.check(7, at(1) + Duration::from_millis(10)).is_ok());
        assert_eq!(gcra.len(), 1);
    }

    #[test]
    fn a_key_swept_is_a_full_bucket_again() {
        let swept = Gcra::new(2, S);
        let kept = Gcra::new(2, S);
        for gcra in [&swept, &kept] {
            assert!(gcra.check(0, at(0)).is_ok());
            assert!(gcra.check(0, at(0)).is_ok());
        }
        // Full again at 2 s, and swept by the 4,096th check.
        for i in 1..SWEEP_EVERY {
            assert!(swept.check(i, at(2)).is_ok());
        }
        assert!(!swept.state.lock().unwrap().tats.contains_key(&0));
        assert!(kept.state.lock().unwrap().tats.contains_key(&0));
        for gcra in [&swept, &kept] {
            assert!(gcra.check(0, at(2)).is_ok());
            assert!(gcra.check(0, at(2)).is_ok());
            assert_eq!(gcra.check(0, at(2)), Err(S));
        }
    }

    #[test]
    fn huge_periods_and_bursts_saturate_instead_of_overflowing() {
        // A period longer than u64 nanoseconds: one cell, then a wait of the longest window.
        let gcra = Gcra::new(1, Duration::MAX);
        assert!(gcra.check("a", at(0)).is_ok());
        assert_eq!(
            gcra.check("a", at(0)),
            Err(Duration::from_nanos(MAX_WINDOW))
        );
        // Exact up to 292 years after the origin, the longest window on top.
        let late = Duration::from_nanos(MAX_WINDOW);
        assert!(gcra.check("b", late).is_ok());
        assert_eq!(gcra.check("b", late), Err(Duration::from_nanos(MAX_WINDOW)));
        assert_eq!(
            gcra.check("b", late + Duration::from_nanos(MAX_WINDOW - 1)),
            Err(Duration::from_nanos(1))
        );
        let gcra = Gcra::<&str>::spread(1, Duration::MAX);
        assert_eq!(gcra.period, MAX_WINDOW);

        // The largest burst: the window is capped, the burst is whole.
        let gcra = Gcra::new(u32::MAX, Duration::MAX);
        assert_eq!(gcra.burst(), u64::from(u32::MAX));
        assert!(gcra.period * u64::from(u32::MAX) <= MAX_WINDOW);
        assert!(gcra.check("a", at(0)).is_ok());
        assert_eq!(gcra.check("b", at(1)), Ok(()));

        // A burst spent to the last cell, then refused, exactly.
        let gcra = Gcra::new(u32::MAX, Duration::from_nanos(1));
        for _ in 0..1000 {
            assert!(gcra.check("a", at(0)).is_ok());
        }
        let gcra = Gcra::<&str>::new(u32::MAX, Duration::from_secs(3600));
        let mut tat = 0;
        for _ in 0..3 {
            tat = gcra.step(tat, 0).unwrap();
        }
        assert_eq!(tat, 3 * gcra.period);
        let full = gcra.period * (u64::from(u32::MAX) - 1);
        assert_eq!(gcra.step(full, 0), Ok(full + gcra.period));
        assert_eq!(
            gcra.step(full + gcra.period, 0),
            Err(Duration::from_nanos(gcra.period))
        );

        // Past 292 years nothing panics: times stop at u64::MAX nanoseconds.
        let gcra = Gcra::new(2, Duration::MAX);
        for _ in 0..3 {
            let _ = gcra.check("a", Duration::MAX);
        }
        assert_eq!(gcra.step(u64::MAX, u64::MAX), Ok(u64::MAX));
    }

    #[test]
    fn the_wait_is_exact_to_the_nanosecond() {
        // 7 cells over 1 s: periods of 142,857,142 ns; no drift after many of them.
        let gcra = Gcra::<&str>::spread(7, S);
        let period = 142_857_142;
        assert_eq!(gcra.period, period);
        let mut now = 0;
        for _ in 0..7 {
            assert!(gcra.check("a", Duration::from_nanos(now)).is_ok());
        }
        for _ in 0..100_000 {
            assert_eq!(
                gcra.check("a", Duration::from_nanos(now)),
                Err(Duration::from_nanos(period))
            );
            now += period;
            assert!(gcra.check("a", Duration::from_nanos(now)).is_ok());
        }
    }
}
