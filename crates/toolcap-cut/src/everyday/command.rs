//! The kind of output a shell command prints, from its words.

use super::{GrepMode, Kind, ListingMode};

/// The kind of everyday output `command` prints, read from the pipeline
/// that prints it (after the last `&&`, `||` or `;`): its first command,
/// provided every later one passes lines through as they are (`head`,
/// `tail`, `sort`, `uniq`, `grep`, `cat`, `tee`, `less`). Wrappers (`sudo`,
/// `env`, `time`, `timeout N`, `VAR=x`) and git's own options (`-C dir`,
/// `--no-pager`) are skipped. `None` when it prints anything else.
pub fn kind_of(command: &str) -> Option<Kind> {
    let pipelines = split_lists(command);
    let stages = pipelines.last()?;
    let (first, later) = stages.split_first()?;
    let words = program_words(first);
    let kind = kind_of_words(&words)?;
    for stage in later {
        let w = program_words(stage);
        let prog = w.first().map(|p| base(p))?;
        let keeps = match prog {
            "head" | "tail" | "cat" | "tee" | "less" | "more" | "sort" | "uniq" => true,
            // a grep over a listing or grep results keeps their lines' shape,
            // unless it prints counts or files
            "grep" | "egrep" | "fgrep" | "rg" => {
                !matches!(kind, Kind::Diff)
                    && !w
                        .iter()
                        .skip(1)
                        .any(|a| short_flag(a, 'c') || short_flag(a, 'l') || *a == "--count")
            }
            _ => false,
        };
        if !keeps {
            return None;
        }
    }
    Some(kind)
}

/// The basename of a program word (`/usr/bin/git` → `git`).
fn base(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Whether `a` is a cluster of short options holding `c` (`-rn` holds `n`).
fn short_flag(a: &str, c: char) -> bool {
    a.len() > 1
        && a.starts_with('-')
        && !a.starts_with("--")
        && a[1..].chars().all(|x| x.is_ascii_alphabetic())
        && a[1..].contains(c)
}

fn kind_of_words(words: &[String]) -> Option<Kind> {
    let (prog, args) = words.split_first()?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let has_long = |l: &str| {
        args.iter()
            .any(|a| *a == l || a.starts_with(&format!("{l}=")))
    };
    match base(prog) {
        "git" => git_kind(&args),
        "diff" | "colordiff" => Some(Kind::Diff),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" => {
            if base(prog) == "rg" && has_long("--files") {
                return Some(Kind::Listing(ListingMode::Paths));
            }
            Some(Kind::Grep(grep_mode(&args)))
        }
        "find" | "fd" | "fdfind" | "locate" => Some(Kind::Listing(ListingMode::Paths)),
        // dependency trees: their top-level entries are read like a listing's
        "cargo" if args.first() == Some(&"tree") => Some(Kind::Listing(ListingMode::Tree)),
        "npm" | "pnpm" | "yarn"
            if args
                .first()
                .is_some_and(|a| matches!(*a, "ls" | "list" | "la" | "ll" | "why")) =>
        {
            Some(Kind::Listing(ListingMode::Tree))
        }
        "pip" | "pip3" | "uv" => pip_kind(&args),
        "python" | "python3" if args.first() == Some(&"-m") => match args.get(1) {
            Some(&"pip") => pip_kind(&args[2..]),
            _ => None,
        },
        "tree" => Some(Kind::Listing(ListingMode::Tree)),
        "ls" => (args.iter().any(|a| short_flag(a, 'R')) || has_long("--recursive"))
            .then_some(Kind::Listing(ListingMode::Sections)),
        "cat" | "less" | "head" | "tail" => {
            let files: Vec<&&str> = args.iter().filter(|a| !a.starts_with('-')).collect();
            (!files.is_empty()
                && files
                    .iter()
                    .all(|f| f.ends_with(".diff") || f.ends_with(".patch")))
            .then_some(Kind::Diff)
        }
        _ => None,
    }
}

/// `pip list`, `pip freeze` (one package a line), `uv pip list`.
fn pip_kind(args: &[&str]) -> Option<Kind> {
    let args = match args.first() {
        Some(&"pip") => &args[1..],
        _ => args,
    };
    match args.first() {
        Some(&"list") | Some(&"freeze") => Some(Kind::Listing(ListingMode::Paths)),
        _ => None,
    }
}

fn grep_mode(args: &[&str]) -> GrepMode {
    let mut mode = GrepMode::Lines;
    for a in args {
        if *a == "--" {
            break;
        }
        if *a == "--count" || *a == "--count-matches" || short_flag(a, 'c') {
            mode = GrepMode::Count;
        }
        if matches!(
            *a,
            "--files-with-matches" | "--files-without-match" | "--files-without-matches"
        ) || short_flag(a, 'l')
            || short_flag(a, 'L')
        {
            return GrepMode::Files;
        }
    }
    mode
}

fn git_kind(args: &[&str]) -> Option<Kind> {
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-C" | "-c" | "--git-dir" | "--work-tree" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let sub = *args.get(i)?;
    let rest = &args[i + 1..];
    match sub {
        "log" | "show" | "diff" | "whatchanged" | "format-patch" => Some(Kind::Diff),
        "stash" if rest.first() == Some(&"show") => Some(Kind::Diff),
        "grep" => Some(Kind::Grep(grep_mode(rest))),
        "ls-files" | "ls-tree" => Some(Kind::Listing(ListingMode::Paths)),
        _ => None,
    }
}

