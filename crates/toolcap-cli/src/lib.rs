//! The `toolcap` command line (the `toolcap-cli` crate): the subcommands, their
//! arguments (clap derive) and the dispatch. Each subcommand's work lives in its
//! own file; what several share is in `common`.
//!
//! The `toolcap` binary (the `toolcap` crate's `src/main.rs`) and the Python
//! wheel's `toolcap` command both call [`main_with`]:
//!
//! ```no_run
//! use std::process::ExitCode;
//!
//! fn main() -> ExitCode {
//!     toolcap_cli::init_logging();
//!     ExitCode::from(toolcap_cli::main_with(std::env::args_os()))
//! }
//! ```

mod claude_script;
mod common;
mod config;
mod discover;
mod doctor;
mod gain;
mod history;
mod hook;
mod install;
mod mapped;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "mcp")]
mod mcp_proxy;
mod outline;
mod process;
mod project;
mod report;
mod run;
mod saved;
#[cfg(feature = "server")]
mod serve;
mod shell_prefix;
mod stats;
mod stored;

use std::ffi::OsString;
use std::io::{self, Write};

use clap::{Parser, Subcommand};

pub use common::Failure;

#[derive(Parser)]
#[command(
    name = "toolcap",
    // the package version and the commit it was built from (build.rs)
    version = match option_env!("TOOLCAP_VERSION") {
        Some(v) => v,
        None => env!("CARGO_PKG_VERSION"),
    },
    about = "Make oversized LLM tool results fit the context window without losing the way back to what was cut"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Show what the model would see if FILE's content were a tool's result
    /// (read_file on FILE unless --tool says otherwise).
    Preview(process::PreviewArgs),
    /// Process a tool result read from INPUT (a file, or - / nothing for stdin).
    Process(process::ProcessArgs),
    /// Print FILE's code structure.
    Outline(outline::OutlineArgs),
    /// List the supported languages, their extensions, aliases and interpreters.
    Langs,
    /// Print the effective settings and where each came from.
    Config(config::ConfigArgs),
    /// get_continuation: the next chunk of a stored result, with the exact marker
    /// while more remains.
    Continue(stored::ContinueArgs),
    /// search_tool_output: the lines of a stored result matching a regular expression,
    /// with their numbers, context, and the count of all matches.
    Search(stored::SearchArgs),
    /// fetch_tool_output: a stored call's tool name, arguments and output, as JSON.
    Fetch(stored::FetchArgs),
    /// query_tool_output: a value of a stored JSON result, picked by a path.
    Query(stored::QueryArgs),
    /// Print a stored result's full output, or with --meta its metadata as JSON.
    Show(stored::ShowArgs),
    /// Delete stored results: those older than AGE, or those of one dialog.
    Prune(stored::PruneArgs),
    /// Mask old tool results of a message history (JSON on stdin or in a file) in
    /// batches that keep the prompt cache; print the history as JSON.
    History(history::HistoryArgs),
    /// What the store's record says per tool: results seen, cut rate, characters
    /// saved, what agents asked back, and the threshold that would have avoided
    /// most recovery calls.
    Stats(stats::StatsArgs),
    /// What toolcap saved across every project store in the state directory:
    /// results seen, cut rate, characters saved, what agents asked back, per
    /// project, per tool and per day (with a chart).
    Gain(gain::GainArgs),
    /// What an agent's own session logs say: tool results per tool and command,
    /// their sizes, which went through toolcap and which did not (and why), what
    /// toolcap would have shown, and the recovery calls made.
    Discover(discover::DiscoverArgs),
    /// One self-contained HTML page (nothing loaded from the network): characters
    /// saved per day and per tool, the largest results, the recovery calls, the
    /// calls the agents' logs show toolcap missed, and each cut result's view
    /// beside its full output. It holds commands and outputs: read it before
    /// sharing it.
    Report(report::ReportArgs),
    /// Serve stored results over HTTP (read-only JSON; see openapi.json).
    #[cfg(feature = "server")]
    Serve(serve::ServeArgs),
    /// Run an MCP server behind a proxy that caps its tool results and serves the
    /// recovery tools (get_continuation, fetch_tool_output, search_tool_output) itself.
    #[cfg(feature = "mcp")]
    McpProxy(mcp_proxy::McpProxyArgs),
    /// Print the JSON-schema definitions of the recovery tools.
    Tools(config::ToolsArgs),
    /// Run a command, keep its whole output in the store, print what the model
    /// should see (the output itself when short), and exit with its status.
    Run(run::RunArgs),
    /// An agent's hook: read its hook input (JSON) on stdin, print the reply that
    /// puts toolcap in the way (`toolcap install` sets it up).
    Hook(hook::HookArgs),
    /// An agent's shell prefix (Claude Code's CLAUDE_CODE_SHELL_PREFIX): run the
    /// script the agent hands over, its output capped as `toolcap run` caps it.
    ShellPrefix(shell_prefix::ShellPrefixArgs),
    /// Put toolcap into an agent: its hooks (or plugin) and the `toolcap mcp`
    /// server, merged into the agent's config files (--dry-run shows the change).
    Install(install::InstallArgs),
    /// Is toolcap in each agent's path, and would it work there now: installed
    /// where, active (Codex's hooks trusted), program found, store writable, the
    /// last cut result.
    Doctor(doctor::DoctorArgs),
    /// Serve the recovery tools (get_continuation, search_tool_output,
    /// fetch_tool_output) over a store as a stdio MCP server.
    #[cfg(feature = "mcp")]
    Mcp(mcp::McpArgs),
}

