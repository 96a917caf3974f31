//! The `toolcap` command line: a thin layer over the library, one file per
//! subcommand under `src/cli/`.

mod cli;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

/// Log toolcap's events (a cut's figures, a record that failed) to stderr when
/// TOOLCAP_LOG (else RUST_LOG) names what to log, like `toolcap=info` or
/// `toolcap::cut=info`; nothing is set up otherwise.
fn init_logging() {
    let Some(spec) = ["TOOLCAP_LOG", "RUST_LOG"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
    else {
        return;
    };
    let filter = match tracing_subscriber::EnvFilter::try_new(&spec) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(
                io::stderr(),
                "toolcap: TOOLCAP_LOG/RUST_LOG {spec:?} is not a log filter ({e}); nothing is logged. Use e.g. toolcap=info"
            );
            return;
        }
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .try_init();
}

fn main() -> ExitCode {
    init_logging();
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            // an empty message: only the exit status speaks (`toolcap run`
            // passing on the command's)
            if !f.message.is_empty() {
                let _ = writeln!(io::stderr(), "toolcap: {}", f.message);
            }
            ExitCode::from(f.code)
        }
    }
}
