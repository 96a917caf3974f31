//! The `toolcap` command line: a thin layer over the library, one file per
//! subcommand under `src/cli/`.

mod cli;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
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
