//! JSON objects in a CLI's output. Most CLIs print clean JSON, but some prefix it with banners
//! or log lines, so when the whole text is not one object the top-level `{…}` fragments are
//! recovered one by one (OpenClaw's `parseJsonRecordCandidates`).

use serde_json::{Map, Value};

/// How many bytes the fragment scan may visit per byte of input. A failed candidate rescans
/// from its next `{`, which on hostile input (`{{{{…`) would be quadratic; past the budget the
/// scan stops with what it found.
const SCAN_BUDGET_PER_BYTE: usize = 8;

/// The JSON objects of `raw`: the whole (trimmed) text if it is one, else every balanced
/// top-level `{…}` fragment that parses as an object, in order.
pub(crate) fn json_records(raw: &str) -> Vec<Map<String, Value>> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Vec::new();
    }
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(trimmed) {
        return vec![map];
    }
    let bytes = trimmed.as_bytes();
    let mut budget = bytes
        .len()
        .saturating_mul(SCAN_BUDGET_PER_BYTE)
        .saturating_add(1024);
    let mut records = Vec::new();
    let mut start = 0;
    while let Some(offset) = memchr_brace(&bytes[start..]) {
        let open = start + offset;
        match balanced_end(bytes, open, &mut budget) {
            Scan::Closed(end) => {
                // `open` and `end` sit on ASCII braces, so both are char boundaries.
                match serde_json::from_str::<Value>(&trimmed[open..=end]) {
                    Ok(Value::Object(map)) => {
                        records.push(map);
                        start = end + 1;
                    }
                    _ => start = open + 1,
                }
            }
            Scan::Unclosed => start = open + 1,
            Scan::OutOfBudget => break,
        }
    }
    records
}

fn memchr_brace(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'{')
}

enum Scan {
    Closed(usize),
    Unclosed,
    OutOfBudget,
}

/// Where the object opened at `open` closes, skipping braces inside strings.
fn balanced_end(bytes: &[u8], open: usize, budget: &mut usize) -> Scan {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, byte) in bytes.iter().enumerate().skip(open) {
        if *budget == 0 {
            return Scan::OutOfBudget;
        }
        *budget -= 1;
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Scan::Closed(i);
                }
            }
            _ => {}
        }
    }
    Scan::Unclosed
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn values(raw: &str) -> Vec<Value> {
        json_records(raw).into_iter().map(Value::Object).collect()
    }

    #[test]
    fn whole_objects_and_embedded_fragments() {
        assert_eq!(values(" {\"a\":1} "), vec![json!({"a": 1})]);
        assert_eq!(values("[1,2]"), Vec::<Value>::new());
        assert_eq!(
            values("Loading {config\nwarn: x\n{\"result\":\"a }\"} tail {\"b\":{\"c\":2}}"),
            vec![json!({"result": "a }"}), json!({"b": {"c": 2}})]
        );
        assert_eq!(values("no json here"), Vec::<Value>::new());
        assert_eq!(values(""), Vec::<Value>::new());
    }

    #[test]
    fn hostile_input_stays_bounded() {
        let hostile = "{".repeat(200_000);
        assert_eq!(values(&hostile), Vec::<Value>::new());
        let nested = format!("{}{}", "{\"a\":".repeat(500), "1");
        assert_eq!(values(&nested), Vec::<Value>::new());
    }
}