/// The words of one command, wrappers skipped (`sudo`, `env`, `time`,
/// `nice`, `command`, `timeout 10`, `VAR=x`).
fn program_words(stage: &[String]) -> Vec<String> {
    let mut i = 0;
    while i < stage.len() {
        let w = stage[i].as_str();
        let assignment = w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        match w {
            _ if assignment => i += 1,
            "sudo" | "env" | "time" | "nice" | "command" | "exec" | "nohup" | "stdbuf" => i += 1,
            "timeout" => i += 2,
            w if i > 0
                && w.starts_with('-')
                && matches!(stage[i - 1].as_str(), "env" | "stdbuf" | "nice" | "sudo") =>
            {
                i += 1;
            }
            _ => break,
        }
    }
    stage[i.min(stage.len())..].to_vec()
}

/// The command split into lists (at `&&`, `||`, `;`, newlines) of pipelines
/// (at `|`), each a list of words; quotes are read, a redirection's target
/// dropped.
fn split_lists(cmd: &str) -> Vec<Vec<Vec<String>>> {
    let mut lists: Vec<Vec<Vec<String>>> = vec![vec![Vec::new()]];
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, lists: &mut Vec<Vec<Vec<String>>>| {
        if *in_word {
            if let Some(stage) = lists.last_mut().and_then(|p| p.last_mut()) {
                stage.push(std::mem::take(word));
            }
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for ch in chars.by_ref() {
                    if ch == '\'' {
                        break;
                    }
                    word.push(ch);
                }
            }
            '"' => {
                in_word = true;
                while let Some(ch) = chars.next() {
                    match ch {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        _ => word.push(ch),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            ' ' | '\t' => end_word(&mut word, &mut in_word, &mut lists),
            '|' => {
                end_word(&mut word, &mut in_word, &mut lists);
                if chars.peek() == Some(&'|') {
                    chars.next();
                    lists.push(vec![Vec::new()]);
                } else if let Some(p) = lists.last_mut() {
                    p.push(Vec::new());
                }
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                end_word(&mut word, &mut in_word, &mut lists);
                lists.push(vec![Vec::new()]);
            }
            ';' | '\n' => {
                end_word(&mut word, &mut in_word, &mut lists);
                lists.push(vec![Vec::new()]);
            }
            '>' | '<' => {
                // a redirection: its target is not a word of the command
                end_word(&mut word, &mut in_word, &mut lists);
                // (`2>`: the descriptor is not a word either)
                if let Some(s) = lists.last_mut().and_then(|p| p.last_mut())
                    && s.last()
                        .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
                {
                    s.pop();
                }
                while chars.peek().is_some_and(|c| matches!(c, '>' | '&' | ' ')) {
                    chars.next();
                }
                let mut target = String::new();
                while let Some(&ch) = chars.peek() {
                    if ch.is_whitespace() || matches!(ch, '|' | ';' | '&') {
                        break;
                    }
                    target.push(ch);
                    chars.next();
                }
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut lists);
    lists.retain(|p| p.iter().any(|s| !s.is_empty()));
    for p in &mut lists {
        p.retain(|s| !s.is_empty());
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_name_their_kind() {
        let k = kind_of;
        assert_eq!(k("git log -p -n 12"), Some(Kind::Diff));
        assert_eq!(k("git --no-pager log --stat | head -200"), Some(Kind::Diff));
        assert_eq!(k("cd repo && git -C x show HEAD~2"), Some(Kind::Diff));
        assert_eq!(k("diff -u a.py b.py"), Some(Kind::Diff));
        assert_eq!(k("cat fix.patch"), Some(Kind::Diff));
        assert_eq!(k("git log | grep fix"), None);
        assert_eq!(k("grep -rn TODO ."), Some(Kind::Grep(GrepMode::Lines)));
        assert_eq!(k("grep -rc 'def ' ."), Some(Kind::Grep(GrepMode::Count)));
        assert_eq!(
            k("grep -rl 'import os' . 2>/dev/null"),
            Some(Kind::Grep(GrepMode::Files))
        );
        assert_eq!(k("rg --files"), Some(Kind::Listing(ListingMode::Paths)));
        assert_eq!(
            k("grep -rn x . | grep -v test | head"),
            Some(Kind::Grep(GrepMode::Lines))
        );
        assert_eq!(k("grep -rn x . | grep -c y"), None);
        assert_eq!(
            k("find . -name '*.py'"),
            Some(Kind::Listing(ListingMode::Paths))
        );
        assert_eq!(
            k("ls -laR /usr/lib"),
            Some(Kind::Listing(ListingMode::Sections))
        );
        assert_eq!(k("ls -la"), None);
        assert_eq!(k("tree -L 3"), Some(Kind::Listing(ListingMode::Tree)));
        assert_eq!(k("cargo test"), None);
        assert_eq!(k("git status"), None);
        assert_eq!(
            k("LC_ALL=C sudo grep -n x f"),
            Some(Kind::Grep(GrepMode::Lines))
        );
        assert_eq!(k("make 2>&1 | tail -50"), None);
    }
}
