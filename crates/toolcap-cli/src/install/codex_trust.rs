//! `toolcap install codex --trust`: Codex runs a hook only once the user trusted
//! it, and keeps that trust in the user's `config.toml` as
//! `[hooks.state."<hooks.json>:<event>:<group>:<hook>"] trusted_hash = "sha256:..."`
//! (what its TUI writes on "Trust all and continue"). The hash is Codex's own:
//! toolcap asks Codex for it — `codex app-server`, JSON-RPC over stdio,
//! `initialize` then `hooks/list`, whose entries carry each hook's `key`,
//! `command`, `sourcePath` and `currentHash` (checked on Codex 0.169.0) — and
//! records it for toolcap's own hooks only, with the marker, so `--uninstall`
//! takes it out again. Only when the user asks (`--trust`), never by default.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::super::common::{Failure, other, usage};

/// The marker on the lines `--trust` adds to config.toml.
pub(super) const TRUST_MARK: &str = "added by toolcap install --trust";

/// How long Codex's app server may take to answer.
const ANSWER: Duration = Duration::from_secs(30);

/// A hook Codex lists, with the hash it trusts.
pub(super) struct Listed {
    pub key: String,
    pub hash: String,
}

/// The `codex` program on PATH.
fn codex_program() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("codex"))
            .find(|p| p.is_file())
    })
}

/// Toolcap's hooks in `hooks_json` as Codex lists them (their command is
/// `command`), asked of `codex app-server` run in `cwd`.
pub(super) fn list(hooks_json: &Path, command: &str, cwd: &Path) -> Result<Vec<Listed>, Failure> {
    list_where(hooks_json, &|c| c == command, cwd)
}

/// The keys of the hooks in `hooks_json` whose command `ours` accepts and
/// whose trust recorded in `config` (a config.toml's text) is at another hash
/// than the one Codex now expects (the hook changed since it was trusted:
/// Codex skips it). `None` when Codex cannot be asked (not on PATH, no
/// answer) or `config` does not parse: nothing is known.
pub fn stale(
    hooks_json: &Path,
    ours: &dyn Fn(&str) -> bool,
    config: &str,
    cwd: &Path,
) -> Option<Vec<String>> {
    let table: toml::Table = toml::from_str(config).ok()?;
    let state = table.get("hooks").and_then(|h| h.get("state"));
    let listed = list_where(hooks_json, ours, cwd).ok()?;
    Some(
        listed
            .into_iter()
            .filter(|l| {
                let recorded = state
                    .and_then(|s| s.get(&l.key))
                    .and_then(|e| e.get("trusted_hash"))
                    .and_then(toml::Value::as_str);
                recorded.is_some_and(|h| h != l.hash)
            })
            .map(|l| l.key)
            .collect(),
    )
}

