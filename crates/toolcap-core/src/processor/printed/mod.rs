//! A shell command that prints a file's lines, recognised from the call's
//! arguments: `sed -n 'A,Bp' F`, `sed -n 'A,+Np' F`, `head -n N F`,
//! `tail -n N F`, `tail -n +N F`, `cat F`, `cat -n F`, `nl F`,
//! `awk 'NR>=A && NR<=B' F`, given as the shell tool's command string or as
//! an argv array (`["bash", "-lc", "sed -n '1,80p' a.py"]`, as Codex sends,
//! or `["sed", "-n", "1,80p", "a.py"]`). What such a command prints is the
//! file's content: resolution cuts it as `read_file` cuts a file (see
//! `resolve.rs`), with the file's own line numbers.
//!
//! Anything that is not clearly a plain print of one file is refused (`None`):
//! pipelines, redirections, `;` / `&&` lists, substitutions, globs, variables,
//! several files, options that change what is printed (`cat -A`, `head -c`,
//! `tail -f`), scripts other than one line range.

use serde_json::Value;

pub(crate) use crate::hints::read_file::Enclosing;

/// "Prints lines of file `path`": which, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilePrint {
    /// The file, as the command names it.
    pub path: String,
    /// The shell command as given (the inner command of `bash -lc '...'`, or
    /// an argv array joined as shell words): what prints the same lines again.
    pub command: String,
    /// The file's line that the output's first line is; `None` when the
    /// command counts from the end (`tail -n N`): the file's length is unknown.
    pub first: Option<usize>,
    /// The last line of the file asked for (inclusive), when the command
    /// names one (`sed -n '5,9p'`, `head -n 9`): the output stops there or at
    /// the file's end.
    pub last: Option<usize>,
    /// Every output line starts with its line number (`cat -n`, `nl`): the
    /// numbers are the file's lines, the text after them the file's content.
    pub numbered: bool,
}

/// The file print a shell call's arguments ask for, if they clearly are one:
/// the first of `keys` present is the command (a string, or an argv array).
pub(crate) fn parse_args(args: &Value, keys: &[String]) -> Option<FilePrint> {
    let obj = args.as_object()?;
    let value = keys.iter().find_map(|k| obj.get(k))?;
    match value {
        Value::String(s) => parse_command(s),
        Value::Array(a) => {
            let words: Vec<&str> = a.iter().map(Value::as_str).collect::<Option<_>>()?;
            parse_argv(&words)
        }
        _ => None,
    }
}

/// An argv array: a shell running one command string (`bash -lc CMD`,
/// `sh -c CMD`), or the print command's own words.
fn parse_argv(words: &[&str]) -> Option<FilePrint> {
    if let Some(cmd) = crate::hints::shell::shell_c_command(words) {
        return parse_command(cmd);
    }
    let owned: Vec<String> = words.iter().map(|w| (*w).to_string()).collect();
    let command = words
        .iter()
        .map(|w| crate::quote::shell_word(w))
        .collect::<Option<Vec<_>>>()?
        .join(" ");
    from_words(&owned, command)
}

/// A shell command string.
pub(crate) fn parse_command(cmd: &str) -> Option<FilePrint> {
    if let Some((print, filter)) = split_pipe(cmd) {
        return numbered_range(print, filter, cmd);
    }
    let words = split_words(cmd)?;
    from_words(&words, cmd.trim().to_string())
}

