//! shell: a command's output was cut (head + tail + error lines were shown).
//!
//! **What it does.** States the command, its exit code when the arguments carry it,
//! the output's size and how many error-looking lines it has, and suggests ways to
//! see the omitted part — each of which says plainly that the command runs again —
//! plus saving the output once and paging the saved file.
//!
//! **Why.** Build and test logs put their errors and summaries at the end and their
//! first failure somewhere in the middle; a model that only sees "output truncated"
//! re-runs the whole thing and gets the same cut.
//!
//! **Example.** `cargo test 2>&1 | sed -n '41,240p'  # re-runs the command; ...`

use super::{Context, Recovery, ellipsize, plural};
use crate::cut::thousands;
use crate::error_lines::{ERROR_PATTERN, STRIP_COLOUR_SED, is_error_line};
use crate::quote;

/// File the output is saved to by the save-once suggestion.
pub const SAVE_FILE: &str = "/tmp/toolcap-output.log";

pub fn build(ctx: &Context<'_>) -> Recovery {
    let mut r = Recovery::default();
    let command = ctx.arg(|a| &a.command);
    let exit = ctx.arg(|a| &a.exit_code);
    let mut fact = Vec::new();
    if let Some(c) = &command {
        fact.push(format!("Command: {}", ellipsize(c, 160)));
    }
    if let Some(e) = &exit {
        fact.push(format!("exit code {e}"));
    }
    fact.push(format!("Output: {}", ctx.size_fact()));
    r.facts.push(fact.join(" | "));
    // Error-looking lines, counted in the cleaned output (colour codes hide words
    // from a grep), numbered in the original.
    let a = ctx.analysis();
    let shown_errors = (0..a.len())
        .filter(|&i| !a.blocked(i) && ctx.line_shown(a.orig_line_no(i) - 1))
        .filter(|&i| is_error_line(a.line(i)))
        .count();
    let stats = ctx.errors.unwrap_or_else(|| {
        let mut s = crate::scan::ErrorStats::default();
        for i in (0..a.len()).filter(|&i| is_error_line(a.line(i))) {
            s.count += 1;
            s.first.get_or_insert(a.orig_line_no(i));
            s.last = Some(a.orig_line_no(i));
        }
        s
    });
    if let (Some(first), Some(last)) = (stats.first, stats.last) {
        let mut f = format!(
            "{} ({} not shown)",
            plural(stats.count, "error-looking line", "error-looking lines"),
            thousands(stats.count - shown_errors.min(stats.count))
        );
        f.push_str(&format!("; first at line {first}"));
        if stats.count > 1 {
            f.push_str(&format!(", last at line {last}"));
        }
        r.facts.push(f);
    }
    let Some(cmd) = command else {
        r.notes.push(
            "The command is not in the tool arguments, so no command can be suggested; pass \
             it as `command` to get runnable suggestions."
                .to_string(),
        );
        return r;
    };
    let total = ctx.totals.lines;
    // The first wholly omitted range, in pages of 200 lines.
    if let Some((a, b)) = ctx.gaps().find_map(|g| g.lines) {
        let end = b.min(a + 199);
        if let Some(c) = quote::rerun_piped(&cmd, &format!("sed -n '{a},{end}p'")) {
            r.suggestions.push(ctx.shell(
                c,
                format!(
                    "re-runs the command; shows omitted lines {a}-{end} of {total} (if the output is the same)"
                ),
            ));
        }
    }
    // The count is of the lines as this pipeline sees them: colour codes
    // stripped (when cleaning removed some), other terminal noise left in, every
    // repeat counted (see `scan::ErrorStats`).
    let colour = ctx.cleaning.is_some_and(|c| c.ansi_sequences > 0);
    let grep = format!("LC_ALL=C grep -n -E '{ERROR_PATTERN}'");
    let filter = if colour {
        format!("LC_ALL=C {STRIP_COLOUR_SED} | {grep}")
    } else {
        grep
    };
    if stats.count > 0
        && let Some(c) = quote::rerun_piped(&cmd, &filter)
    {
        r.suggestions.push(ctx.shell(
            c,
            format!(
                "re-runs the command; every error-looking line with its line number ({} in this output{})",
                thousands(stats.count),
                if colour { ", colour codes stripped" } else { "" }
            ),
        ));
    }
    if let Some(c) = quote::rerun_piped(&cmd, "tail -n 200") {
        r.suggestions
            .push(ctx.shell(c, "re-runs the command; the last 200 lines".to_string()));
    }
    let save = if quote::is_plain_command(&cmd) {
        Some(format!(
            "{} > {SAVE_FILE} 2>&1; wc -l {SAVE_FILE}",
            cmd.trim()
        ))
    } else {
        quote::bash_c(&cmd).map(|b| format!("{b} > {SAVE_FILE} 2>&1; wc -l {SAVE_FILE}"))
    };
    if let Some(c) = save {
        r.suggestions.push(ctx.shell(
            c,
            format!(
                "re-runs the command once, saving all output; then page it with sed -n 'A,Bp' {SAVE_FILE}"
            ),
        ));
    }
    r
}
