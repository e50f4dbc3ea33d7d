//! Sizes in bytes: read from the command line's text and written for people.

/// Parses a byte size: a number with an optional unit (`B`, `KiB`, `MiB`, `GiB`, `TiB`, or
/// `K`, `M`, `G`, `T` for the same; `KB`, `MB`, `GB`, `TB` for powers of 1000), e.g. `22GiB`,
/// `1100MiB`, `1.5G`, `1000000`.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim());
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024f64.powi(2),
        "g" | "gib" => 1024f64.powi(3),
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => f64::NAN,
    };
    let value: f64 = number.parse().unwrap_or(f64::NAN);
    let b = value * scale;
    if !b.is_finite() {
        return Err(format!(
            "'{text}' is not a size: give bytes or a number with a unit, e.g. 22GiB or 1100MiB"
        ));
    }
    if b < 1.0 {
        return Err(format!("'{text}' is less than a byte: give at least 1"));
    }
    if b >= 2f64.powi(63) {
        return Err(format!("'{text}' is too large: give at most 8 EiB"));
    }
    Ok(b as u64)
}

/// Bytes in human units (binary prefixes), e.g. `5.2 TiB (5704274890752 bytes)`.
pub fn bytes(n: u64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else {
        format!("{value:.1} {} ({n} bytes)", units[unit])
    }
}

/// `n` things, the noun singular for one: `1 thread`, `2 threads`.
pub fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thing_is_singular() {
        assert_eq!(count(1, "thread"), "1 thread");
        assert_eq!(count(2, "thread"), "2 threads");
        assert_eq!(count(0, "slab"), "0 slabs");
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_bytes("1100MiB"), Ok(1100 << 20));
        assert_eq!(parse_bytes("22GiB"), Ok(22 << 30));
        assert_eq!(parse_bytes("22G"), Ok(22 << 30));
        assert_eq!(parse_bytes("1.5 GB"), Ok(1_500_000_000));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        for bad in ["", "GiB", "12 parsecs", "-5G", "0", "1e99"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
        let huge = parse_bytes("99999999TiB").unwrap_err();
        assert!(huge.contains("too large"), "{huge}");
    }
}
