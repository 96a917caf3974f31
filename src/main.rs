//! The `toolcap` command line: the `toolcap-cli` crate (crates/toolcap-cli/),
//! one file per subcommand.

use std::process::ExitCode;

fn main() -> ExitCode {
    toolcap_cli::init_logging();
    ExitCode::from(toolcap_cli::main_with(std::env::args_os()))
}
