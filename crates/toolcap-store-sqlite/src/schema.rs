//! The schema: its versions and the migration from an older one.

use rusqlite::{Connection, TransactionBehavior};

use super::retention::SCHEMA_V3;
use super::{APPLICATION_ID, SCHEMA_VERSION};

/// Schema version 1, as toolcap 0.1 created it.
const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS results (
    id           INTEGER PRIMARY KEY,
    dialog_id    TEXT    NOT NULL,
    tool_call_id TEXT    NOT NULL,
    tool_name    TEXT    NOT NULL,
    tool_args    TEXT    NOT NULL,   -- JSON
    size_bytes   INTEGER NOT NULL,
    size_chars   INTEGER NOT NULL,
    size_lines   INTEGER NOT NULL,
    truncated    INTEGER NOT NULL,   -- 0 or 1
    shown_chars  INTEGER NOT NULL,   -- char offset right after what the model saw
    created_at   INTEGER NOT NULL,   -- milliseconds since the Unix epoch
    output       TEXT    NOT NULL,   -- last, so metadata reads skip its pages
    UNIQUE (dialog_id, tool_call_id)
);
CREATE INDEX IF NOT EXISTS results_created_at ON results (created_at);
";

/// From version 1 to 2: outputs in chunks.
const SCHEMA_V2: &str = "
-- NULL: the output is inline (`output`); else `output` is '' and the output is the
-- chunks with this output_id, in char_start order
ALTER TABLE results ADD COLUMN output_id INTEGER;
-- outputs being written (or left unfinished by a killed writer); AUTOINCREMENT: an
-- id is never reused, so chunks kept under it stay a committed result's own
CREATE TABLE IF NOT EXISTS spills (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at INTEGER NOT NULL,   -- milliseconds since the Unix epoch
    touched_at INTEGER NOT NULL    -- when its last chunk was written
);
CREATE INDEX IF NOT EXISTS results_output_id ON results (output_id)
    WHERE output_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS chunks (
    output_id  INTEGER NOT NULL,   -- spills.id; results.output_id once committed
    char_start INTEGER NOT NULL,   -- characters of the output before this chunk
    text       TEXT    NOT NULL,
    PRIMARY KEY (output_id, char_start)
);
-- a result deleted or replaced takes its chunks with it
CREATE TRIGGER IF NOT EXISTS results_delete_chunks AFTER DELETE ON results
WHEN old.output_id IS NOT NULL BEGIN
    DELETE FROM chunks WHERE output_id = old.output_id;
END;
CREATE TRIGGER IF NOT EXISTS results_replace_chunks AFTER UPDATE OF output_id ON results
WHEN old.output_id IS NOT NULL AND old.output_id IS NOT new.output_id BEGIN
    DELETE FROM chunks WHERE output_id = old.output_id;
END;
";

/// Create the schema, or bring an older one up to date, in one transaction.
pub(super) fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // looked at again inside the transaction: another process may have done it
    let version: i32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version >= SCHEMA_VERSION {
        return tx.commit();
    }
    if version < 1 {
        tx.execute_batch(SCHEMA_V1)?;
    }
    if version < 2 {
        tx.execute_batch(SCHEMA_V2)?;
    }
    if version < 3 {
        tx.execute_batch(SCHEMA_V3)?;
    }
    tx.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
    ))?;
    tx.commit()
}
