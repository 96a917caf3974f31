//! Character budgets never load a tokenizer (loading o200k_base costs hundreds of
//! milliseconds). This file is its own test binary so nothing else loads one.

use std::path::Path;

use serde_json::Value;
use toolcap::{Config, ToolResultProcessor};

#[test]
fn processing_every_fixture_with_defaults_loads_no_encoder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let p = ToolResultProcessor::new(Config::defaults());
    let mut n = 0;
    for fam in std::fs::read_dir(&root).unwrap() {
        let fam = fam.unwrap().path();
        if !fam.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&fam).unwrap() {
            let f = f.unwrap().path();
            let name = f.to_string_lossy().to_string();
            let Some(data) = name.strip_suffix(".call.json") else {
                continue;
            };
            let call: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
            let text = std::fs::read_to_string(data).unwrap();
            let out = p.process(call["tool"].as_str().unwrap(), &text, &call["args"]);
            assert_eq!(out.unit, "chars");
            n += 1;
        }
    }
    assert!(n >= 12);
    assert_eq!(toolcap::internals::encoder_loads(), 0);
}