fn list_where(
    hooks_json: &Path,
    ours: &dyn Fn(&str) -> bool,
    cwd: &Path,
) -> Result<Vec<Listed>, Failure> {
    let codex = codex_program().ok_or_else(|| {
        usage("--trust: no `codex` program on PATH (toolcap asks Codex for the hash it trusts); put Codex on PATH, or trust the hooks in Codex's TUI (/hooks)")
    })?;
    let mut child = Command::new(&codex)
        .arg("app-server")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            other(format!(
                "--trust: cannot start {} app-server: {e}",
                codex.display()
            ))
        })?;
    let answer = ask(&mut child, cwd);
    let _ = child.kill();
    let _ = child.wait();
    let list = answer?;
    let mut out = Vec::new();
    for group in list["result"]["data"].as_array().into_iter().flatten() {
        for h in group["hooks"].as_array().into_iter().flatten() {
            let ours = h["command"].as_str().is_some_and(ours)
                && h["sourcePath"].as_str().map(Path::new) == Some(hooks_json);
            if let (true, Some(key), Some(hash)) =
                (ours, h["key"].as_str(), h["currentHash"].as_str())
                && !out.iter().any(|l: &Listed| l.key == key)
            {
                out.push(Listed {
                    key: key.to_string(),
                    hash: hash.to_string(),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(other(format!(
            "--trust: Codex lists none of toolcap's hooks in {}; is `[features] hooks = true` set and CODEX_HOME the same for Codex?",
            hooks_json.display()
        )));
    }
    Ok(out)
}

/// `initialize`, then `hooks/list` for `cwd`: the list's answer.
fn ask(child: &mut std::process::Child, cwd: &Path) -> Result<Value, Failure> {
    let failed = |what: &str| other(format!("--trust: codex app-server {what}"));
    let mut stdin = child.stdin.take().ok_or_else(|| failed("has no input"))?;
    let stdout = child.stdout.take().ok_or_else(|| failed("has no output"))?;
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let mut send = |v: Value| -> Result<(), Failure> {
        writeln!(stdin, "{v}").map_err(|e| failed(&format!("refused a message: {e}")))
    };
    let answer = |id: i64| -> Result<Value, Failure> {
        loop {
            let v = rx
                .recv_timeout(ANSWER)
                .map_err(|_| failed("did not answer"))?;
            if v["id"] == json!(id) {
                if let Some(e) = v.get("error") {
                    return Err(failed(&format!("answered an error: {e}")));
                }
                return Ok(v);
            }
        }
    };
    send(json!({"id": 1, "method": "initialize",
                "params": {"clientInfo": {"name": "toolcap", "version": env!("CARGO_PKG_VERSION")}}}))?;
    answer(1)?;
    send(json!({"method": "initialized"}))?;
    send(json!({"id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}}))?;
    answer(2)
}

/// `text` (a config.toml) with a trust table for each of `listed` at its end,
/// replacing any `--trust` lines there were.
pub(super) fn with_trust(text: &str, listed: &[Listed]) -> String {
    let blocks: Vec<String> = listed
        .iter()
        .map(|l| {
            format!(
                "[hooks.state.{}]  # {TRUST_MARK}\ntrusted_hash = {}  # {TRUST_MARK}\n",
                toml_string(&l.key),
                toml_string(&l.hash)
            )
        })
        .collect();
    with_blocks(&without_trust(text), &blocks)
}

/// `text` with `blocks` (trust tables) at its end, each after a blank line.
pub(super) fn with_blocks(text: &str, blocks: &[String]) -> String {
    let mut out = text.to_string();
    for b in blocks {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(b);
    }
    out
}

/// `text` without the tables `--trust` added (each its header, its one line, and
/// the blank line put before it).
pub(super) fn without_trust(text: &str) -> String {
    split_trust(text).0
}

/// `text` without the tables `--trust` added, and those tables (for an install
/// that edits the rest and puts them back after it).
pub(super) fn split_trust(text: &str) -> (String, Vec<String>) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let head = format!("]  # {TRUST_MARK}");
    let line = format!("  # {TRUST_MARK}");
    let mut out: Vec<&str> = Vec::new();
    let mut blocks: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_end();
        let next = lines.get(i + 1).map(|n| n.trim_end());
        if l.starts_with("[hooks.state.")
            && l.ends_with(&head)
            && next.is_some_and(|n| n.starts_with("trusted_hash = ") && n.ends_with(&line))
        {
            if out.last().is_some_and(|p| p.trim().is_empty()) {
                out.pop();
            }
            let mut b = format!("{}{}", lines[i], lines[i + 1]);
            if !b.ends_with('\n') {
                b.push('\n');
            }
            blocks.push(b);
            i += 2;
            continue;
        }
        out.push(lines[i]);
        i += 1;
    }
    (out.concat(), blocks)
}

/// `s` as a TOML basic string.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_lines_are_added_once_and_taken_out_exactly() {
        let user = "model = \"m\"\n\n[features]\nhooks = true\n";
        let listed = [
            Listed {
                key: "/h/.codex/hooks.json:pre_tool_use:0:0".into(),
                hash: "sha256:ab".into(),
            },
            Listed {
                key: "/h/.codex/hooks.json:post_tool_use:0:0".into(),
                hash: "sha256:cd".into(),
            },
        ];
        let trusted = with_trust(user, &listed);
        let t: toml::Table = toml::from_str(&trusted).unwrap_or_default();
        assert_eq!(
            t["hooks"]["state"]["/h/.codex/hooks.json:pre_tool_use:0:0"]["trusted_hash"].as_str(),
            Some("sha256:ab"),
            "{trusted}"
        );
        assert_eq!(with_trust(&trusted, &listed), trusted, "idempotent");
        assert_eq!(without_trust(&trusted), user, "byte for byte");
        let (rest, blocks) = split_trust(&trusted);
        assert_eq!(
            with_blocks(&rest, &blocks),
            trusted,
            "put back as they were"
        );
        // a user's own table of the same name shape stays
        let own = "[hooks.state.\"x\"]\ntrusted_hash = \"sha256:00\"\n";
        assert_eq!(without_trust(own), own);
    }
}
