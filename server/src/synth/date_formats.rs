//! Text that `datetime.strptime(text, format)` parses: one fixed moment,
//! Monday 15 January 2024, 10:30:00 UTC, written in the format's
//! directives (the C standard's, as Python's documentation lists them).
//! Pure.

/// `format` filled in with the fixed moment; `None` when it holds a
/// directive this does not know (the text would not parse).
pub fn sample(format: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // `%-d` (glibc's no padding) is not strptime's; `%#d` neither.
        let part = match chars.next()? {
            'Y' | 'G' => "2024",
            'y' => "24",
            'm' => "01",
            'd' => "15",
            'H' | 'I' => "10",
            'M' => "30",
            'S' => "00",
            'f' => "000000",
            'p' => "AM",
            'b' | 'h' => "Jan",
            'B' => "January",
            'a' => "Mon",
            'A' => "Monday",
            'j' => "015",
            'z' => "+0000",
            'Z' => "UTC",
            'w' | 'u' => "1",
            'U' | 'W' => "02",
            'V' => "03",
            'c' => "Mon Jan 15 10:30:00 2024",
            'x' => "01/15/24",
            'X' => "10:30:00",
            '%' => "%",
            _ => return None,
        };
        out.push_str(part);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::sample;

    #[test]
    fn directives_are_filled_with_one_moment() {
        assert_eq!(sample("%Y-%m-%d %H:%M:%S").as_deref(), Some("2024-01-15 10:30:00"));
        assert_eq!(sample("%d/%b/%Y:%H:%M:%S %z").as_deref(), Some("15/Jan/2024:10:30:00 +0000"));
        assert_eq!(sample("%A, %B %d, %Y at %I %p").as_deref(), Some("Monday, January 15, 2024 at 10 AM"));
        assert_eq!(sample("%Q"), None);
        assert_eq!(sample("100%"), None);
    }
}
