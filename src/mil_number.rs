//! Numeric literals of text MIL: integers, decimal floats, C hexadecimal floats, `inf`, `nan`.

/// Parses an integer literal (decimal or `0x…`, optionally signed).
pub(crate) fn parse_int(text: &str) -> Option<i128> {
    let (neg, body) = split_sign(text);
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(hex, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn split_sign(text: &str) -> (bool, &str) {
    if let Some(rest) = text.strip_prefix('-') {
        (true, rest)
    } else {
        (false, text.strip_prefix('+').unwrap_or(text))
    }
}

/// Parses a float literal: decimal (`1.5e-3`), C99 hex (`-0x1.388p+13`), `inf`, `nan`, or an integer.
pub(crate) fn parse_float(text: &str) -> Option<f64> {
    let (neg, body) = split_sign(text);
    let v = match body {
        "inf" | "infinity" | "INF" => f64::INFINITY,
        "nan" | "NAN" => f64::NAN,
        _ => {
            if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
                parse_hex_float(hex)?
            } else {
                body.parse::<f64>().ok()?
            }
        }
    };
    Some(if neg { -v } else { v })
}

fn parse_hex_float(hex: &str) -> Option<f64> {
    let (mant, exp) = match hex.find(['p', 'P']) {
        Some(i) => (hex.get(..i)?, hex.get(i + 1..)?.parse::<i32>().ok()?),
        None => (hex, 0),
    };
    let (int_part, frac_part) = match mant.find('.') {
        Some(i) => (mant.get(..i)?, mant.get(i + 1..)?),
        None => (mant, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for c in int_part.chars() {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in frac_part.chars() {
        value += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    Some(value * 2f64.powi(exp))
}

/// Appends `v` to `out` as a C99 hexadecimal float, exactly (`0x1.77540ap-4`, `0x0p+0`, `-inf`).
pub(crate) fn write_hex_float(out: &mut String, v: f64) {
    use std::fmt::Write;
    if v.is_nan() {
        out.push_str("nan");
        return;
    }
    if v.is_infinite() {
        out.push_str(if v < 0.0 { "-inf" } else { "inf" });
        return;
    }
    if v.is_sign_negative() {
        out.push('-');
    }
    if v == 0.0 {
        out.push_str("0x0p+0");
        return;
    }
    let bits = v.abs().to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    let mut exp = raw_exp - 1023;
    if raw_exp == 0 {
        // Subnormal f64: normalise so the leading digit is 1.
        let shift = mant.leading_zeros() - 11;
        mant = (mant << shift) & ((1u64 << 52) - 1);
        exp = -1022 - shift as i32;
    }
    let exp_sign = if exp >= 0 { '+' } else { '-' };
    if mant == 0 {
        let _ = write!(out, "0x1p{exp_sign}{}", exp.abs());
        return;
    }
    // 13 hex digits of mantissa, trailing zeros dropped.
    let digits = 13 - (mant.trailing_zeros() / 4) as usize;
    let mant = mant >> (4 * (13 - digits));
    let _ = write!(out, "0x1.{mant:0digits$x}p{exp_sign}{}", exp.abs());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_floats_round_trip() {
        for s in [
            "0x1.77540ap-4",
            "-0x1.48p-1",
            "0x0p+0",
            "0x1p-149",
            "-0x1.388p+13",
            "0x1.5p-17",
        ] {
            let mut hex = String::new();
            write_hex_float(&mut hex, parse_float(s).unwrap());
            assert_eq!(hex, s, "{s}");
        }
        assert_eq!(parse_float("-0x1.388p+13"), Some(-10000.0));
        assert_eq!(parse_float("1.5e-3"), Some(0.0015));
        assert_eq!(parse_float("-inf"), Some(f64::NEG_INFINITY));
        assert!(parse_float("0x").is_none());
        assert!(parse_float("0xzz").is_none());
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("-12"), Some(-12));
        assert_eq!(parse_int("18446744073709551615"), Some(u64::MAX as i128));
        assert_eq!(parse_int("1.5"), None);
    }
}