/// `cmd` split at its one `|` outside quotes (not `||`), when it has one.
fn split_pipe(cmd: &str) -> Option<(&str, &str)> {
    let mut quote = None;
    let mut bars = Vec::new();
    let mut escaped = false;
    for (i, c) in cmd.char_indices() {
        match (quote, c) {
            (_, _) if escaped => escaped = false,
            (None | Some('"'), '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '|') => bars.push(i),
            _ => {}
        }
    }
    // one `|` (`||` is two)
    let [i] = bars[..] else {
        return None;
    };
    Some((&cmd[..i], &cmd[i + 1..]))
}

/// A numbered print of a whole file (`cat -n F`, `nl -ba F`) piped into a
/// filter that keeps a range of its lines (`sed -n 'A,Bp'`, `head -n N`,
/// `tail -n +N`, `awk 'NR>=A && NR<=B'`): lines A-B of the file, numbered as
/// the file's.
fn numbered_range(print: &str, filter: &str, cmd: &str) -> Option<FilePrint> {
    let p = from_words(&split_words(print)?, print.trim().to_string())?;
    if !p.numbered || p.first != Some(1) || p.last.is_some() {
        return None;
    }
    let words = split_words(filter)?;
    let (prog, args) = words.split_first()?;
    let prog = prog.rsplit('/').next().unwrap_or(prog);
    // the filter's own input is the print: read as a file operand `-`
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.push("-");
    let f = match prog {
        "sed" => sed(&args)?,
        "head" => head(&args)?,
        "tail" => tail(&args)?,
        "awk" | "gawk" | "mawk" => awk(&args)?,
        _ => return None,
    };
    // (`| tail -n 5`: where the lines start is not known from the command)
    (f.path == "-" && f.first.is_some()).then(|| FilePrint {
        command: cmd.trim().to_string(),
        ..lines(&p.path, f.first, f.last, true)
    })
}

/// `cmd` split into words as a POSIX shell would, when it is one simple
/// command of literal words: quotes and backslashes are read, and anything
/// the shell would expand or treat as an operator outside single quotes
/// (`| & ; < > ( ) $ \` * ? [ ] { } ~ #`, a newline) refuses.
fn split_words(cmd: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        ch => cur.push(ch),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            ch @ ('"' | '\\') => cur.push(ch),
                            // `\$`, `` \` ``, a line continuation: not read here
                            _ => return None,
                        },
                        '$' | '`' | '!' => return None,
                        ch => cur.push(ch),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next()? {
                    '\n' => return None,
                    ch => cur.push(ch),
                }
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '[' | ']' | '{'
            | '}' | '\n' | '\r' | '!' => return None,
            '~' | '#' if !in_word => return None,
            ch => {
                in_word = true;
                cur.push(ch);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    // `VAR=x cmd`: an environment assignment first is not read here
    if words.first().is_some_and(|w| {
        w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    }) {
        return None;
    }
    Some(words)
}

/// The print the words of one command ask for.
fn from_words(words: &[String], command: String) -> Option<FilePrint> {
    let (prog, args) = words.split_first()?;
    let prog = prog.rsplit('/').next().unwrap_or(prog);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let p = match prog {
        "sed" => sed(&args)?,
        "head" => head(&args)?,
        "tail" => tail(&args)?,
        "cat" => cat(&args)?,
        "nl" => nl(&args)?,
        "awk" | "gawk" | "mawk" => awk(&args)?,
        _ => return None,
    };
    if p.path.is_empty() || p.path == "-" {
        return None;
    }
    Some(FilePrint { command, ..p })
}

/// A print of `path` from line `first` to `last`.
fn lines(path: &str, first: Option<usize>, last: Option<usize>, numbered: bool) -> FilePrint {
    FilePrint {
        path: path.to_string(),
        command: String::new(),
        first,
        last,
        numbered,
    }
}

/// Options then exactly one file operand (after `--`, anything is the file).
/// `take` reads one option (and the value it needs from the rest), returning
/// how many words it used, or `None` for an option not allowed.
fn one_file<'a>(
    args: &[&'a str],
    mut take: impl FnMut(&'a str, Option<&'a str>) -> Option<usize>,
) -> Option<&'a str> {
    let mut file = None;
    let mut i = 0;
    let mut options = true;
    while i < args.len() {
        let a = args[i];
        if options && a == "--" {
            options = false;
            i += 1;
        } else if options && a.starts_with('-') && a.len() > 1 {
            i += take(a, args.get(i + 1).copied())?;
        } else {
            if file.replace(a).is_some() {
                return None;
            }
            i += 1;
        }
    }
    file
}

/// The largest line number or count read: far past any file's lines, and
/// small enough that line arithmetic on it never overflows.
const MAX_LINE: usize = u32::MAX as usize;

/// A positive line number.
fn number(s: &str) -> Option<usize> {
    count(s).filter(|&n| n > 0)
}

/// A count of lines (zero allowed).
fn count(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|&n| n <= MAX_LINE)
}

