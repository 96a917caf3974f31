//! When toolcap may rewrite a Gemini CLI shell command without changing who may
//! run it.
//!
//! Gemini CLI matches its allow lists (`tools.allowed`, `--allowed-tools`), its
//! exclusions and its policy rules against the command a `BeforeTool` hook hands
//! back, not the model's (seen on 0.61.0: with `run_shell_command(ls)` allowed,
//! a rewritten `ls` was denied). The hook input does not say which approval mode
//! the session runs in. So toolcap rewrites only where no rule can tell the two
//! commands apart: the Gemini CLI process that runs the hook approves every call
//! (`--yolo`, `-y`, `--approval-mode yolo`, read from its arguments), and no
//! settings or policy file it reads names the shell tool. Anywhere else the
//! command runs untouched, and its result is capped after it ran by the
//! `AfterTool` hook (hook/gemini_after.rs).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Whether rewriting the shell command keeps every permission decision.
pub fn parity_holds(cwd: Option<&Path>) -> bool {
    let Some(args) = gemini_args() else {
        return false;
    };
    approves_everything(&args) && !shell_rules_exist(cwd)
}

/// The arguments of the Gemini CLI process this hook runs under (an ancestor
/// whose command names `gemini`), on Linux.
fn gemini_args() -> Option<Vec<String>> {
    let mut pid = std::process::id();
    for _ in 0..8 {
        pid = parent_of(pid)?;
        if pid <= 1 {
            return None;
        }
        let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let args: Vec<String> = raw
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let names_gemini = args.iter().take(2).any(|a| {
            Path::new(a)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().contains("gemini"))
        });
        if names_gemini {
            return Some(args);
        }
    }
    None
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// `--yolo`, `-y`, `--approval-mode yolo` / `--approval-mode=yolo`.
pub fn approves_everything(args: &[String]) -> bool {
    args.iter().enumerate().any(|(i, a)| {
        a == "--yolo"
            || a == "-y"
            || a == "--approval-mode=yolo"
            || (a == "--approval-mode" && args.get(i + 1).is_some_and(|v| v == "yolo"))
    })
}

/// Whether a settings file (user, project, system) excludes or restricts the
/// shell tool, or a policy file names it.
fn shell_rules_exist(cwd: Option<&Path>) -> bool {
    rules_exist(cwd, &SHELL_NAMES, Narrowing::Named)
}

/// Whether `read_file`, asked for by toolcap after another tool ran, runs as
/// Gemini CLI's built-in policy has it (allowed without a question): no
/// settings, policy file or argument of the Gemini CLI process names it, no
/// settings narrow the tool list, no policy is given on the command line.
pub fn read_file_unrestricted(cwd: Option<&Path>) -> bool {
    if let Some(args) = gemini_args()
        && args.iter().any(|a| {
            READ_NAMES.iter().any(|n| a.contains(n))
                || a.starts_with("--policy")
                || a.starts_with("--admin-policy")
        })
    {
        return false;
    }
    !rules_exist(cwd, &READ_NAMES, Narrowing::Any)
}

const SHELL_NAMES: [&str; 2] = ["run_shell_command", "ShellTool"];
const READ_NAMES: [&str; 2] = ["read_file", "ReadFileTool"];

/// Which `tools.core` / `tools.exclude` lists restrict a tool: only those naming
/// it, or any (a core list that is there at all decides which tools exist).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Narrowing {
    Named,
    Any,
}

