//! `strftime_now(format)`: the current UTC time formatted with the common `strftime` codes, without a
//! date crate.

use std::time::{SystemTime, UNIX_EPOCH};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// A UTC date and time, broken down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DateTime {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    /// 0 = Sunday.
    weekday: u32,
    /// 1-based.
    day_of_year: u32,
}

impl DateTime {
    fn from_unix(secs: i64) -> DateTime {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        const CUMULATIVE: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
        let day_of_year = CUMULATIVE[(month - 1) as usize] + day + u32::from(leap && month > 2);
        DateTime {
            year,
            month,
            day,
            hour: (rem / 3600) as u32,
            minute: (rem % 3600 / 60) as u32,
            second: (rem % 60) as u32,
            weekday: (days + 4).rem_euclid(7) as u32,
            day_of_year,
        }
    }
}

/// The current time formatted by [`strftime`].
pub(crate) fn strftime_now(format: &str) -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
        .unwrap_or(0);
    strftime(format, secs)
}

/// Formats the UTC time `secs` (seconds since the Unix epoch) with `%Y %y %m %d %e %j %H %I %M %S %p %b
/// %h %B %a %A %w %u %F %T %D %R %Z %z %n %t %%`; `%-d` (and `-` with any numeric code) drops the zero
/// padding, as glibc does. Unknown codes are kept as written.
pub(crate) fn strftime(format: &str, secs: i64) -> String {
    let t = DateTime::from_unix(secs);
    let mut out = String::with_capacity(format.len() + 16);
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let unpadded = chars.peek() == Some(&'-');
        if unpadded {
            chars.next();
        }
        let Some(code) = chars.next() else {
            out.push('%');
            if unpadded {
                out.push('-');
            }
            break;
        };
        let num = |n: u32, width: usize| {
            if unpadded {
                n.to_string()
            } else {
                format!("{n:0width$}")
            }
        };
        let hour12 = if t.hour.is_multiple_of(12) {
            12
        } else {
            t.hour % 12
        };
        let text = match code {
            'Y' => t.year.to_string(),
            'y' => num(t.year.rem_euclid(100) as u32, 2),
            'm' => num(t.month, 2),
            'd' => num(t.day, 2),
            'e' => {
                if unpadded {
                    t.day.to_string()
                } else {
                    format!("{:>2}", t.day)
                }
            }
            'j' => num(t.day_of_year, 3),
            'H' => num(t.hour, 2),
            'I' => num(hour12, 2),
            'M' => num(t.minute, 2),
            'S' => num(t.second, 2),
            'p' => (if t.hour < 12 { "AM" } else { "PM" }).to_string(),
            'b' | 'h' => MONTHS[(t.month - 1) as usize][..3].to_string(),
            'B' => MONTHS[(t.month - 1) as usize].to_string(),
            'a' => WEEKDAYS[t.weekday as usize][..3].to_string(),
            'A' => WEEKDAYS[t.weekday as usize].to_string(),
            'w' => t.weekday.to_string(),
            'u' => (if t.weekday == 0 { 7 } else { t.weekday }).to_string(),
            'F' => format!("{}-{:02}-{:02}", t.year, t.month, t.day),
            'T' => format!("{:02}:{:02}:{:02}", t.hour, t.minute, t.second),
            'D' => format!("{:02}/{:02}/{:02}", t.month, t.day, t.year.rem_euclid(100)),
            'R' => format!("{:02}:{:02}", t.hour, t.minute),
            'Z' => "UTC".to_string(),
            'z' => "+0000".to_string(),
            'n' => "\n".to_string(),
            't' => "\t".to_string(),
            '%' => "%".to_string(),
            other => {
                let mut kept = String::from("%");
                if unpadded {
                    kept.push('-');
                }
                kept.push(other);
                kept
            }
        };
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_dates() {
        // The expected texts are Python's `datetime.fromtimestamp(t, timezone.utc).strftime(format)`,
        // which is what Hugging Face's `strftime_now` prints (in local time; here UTC); the reference
        // templates use `%Y-%m-%d`, `%d %b %Y` and `%B %d, %Y`.
        // 2024-02-29 13:05:09 UTC, a Thursday.
        let t = 1_709_211_909;
        assert_eq!(strftime("%Y-%m-%d %H:%M:%S", t), "2024-02-29 13:05:09");
        assert_eq!(strftime("%d %b %Y", t), "29 Feb 2024");
        assert_eq!(strftime("%B %d, %Y", t), "February 29, 2024");
        assert_eq!(strftime("%A %a %j %I%p %%", t), "Thursday Thu 060 01PM %");
        assert_eq!(strftime("%-d/%-m %e %q", 1_704_153_600), "2/1  2 %q");
        assert_eq!(strftime("%Y-%m-%d %j %A", 0), "1970-01-01 001 Thursday");
        assert_eq!(strftime("%Y-%m-%d %j", 1_735_603_200), "2024-12-31 366");
        assert_eq!(strftime("%Y-%m-%d", -86_400), "1969-12-31");
    }

    #[test]
    fn now_has_the_shape_of_a_date() {
        let now = strftime_now("%Y-%m-%d");
        assert_eq!(now.len(), 10);
        assert!(now.starts_with("20"));
    }
}