/// `sed -n 'A,Bp' F`, `sed -n 'A,+Np' F`, `sed -n 'A,$p' F`, `sed -n 'Ap' F`
/// (`-n`, `--quiet` or `--silent`; the script bare or after `-e`).
fn sed(args: &[&str]) -> Option<FilePrint> {
    let mut quiet = false;
    let mut script = None;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-n" | "--quiet" | "--silent" => quiet = true,
            "-e" | "--expression" => {
                if script.replace(*args.get(i + 1)?).is_some() {
                    return None;
                }
                i += 1;
            }
            "--" => {
                rest.extend_from_slice(&args[i + 1..]);
                break;
            }
            a if a.starts_with('-') && a.len() > 1 => return None,
            a => rest.push(a),
        }
        i += 1;
    }
    if !quiet {
        return None;
    }
    let (script, file) = match (script, rest.as_slice()) {
        (Some(s), [f]) => (s, *f),
        (None, [s, f]) => (*s, *f),
        _ => return None,
    };
    let body = script.trim().strip_suffix('p')?.trim_end();
    let (first, last) = match body.split_once(',') {
        None => {
            let a = number(body)?;
            (a, Some(a))
        }
        Some((a, b)) => {
            let a = number(a.trim())?;
            let b = b.trim();
            let last = if b == "$" {
                None
            } else if let Some(n) = b.strip_prefix('+') {
                Some(a.checked_add(count(n)?)?)
            } else {
                // `5,3p` prints line 5 alone
                Some(number(b)?.max(a))
            };
            (a, last)
        }
    };
    Some(lines(file, Some(first), last, false))
}

/// `head F`, `head -n N F`, `head -nN F`, `head -N F`, `head --lines=N F`.
fn head(args: &[&str]) -> Option<FilePrint> {
    let mut n = 10;
    let file = one_file(args, |a, next| {
        if a == "-n" || a == "--lines" {
            n = count(next?)?;
            Some(2)
        } else if let Some(v) = a.strip_prefix("--lines=").or_else(|| a.strip_prefix("-n")) {
            n = count(v)?;
            Some(1)
        } else {
            n = count(a.strip_prefix('-')?)?;
            Some(1)
        }
    })?;
    Some(lines(file, Some(1), Some(n), false))
}

/// `tail F`, `tail -n N F` (the last N: where they start is unknown),
/// `tail -n +N F` (from line N), `tail -nN`, `tail -N`, `--lines=`.
fn tail(args: &[&str]) -> Option<FilePrint> {
    let mut from: Result<usize, usize> = Err(10);
    let mut read = |v: &str| -> Option<()> {
        from = match v.strip_prefix('+') {
            Some(n) => Ok(number(n)?),
            None => Err(count(v)?),
        };
        Some(())
    };
    let file = one_file(args, |a, next| {
        if a == "-n" || a == "--lines" {
            read(next?)?;
            Some(2)
        } else if let Some(v) = a.strip_prefix("--lines=").or_else(|| a.strip_prefix("-n")) {
            read(v)?;
            Some(1)
        } else {
            // `-20`; not `-f`, `-c`...
            read(&count(a.strip_prefix('-')?)?.to_string())?;
            Some(1)
        }
    })?;
    Some(match from {
        Ok(first) => lines(file, Some(first), None, false),
        Err(_) => lines(file, None, None, false),
    })
}

/// `cat F`, `cat -n F` (`--number`).
fn cat(args: &[&str]) -> Option<FilePrint> {
    let mut numbered = false;
    let file = one_file(args, |a, _| {
        matches!(a, "-n" | "--number").then(|| {
            numbered = true;
            1
        })
    })?;
    Some(lines(file, Some(1), None, numbered))
}

/// `nl F`, with the options that keep one output line per input line and a
/// tab after the number (`-b a`, `-ba`, `-w N`, `-n rn|ln|rz`, `-v N`,
/// `-i N`).
fn nl(args: &[&str]) -> Option<FilePrint> {
    let file = one_file(args, |a, next| {
        let opt = a.get(..2)?;
        if !matches!(opt, "-b" | "-w" | "-n" | "-v" | "-i") {
            return None;
        }
        let (value, used) = match &a[2..] {
            "" => (next?, 2),
            v => (v, 1),
        };
        let ok = match opt {
            "-b" => matches!(value, "a" | "t" | "n"),
            "-n" => matches!(value, "ln" | "rn" | "rz"),
            _ => count(value).is_some(),
        };
        ok.then_some(used)
    })?;
    Some(lines(file, Some(1), None, true))
}

