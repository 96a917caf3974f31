//! A JSON value's shape in a few words (`array[250] of object (keys: id 250, ...)`),
//! for the JSON skeleton outline and the generic hints.

use serde_json::Value;

use toolcap_text::text::{ellipsize, plural, thousands};

/// Describe a JSON value's type in a few words.
pub fn type_of(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(_) => "bool".to_string(),
        Value::Number(_) => "number".to_string(),
        Value::String(s) => format!("string ({})", plural(s.chars().count(), "char", "chars")),
        Value::Object(o) => format!("object ({})", plural(o.len(), "key", "keys")),
        Value::Array(a) => {
            let objects: Vec<&serde_json::Map<String, Value>> =
                a.iter().filter_map(Value::as_object).collect();
            if !a.is_empty() && objects.len() == a.len() {
                format!(
                    "array[{}] of object (keys: {})",
                    thousands(a.len()),
                    key_union(&objects)
                )
            } else if let Some(first) = a.first() {
                let same = a
                    .iter()
                    .all(|x| std::mem::discriminant(x) == std::mem::discriminant(first));
                if same {
                    format!("array[{}] of {}", thousands(a.len()), kind_word(first))
                } else {
                    format!("array[{}] (mixed)", thousands(a.len()))
                }
            } else {
                "array[0]".to_string()
            }
        }
    }
}

fn kind_word(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
    }
}

/// `id 250, name 250, tags 12, ... and 3 more` — keys in first-seen order with counts.
fn key_union(objects: &[&serde_json::Map<String, Value>]) -> String {
    let mut keys: Vec<(&str, usize)> = Vec::new();
    for o in objects {
        for k in o.keys() {
            match keys.iter_mut().find(|(x, _)| x == k) {
                Some(e) => e.1 += 1,
                None => keys.push((k, 1)),
            }
        }
    }
    let mut parts: Vec<String> = keys
        .iter()
        .take(10)
        .map(|(k, n)| format!("{} {}", ellipsize(k, 40), thousands(*n)))
        .collect();
    if keys.len() > 10 {
        parts.push(format!("and {} more", thousands(keys.len() - 10)));
    }
    parts.join(", ")
}
