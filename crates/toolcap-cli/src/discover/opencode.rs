//! opencode's storage (seen on disk after runs of opencode 1.18.33; the schema is
//! `packages/opencode/src/session/session.sql.ts` in anomalyco/opencode, formerly
//! sst/opencode): a SQLite database, `$XDG_DATA_HOME/opencode/opencode.db` (else
//! `~/.local/share/opencode/opencode.db`). Table `session` (`id`, `directory`:
//! the project); table `part` (`session_id`, `time_created` in ms, `data`: JSON).
//! A tool call is a part of `"type": "tool"` with `tool`, `callID` and `state`
//! (`status`, `input`, `output`: what the model read; `metadata.outputPath` when
//! opencode cut the output: "...output truncated...\n\nFull output saved to:
//! PATH" and the tail, the whole output in that file, which discover reads).
//! The database is opened read-only and read a row at a time. (Versions before
//! the database kept the same part JSON in `storage/part/<message>/<part>.json`
//! files; those are not read.)

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap_config::Config;

use super::super::common::{Failure, usage};
use super::super::saved;
use super::{Agent, Found, Scope, Seen, env_dir, home};

pub fn collect(scope: &Scope, config: &Config) -> Result<Found, Failure> {
    let data = match env_dir("XDG_DATA_HOME") {
        Some(d) => d,
        None => home("XDG_DATA_HOME")?.join(".local/share"),
    };
    let db = data.join("opencode/opencode.db");
    let mut found = Found::new(Agent::Opencode, db.clone(), config);
    if !db.is_file() {
        return Ok(found);
    }
    read_db(&db, scope, &mut found)?;
    Ok(found)
}

#[cfg(not(feature = "sqlite"))]
fn read_db(db: &Path, _: &Scope, _: &mut Found) -> Result<(), Failure> {
    Err(usage(format!(
        "{}: opencode keeps its sessions in SQLite, and this toolcap was built without the `sqlite` feature; build it with the default features",
        db.display()
    )))
}

#[cfg(feature = "sqlite")]
fn read_db(db: &Path, scope: &Scope, found: &mut Found) -> Result<(), Failure> {
    use rusqlite::{Connection, OpenFlags};
    use std::collections::HashSet;

    let failed = |e: rusqlite::Error| {
        usage(format!(
            "{}: {e}; is it opencode's database (opencode 1.x)?",
            db.display()
        ))
    };
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(failed)?;
    let mut stmt = conn
        .prepare(
            "SELECT p.session_id, p.time_created, s.directory, p.data FROM part p \
             LEFT JOIN session s ON s.id = p.session_id ORDER BY p.time_created, p.id",
        )
        .map_err(failed)?;
    let mut rows = stmt.query([]).map_err(failed)?;
    let mut sessions: HashSet<String> = HashSet::new();
    loop {
        let row = match rows.next() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(_) => {
                found.unreadable_lines += 1;
                break;
            }
        };
        found.lines += 1;
        let cols = (
            row.get::<_, String>(0),
            row.get::<_, i64>(1),
            row.get::<_, Option<String>>(2),
            row.get::<_, String>(3),
        );
        let (Ok(session), Ok(time), Ok(dir), Ok(data)) = cols else {
            found.unreadable_lines += 1;
            continue;
        };
        let Ok(part) = serde_json::from_str::<Value>(&data) else {
            found.unreadable_lines += 1;
            continue;
        };
        if !scope.keeps_time(Some(time)) || !scope.keeps_dir(dir.as_deref().map(Path::new)) {
            continue;
        }
        if !sessions.contains(&session) {
            found.sessions += 1;
            sessions.insert(session);
        }
        tool_part(&part, found);
    }
    Ok(())
}

/// One part: a finished tool call is counted.
#[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
fn tool_part(part: &Value, found: &mut Found) {
    if part.get("type").and_then(Value::as_str) != Some("tool") {
        return;
    }
    let Some(tool) = part.get("tool").and_then(Value::as_str) else {
        return;
    };
    let state = &part["state"];
    let shown = match state.get("status").and_then(Value::as_str) {
        Some("completed") => state.get("output").and_then(Value::as_str),
        Some("error") => state.get("error").and_then(Value::as_str),
        _ => return,
    }
    .unwrap_or_default()
    .to_string();
    let input = state.get("input").cloned().unwrap_or(Value::Null);
    let command = (tool == "bash")
        .then(|| input.get("command").and_then(Value::as_str))
        .flatten()
        .map(str::to_string);
    found.call(tool, command.as_deref());
    let full = state
        .pointer("/metadata/outputPath")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .and_then(|p| found.read_saved(&p, &saved::Where::InDirNamed("tool-output")));
    found.result(Seen {
        tool,
        input: &input,
        command,
        shown,
        full,
        full_cut: false,
    });
}