/// Whether a settings file (user, project, system) or a policy file restricts
/// or names one of `names`.
fn rules_exist(cwd: Option<&Path>, names: &[&str], narrowing: Narrowing) -> bool {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut settings = vec![PathBuf::from("/etc/gemini-cli/settings.json")];
    let mut policies = vec![PathBuf::from("/etc/gemini-cli/policies")];
    if let Some(p) = std::env::var_os("GEMINI_CLI_SYSTEM_SETTINGS_PATH") {
        settings.push(PathBuf::from(p));
    }
    for base in [
        home.map(|h| h.join(".gemini")),
        cwd.map(|d| d.join(".gemini")),
    ]
    .into_iter()
    .flatten()
    {
        settings.push(base.join("settings.json"));
        policies.push(base.join("policies"));
    }
    settings
        .iter()
        .any(|p| settings_restrict(p, names, narrowing))
        || policies.iter().any(|d| policy_names(d, names))
}

fn settings_restrict(path: &Path, names: &[&str], narrowing: Narrowing) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let Ok(v) = serde_json::from_str::<Value>(&strip_comments(&text)) else {
        // a file toolcap cannot read may hold rules: step aside
        return true;
    };
    let names_one = |l: &Value| {
        l.as_array().is_some_and(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .any(|i| names.iter().any(|n| i.contains(n)))
        })
    };
    let exclusions = [&v["tools"]["exclude"], &v["excludeTools"]];
    let cores = [&v["tools"]["core"], &v["coreTools"]];
    exclusions.iter().any(|l| names_one(l))
        || cores.iter().any(|l| match narrowing {
            Narrowing::Named => names_one(l),
            Narrowing::Any => !l.is_null(),
        })
}

fn policy_names(dir: &Path, names: &[&str]) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let path = e.path();
        path.extension().is_some_and(|x| x == "toml")
            && std::fs::read_to_string(&path).map_or(true, |t| {
                names.iter().any(|n| t.contains(n))
                    || t.contains("commandPrefix")
                    || t.contains("commandRegex")
                    || t.contains("toolName = \"*\"")
            })
    })
}

/// JSON with `//` and `/* */` comments (as Gemini CLI reads its settings) made
/// plain JSON: comments outside strings become blanks.
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    if n == '\n' {
                        out.push('\n');
                    }
                    prev = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yolo_in_each_spelling() {
        let a = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert!(approves_everything(&a("node gemini -p x --yolo")));
        assert!(approves_everything(&a("gemini -y -p x")));
        assert!(approves_everything(&a("gemini --approval-mode yolo")));
        assert!(approves_everything(&a("gemini --approval-mode=yolo")));
        assert!(!approves_everything(&a(
            "gemini --approval-mode default -p yolo"
        )));
        assert!(!approves_everything(&a("gemini -p x")));
    }

    #[test]
    fn comments_go_strings_stay() {
        let t = "{\n  // the key\n  \"a\": \"x // not a comment\", /* b */ \"b\": [1]\n}";
        let v: Value = serde_json::from_str(&strip_comments(t)).expect("JSON");
        assert_eq!(v["a"], "x // not a comment");
        assert_eq!(v["b"][0], 1);
    }

    #[test]
    fn our_own_hook_matcher_is_not_a_rule() {
        let dir = tempfile_dir();
        let p = dir.join("settings.json");
        std::fs::write(
            &p,
            r#"{"hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[]}]}}"#,
        )
        .expect("write");
        assert!(!settings_restrict(&p, &SHELL_NAMES, Narrowing::Named));
        assert!(!settings_restrict(&p, &READ_NAMES, Narrowing::Any));
        std::fs::write(&p, r#"{"tools":{"exclude":["run_shell_command(rm)"]}}"#).expect("write");
        assert!(settings_restrict(&p, &SHELL_NAMES, Narrowing::Named));
        assert!(!settings_restrict(&p, &READ_NAMES, Narrowing::Any));
        // a core list decides which tools exist: read_file may be missing from it
        std::fs::write(&p, r#"{"tools":{"core":["run_shell_command"]}}"#).expect("write");
        assert!(settings_restrict(&p, &READ_NAMES, Narrowing::Any));
        assert!(!settings_restrict(&p, &["glob"], Narrowing::Named));
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("toolcap-gemini-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("mkdir");
        d
    }
}
