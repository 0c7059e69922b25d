//! Task timestamps: milliseconds since the Unix epoch, shown as ISO 8601 UTC.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `ms` since the epoch as `YYYY-MM-DDThh:mm:ss.mmmZ`.
// Written out rather than adding a date crate for this one format; digits are placed by hand
// rather than with `format!`, which every `tasks/get` paid twice (BENCHMARKS.md, "The tasks/get
// result").
pub(crate) fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_date(days as i64);
    let mut out = [0u8; 24];
    let mut at = 0;
    let mut put = |value: u64, width: usize, then: u8| {
        let mut rest = value;
        for i in (0..width).rev() {
            out[at + i] = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        at += width;
        out[at] = then;
        at += 1;
    };
    put(year.clamp(0, 9999) as u64, 4, b'-');
    put(u64::from(month), 2, b'-');
    put(u64::from(day), 2, b'T');
    put(rest / 3600, 2, b':');
    put(rest / 60 % 60, 2, b':');
    put(rest % 60, 2, b'.');
    put(ms % 1000, 3, b'Z');
    String::from_utf8_lossy(&out).into_owned()
}

/// The proleptic Gregorian date `days` after 1970-01-01, counted in 400-year eras of 146,097
/// days that start on 1 March (so the leap day ends a year).
fn civil_date(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(1_764_583_200_123), "2025-12-01T10:00:00.123Z");
        assert_eq!(iso8601(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
        assert_eq!(iso8601(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
    }

    #[test]
    fn every_day_follows_the_last() {
        let mut previous = civil_date(-1);
        for days in 0..200_000 {
            let (y, m, d) = civil_date(days);
            let next_day = (y, m, d) > previous;
            assert!(next_day, "{days}: {previous:?} then {:?}", (y, m, d));
            assert!((1..=12).contains(&m) && (1..=31).contains(&d));
            previous = (y, m, d);
        }
    }
}
