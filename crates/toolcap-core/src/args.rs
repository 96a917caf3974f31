//! Tool arguments given on the command line: `--arg KEY=VALUE` pairs merged over
//! an `--args-json` object. In the library (not the binary) so it can be tested and
//! fuzzed on its own.

use serde_json::{Map, Value};

/// A malformed argument, with the fix in the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArgsError(pub String);

/// The tool call's arguments: the `args_json` object (if any) with each
/// `KEY=VALUE` of `pairs` set over it as a string. The value is everything after
/// the first `=`, taken literally (it may hold `=`, quotes, newlines, anything).
pub fn tool_args(pairs: &[String], args_json: Option<&str>) -> Result<Value, ArgsError> {
    let mut map = match args_json.map(json_object).transpose() {
        Ok(Some(Value::Object(m))) => m,
        Ok(_) => Map::new(),
        Err(e) => return Err(ArgsError(format!("--args-json: {}", e.0))),
    };
    for p in pairs {
        let Some((k, v)) = p.split_once('=') else {
            return Err(ArgsError(format!(
                "--arg {p:?}: expected KEY=VALUE, e.g. --arg path=src/main.rs"
            )));
        };
        if k.is_empty() {
            return Err(ArgsError(format!(
                "--arg {p:?}: the KEY before '=' is empty"
            )));
        }
        map.insert(k.to_string(), Value::String(v.to_string()));
    }
    Ok(Value::Object(map))
}

/// Tool arguments as JSON text of an object. The message (without a prefix: each
/// front end names the value its own way) says what is wrong and the fix.
pub(crate) fn json_object(text: &str) -> Result<Value, ArgsError> {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(ArgsError(
            "must be a JSON object, like '{\"path\": \"a.py\"}'".to_string(),
        )),
        Err(e) => Err(ArgsError(format!(
            "not valid JSON ({e}); pass an object like '{{\"path\": \"a.py\"}}'"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_literal_and_pairs_override_json() {
        let v = tool_args(
            &["path=a=b.py".to_string(), "cmd=$(x) ; 'y'\n".to_string()],
            Some(r#"{"path": "old", "n": 3}"#),
        )
        .unwrap();
        assert_eq!(v["path"], "a=b.py");
        assert_eq!(v["cmd"], "$(x) ; 'y'\n");
        assert_eq!(v["n"], 3);
        assert!(tool_args(&["novalue".to_string()], None).is_err());
        assert!(tool_args(&["=v".to_string()], None).is_err());
        assert!(tool_args(&[], Some("[1]")).is_err());
    }
}