/// Parse `args` (the program's name first) and run the command: output goes to
/// the process's stdout and stderr, a failure's message to stderr after
/// `toolcap: `. Returns the exit status (2 for a usage error, as clap has it;
/// `toolcap run` passes on its command's).
pub fn main_with<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match run(cli) {
        Ok(()) => 0,
        Err(f) => {
            // an empty message: only the exit status speaks (`toolcap run`
            // passing on the command's)
            if !f.message.is_empty() {
                let _ = writeln!(io::stderr(), "toolcap: {}", f.message);
            }
            f.code
        }
    }
}

/// Log toolcap's events (a cut's figures, a record that failed) to stderr when
/// TOOLCAP_LOG (else RUST_LOG) names what to log, like `toolcap=info` or
/// `toolcap::cut=info`; nothing is set up otherwise (nor when a subscriber is
/// already set).
pub fn init_logging() {
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

/// Run one parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Cmd::Preview(a) => process::preview(a),
        Cmd::Process(a) => process::process(a),
        Cmd::Outline(a) => outline::outline(a),
        Cmd::Langs => outline::langs(),
        Cmd::Config(a) => config::config(a),
        Cmd::Continue(a) => stored::continue_(a),
        Cmd::Search(a) => stored::search(a),
        Cmd::Fetch(a) => stored::fetch(a),
        Cmd::Query(a) => stored::query(a),
        Cmd::Show(a) => stored::show(a),
        Cmd::Prune(a) => stored::prune(a),
        Cmd::History(a) => history::history(a),
        Cmd::Stats(a) => stats::stats(a),
        Cmd::Gain(a) => gain::gain(a),
        Cmd::Discover(a) => discover::discover(a),
        Cmd::Report(a) => report::report(a),
        #[cfg(feature = "server")]
        Cmd::Serve(a) => serve::serve(a),
        #[cfg(feature = "mcp")]
        Cmd::McpProxy(a) => mcp_proxy::mcp_proxy(a),
        Cmd::Tools(a) => config::tools(a),
        Cmd::Run(a) => run::run(a),
        Cmd::Hook(a) => hook::hook(a),
        Cmd::ShellPrefix(a) => shell_prefix::shell_prefix(a),
        Cmd::Install(a) => install::install(a),
        Cmd::Doctor(a) => doctor::doctor(a),
        #[cfg(feature = "mcp")]
        Cmd::Mcp(a) => mcp::mcp(a),
    }
}
