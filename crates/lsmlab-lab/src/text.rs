//! Text helpers shared by every stage of a study: how numbers and TOML values are written, and
//! CSV quoting. A leaf: it imports nothing of the study.

/// A number with about four significant digits, `–` when not finite: for reports and verdicts.
pub fn significant(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.1 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// A number in a CSV file: six decimals, an empty field when not finite.
pub fn csv_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        String::new()
    }
}

/// A TOML value as a command-line value: strings bare, booleans `true`/`false`.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => other.to_string(),
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Joins fields into one CSV line.
pub fn csv_line(fields: &[String]) -> String {
    fields
        .iter()
        .map(|f| csv_field(f))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(
            csv_line(&["a".into(), "b,c".into(), "say \"x\"".into()]),
            "a,\"b,c\",\"say \"\"x\"\"\""
        );
    }

    #[test]
    fn numbers_keep_about_four_digits() {
        assert_eq!(significant(123456.7), "123457");
        assert_eq!(significant(12.34), "12.3");
        assert_eq!(significant(0.01234), "0.0123");
        assert_eq!(significant(f64::NAN), "–");
        assert_eq!(csv_number(0.5), "0.500000");
        assert_eq!(csv_number(f64::INFINITY), "");
    }
}
