//! The schema: its tables, created on first use and migrated from older versions
//! in one transaction under an advisory lock.

use postgres::Client;

use super::SCHEMA_VERSION;
use super::retention::SCHEMA_V2;

/// Advisory lock key held while the schema is created or migrated ("tcap").
const MIGRATION_LOCK: i64 = 0x7463_6170;

/// The migrations: `MIGRATIONS[v]` brings a schema of version `v` to `v + 1`.
const MIGRATIONS: [&str; 3] = [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3];

/// Version 1.
const SCHEMA_V1: &str = "
CREATE TABLE toolcap_schema (
    version integer NOT NULL
);
INSERT INTO toolcap_schema (version) VALUES (0);
-- ids of outputs: a spill's id, then its result's output_id
CREATE SEQUENCE toolcap_output_ids;
CREATE TABLE toolcap_results (
    dialog_id    text    NOT NULL,
    tool_call_id text    NOT NULL,
    tool_name    text    NOT NULL,
    tool_args    text    NOT NULL,   -- JSON
    size_bytes   bigint  NOT NULL,
    size_chars   bigint  NOT NULL,
    size_lines   bigint  NOT NULL,
    truncated    boolean NOT NULL,
    shown_chars  bigint  NOT NULL,   -- char offset right after what the model saw
    created_at   bigint  NOT NULL,   -- milliseconds since the Unix epoch
    output_id    bigint  NOT NULL,   -- its chunks
    PRIMARY KEY (dialog_id, tool_call_id)
);
CREATE INDEX toolcap_results_created_at ON toolcap_results (created_at);
-- outputs being written (or left unfinished by a killed writer)
CREATE TABLE toolcap_spills (
    id         bigint PRIMARY KEY DEFAULT nextval('toolcap_output_ids'),
    started_at bigint NOT NULL,      -- milliseconds since the Unix epoch
    touched_at bigint NOT NULL       -- when its last chunk was written
);
CREATE TABLE toolcap_chunks (
    output_id  bigint NOT NULL,      -- toolcap_spills.id; toolcap_results.output_id once committed
    char_start bigint NOT NULL,      -- characters of the output before this chunk
    bytes      bytea  NOT NULL,      -- UTF-8
    PRIMARY KEY (output_id, char_start)
);
-- a result deleted or replaced takes its chunks with it
CREATE FUNCTION toolcap_drop_chunks() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'DELETE' OR OLD.output_id <> NEW.output_id THEN
        DELETE FROM toolcap_chunks WHERE output_id = OLD.output_id;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER toolcap_results_drop_chunks AFTER UPDATE OR DELETE ON toolcap_results
    FOR EACH ROW EXECUTE FUNCTION toolcap_drop_chunks();
";

/// Version 3: the dialog list's orders as indexes, so a page (keyset pagination,
/// `list_page`) is read from an index instead of sorted out of every result: one
/// dialog's list in `(created_at, tool_call_id)` order, and the whole list in
/// `(created_at, dialog_id, tool_call_id)` order, which also serves what the
/// `created_at` index served (expiry by age and by size), so it replaces it.
const SCHEMA_V3: &str = "
CREATE INDEX toolcap_results_dialog_list ON toolcap_results (dialog_id, created_at, tool_call_id);
CREATE INDEX toolcap_results_list ON toolcap_results (created_at, dialog_id, tool_call_id);
DROP INDEX toolcap_results_created_at;
";

pub(super) enum Found {
    None,
    Foreign,
    Version(i32),
}

pub(super) fn schema_version(
    c: &mut impl postgres::GenericClient,
) -> Result<Found, postgres::Error> {
    let row = c.query_one(
        "SELECT to_regclass('toolcap_schema') IS NOT NULL, \
         to_regclass('toolcap_results') IS NOT NULL",
        &[],
    )?;
    let (schema, results): (bool, bool) = (row.try_get(0)?, row.try_get(1)?);
    if !schema {
        return Ok(if results { Found::Foreign } else { Found::None });
    }
    let v: Option<i32> = c
        .query_one("SELECT max(version) FROM toolcap_schema", &[])?
        .try_get(0)?;
    Ok(Found::Version(v.unwrap_or(0)))
}

pub(super) enum Migrate {
    Pg(postgres::Error),
    Newer(i32),
    Foreign,
}

impl From<postgres::Error> for Migrate {
    fn from(e: postgres::Error) -> Migrate {
        Migrate::Pg(e)
    }
}

/// Create the schema, or bring an older one up to date, in one transaction, holding
/// an advisory lock so that concurrent openers take turns. (The lock is taken
/// before the transaction starts, so that the transaction sees the tables another
/// opener just made: catalog lookups inside a transaction that began earlier may
/// not.)
pub(super) fn migrate(client: &mut Client) -> Result<(), Migrate> {
    client.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])?;
    let r = migrate_locked(client);
    // (a connection that failed is closed, and its session lock with it)
    let _ = client.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
    r
}

fn migrate_locked(client: &mut Client) -> Result<(), Migrate> {
    let mut tx = client.transaction()?;
    // looked at again under the lock: another process may have done it
    let from = match schema_version(&mut tx)? {
        Found::Version(v) => v,
        Found::None => 0,
        Found::Foreign => return Err(Migrate::Foreign),
    };
    if from > SCHEMA_VERSION {
        return Err(Migrate::Newer(from));
    }
    if from == SCHEMA_VERSION {
        return Ok(());
    }
    let start = usize::try_from(from).unwrap_or(0);
    for step in MIGRATIONS.iter().skip(start) {
        tx.batch_execute(step)?;
    }
    tx.execute("UPDATE toolcap_schema SET version = $1", &[&SCHEMA_VERSION])?;
    tx.commit()?;
    Ok(())
}
