//! Character budgets never load a tokenizer (loading o200k_base costs hundreds of
//! milliseconds). The check runs in a process of its own (the test binary run
//! again for that one test), since other tests of the binary load one.

use std::path::Path;

use serde_json::Value;
use toolcap::{Config, ToolResultProcessor};

#[test]
fn processing_every_fixture_with_defaults_loads_no_encoder() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "no_tokenizer::in_a_process_of_its_own",
            "--exact",
            "--ignored",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("1 passed"),
        "{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Run by the test above, alone in its process.
#[test]
#[ignore = "run in a process of its own by processing_every_fixture_with_defaults_loads_no_encoder"]
fn in_a_process_of_its_own() {
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
    assert_eq!(toolcap_text::measure::encoder_loads(), 0);
}