/// `awk 'NR>=A && NR<=B' F` (either order, `>`/`<` too, an optional
/// `{print}` / `{print $0}`), `awk 'NR==A,NR==B' F`.
fn awk(args: &[&str]) -> Option<FilePrint> {
    let [program, file] = args else {
        return None;
    };
    let p: String = program.chars().filter(|c| !c.is_whitespace()).collect();
    let p = p
        .strip_suffix("{print}")
        .or_else(|| p.strip_suffix("{print$0}"))
        .or_else(|| p.strip_suffix("{print;}"))
        .or_else(|| p.strip_suffix("{print$0;}"))
        .unwrap_or(&p);
    let (first, last) = if let Some((a, b)) = p.split_once(',') {
        (
            number(a.strip_prefix("NR==")?)?,
            number(b.strip_prefix("NR==")?)?,
        )
    } else {
        let (x, y) = p.split_once("&&")?;
        let bound = |t: &str| -> Option<(bool, usize)> {
            let t = t.strip_prefix("NR")?;
            if let Some(n) = t.strip_prefix(">=") {
                Some((true, number(n)?))
            } else if let Some(n) = t.strip_prefix('>') {
                Some((true, count(n)?.checked_add(1)?))
            } else if let Some(n) = t.strip_prefix("<=") {
                Some((false, number(n)?))
            } else if let Some(n) = t.strip_prefix('<') {
                Some((false, number(n)?.checked_sub(1).filter(|&n| n > 0)?))
            } else {
                None
            }
        };
        match (bound(x)?, bound(y)?) {
            ((true, a), (false, b)) | ((false, b), (true, a)) => (a, b),
            _ => return None,
        }
    };
    if last < first {
        return None;
    }
    Some(lines(file, Some(first), Some(last), false))
}

/// The most bytes of a printed file read from disk to outline it whole.
const MAX_WHOLE_FILE: u64 = 8 << 20;

/// The outline of the lines a command printed (`source`: the output, its
/// numbers stripped when it has them), made from the whole file when the file
/// is on disk and its lines from `first` on are exactly those printed: a range
/// that starts or ends inside a string, a comment or a definition is then
/// outlined as the file reads, not as the fragment would parse alone. The
/// definitions whose line is inside the printed range are kept, numbered as
/// the output's lines (line `first` of the file is line 1); a definition that
/// runs on past the range keeps its true end. `None` when the file cannot be
/// read (or is larger than 8 MiB, or not UTF-8), when it no longer holds the
/// printed lines, or when it cannot be outlined. With it, the definitions the
/// printed lines start and end inside (see [`enclosing`]).
pub(crate) fn whole_file_outline(
    path: &str,
    first: usize,
    source: &str,
    lang: crate::outline::Language,
) -> Option<(crate::outline::Outline, Enclosing)> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_WHOLE_FILE {
        return None;
    }
    let file = std::fs::read_to_string(path).ok()?;
    let n = source.split_inclusive('\n').count();
    // the file's lines from `first` on, as many as printed, are the output
    let start = file
        .split_inclusive('\n')
        .take(first.checked_sub(1)?)
        .map(str::len)
        .sum::<usize>();
    let printed: usize = file[start..]
        .split_inclusive('\n')
        .take(n)
        .map(str::len)
        .sum();
    let same = &file[start..start + printed] == source
        || file[start..start + printed].strip_suffix('\n') == Some(source);
    if n == 0 || !same {
        return None;
    }
    let whole = crate::outline::outline(&file, lang).ok()?;
    let last = first + n - 1;
    let around = enclosing(&whole.symbols, first, last);
    let inside = |l: usize| (first..=last).contains(&l);
    let shift = |l: usize| l + 1 - first;
    let symbols = whole
        .symbols
        .into_iter()
        .filter(|s| inside(s.line))
        .map(|s| crate::outline::Symbol {
            line: shift(s.line),
            end_line: shift(s.end_line.max(s.line)),
            ..s
        })
        .collect();
    let best_effort = whole
        .best_effort
        .into_iter()
        .filter(|b| b.end >= first && b.start <= last)
        .map(|b| crate::outline::LineSpan {
            start: shift(b.start.max(first)),
            end: shift(b.end.min(last)),
        })
        .collect();
    Some((
        crate::outline::Outline {
            lines: n,
            covered_lines: whole.covered_lines.saturating_sub(first - 1).min(n),
            partial: whole.partial && whole.covered_lines < last,
            symbols,
            best_effort,
            ..whole
        },
        around,
    ))
}

/// The innermost definitions of a file's outline that lines `first..=last`
/// start inside (begun above `first`) and end inside (going on past `last`;
/// not the one they start inside), numbered as the file's lines.
pub(crate) fn enclosing(
    symbols: &[crate::outline::Symbol],
    first: usize,
    last: usize,
) -> Enclosing {
    let innermost = |inside: &dyn Fn(&crate::outline::Symbol) -> bool| {
        symbols
            .iter()
            .filter(|s| inside(s))
            .max_by_key(|s| (s.depth, s.line))
            .cloned()
    };
    let starts = innermost(&|s| s.line < first && s.end_line >= first);
    let ends =
        innermost(&|s| s.line <= last && s.end_line > last).filter(|e| starts.as_ref() != Some(e));
    Enclosing { starts, ends }
}

#[cfg(test)]
mod tests;
