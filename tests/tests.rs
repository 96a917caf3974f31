//! The integration tests: one binary with a module per feature (as ripgrep's
//! `tests/tests.rs`), so the grammars are linked once instead of once per file.
//!
//! Cargo.toml sets `autotests = false`: a new `tests/NAME.rs` runs only when it is
//! declared below (or, for a test that drives a real agent binary, in
//! tests/real_agents.rs), and `every_test_file_is_a_module` fails when one is not.

// Panicking on a failed setup step is how the tests report it (Cargo.toml denies
// unwrap/expect in the library and the CLI only).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// fuzz/checks.rs (shared with the fuzz targets, loaded by fuzz_regressions) loads
// support/trickle.rs by its own path.
#![allow(clippy::duplicate_mod)]

// Shared helpers, each used by several modules.
mod corpus;
#[cfg(feature = "server")]
mod serve_support;
mod support {
    pub mod colour;
    // (a throwaway PostgreSQL server: the backend tests' bodies read its tables
    // when the store is PostgreSQL; built without the feature, nothing starts it)
    pub mod pg;
    pub mod recovery;
    pub mod sandbox;
    pub mod sources;
    pub mod trickle;
}

mod agent_commands;
mod architecture;
mod audit_fixes;
mod audit_replies;
mod budget;
mod budget_proxy;
mod bypass_env;
mod cli;
mod code_view;
mod config_files;
mod docs;
mod doctor_cli;
mod enum_names;
mod everyday;
mod exposure;
mod facts_kept;
mod failure_blocks;
mod families;
mod fixtures;
mod fuzz_regressions;
mod gain_cli;
mod hints_hold_up;
mod history_cli;
mod history_sim;
mod hook_cli;
mod hostile;
mod html_pages;
mod install_cli;
mod mcp_filesystem;
mod mcp_proxy_cli;
mod mcp_server;
mod member_api;
mod msrv;
mod no_panic;
mod no_tokenizer;
mod numbered_reads;
mod odd_input;
mod outline_accuracy;
mod outline_budget;
mod outline_cli;
mod outline_fixes;
mod outline_languages;
mod outline_recovery;
mod outline_robustness;
mod postgres_list_index;
mod process_store_failure;
mod properties;
mod real_inputs;
mod recovery_losses;
mod recovery_replies;
mod release;
mod report_html;
mod run_cli;
mod run_safety;
mod serve_http;
mod serve_limits;
mod serve_openapi;
mod serve_postgres;
mod serve_postgres_outage;
mod serve_retention;
mod shell_errors;
mod shell_file_print;
mod stats;
mod store_backends;
mod store_cli;
mod store_durability;
mod store_library;
mod store_postgres_cli;
mod store_postgres_restart;
mod store_properties;
mod store_registration;
mod store_retention;
mod store_spill;
mod stream;
mod thresholds;
mod tokens;

/// A `tests/*.rs` file that is not declared here would never be compiled or run.
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let root = std::fs::read_to_string(dir.join("tests.rs")).expect("tests/tests.rs reads");
    let agents =
        std::fs::read_to_string(dir.join("real_agents.rs")).expect("tests/real_agents.rs reads");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/ lists") {
        let path = entry.expect("a tests/ entry").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs")
            && stem != "tests"
            && stem != "real_agents"
            && !root.contains(&format!("\nmod {stem};"))
            && !agents.contains(&format!("\nmod {stem};"))
        {
            missing.push(stem.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "tests/{{name}}.rs not declared as `mod {{name}};` in tests/tests.rs or tests/real_agents.rs: {missing:?}"
    );
}
