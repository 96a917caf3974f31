//! Argument parsing: `--arg KEY=VALUE` pairs and `--args-json`, `--lang` names,
//! and tool-name globs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcap::Language;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let json = parts.next();
    let pairs: Vec<String> = parts.map(str::to_string).collect();
    match toolcap::args::tool_args(&pairs, json) {
        Ok(v) => {
            let obj = v.as_object().expect("an object");
            for p in &pairs {
                let (k, _) = p.split_once('=').expect("accepted pairs have '='");
                assert!(obj.contains_key(k));
            }
            // the last pair for a key wins, value intact
            if let Some(p) = pairs.last() {
                let (k, val) = p.split_once('=').expect("pair");
                assert_eq!(obj[k].as_str(), Some(val));
            }
        }
        Err(e) => assert!(e.0.starts_with("--arg") || e.0.starts_with("--args-json")),
    }
    let _ = toolcap::args::tool_args(&pairs, None);
    let _ = Language::from_name(&text);
    if let Some((pat, name)) = text.split_once('\u{1}') {
        let _ = toolcap::config::glob_match(pat, name);
    }
});
