//! A throwaway PostgreSQL server for the tests, started by the test process itself.
//!
//! The first test that asks for a database starts one cluster for the whole test
//! binary: `initdb` in a temporary directory, `pg_ctl start` on a free port of
//! 127.0.0.1 (password authentication over TCP, `fsync=off` unless
//! `TOOLCAP_PG_FSYNC=on`, for measuring), run as `nobody` when
//! the tests run as root (PostgreSQL refuses to run as root). A small watcher
//! process stops the server and deletes the directory once the test binary has
//! exited. Each test gets a database of its own ([`database`]).
//!
//! The binaries are found in `$TOOLCAP_PG_BIN`, else the newest
//! `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package), else on `PATH`.
//! Without them the tests say so and skip, except under `CI=true`, where they fail:
//! CI installs PostgreSQL (`.ci/run`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The running cluster.
pub struct Cluster {
    pub port: u16,
    pub dir: PathBuf,
    bin: PathBuf,
    password: String,
    /// `runuser -u nobody --` when running as root.
    as_user: Vec<String>,
    /// The server's options (`pg_ctl -o`).
    options: String,
}

static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
static NEXT_DB: AtomicUsize = AtomicUsize::new(0);

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The directory holding `initdb`, `pg_ctl` and `psql`.
fn find_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TOOLCAP_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .find(|d| d.join("initdb").exists() && d.join("pg_ctl").exists())
    })
}

/// The cluster of this test process, started on first use; `None` (after saying
/// why on stderr) when PostgreSQL is not installed and this is not CI.
pub fn cluster() -> Option<&'static Cluster> {
    match CLUSTER.get_or_init(start) {
        Ok(c) => Some(c),
        Err(why) if under_ci() => panic!("PostgreSQL tests cannot run under CI: {why}"),
        Err(why) => {
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// A new, empty database in the cluster: its URL, password included. `None` when
/// PostgreSQL is not installed (see [`cluster`]).
pub fn database() -> Option<String> {
    cluster().map(Cluster::database)
}

/// A cluster of the calling test's own, for a test that restarts or stops the
/// server: all the tests share one process (one test binary), so restarting the
/// shared [`cluster`] would break the other tests' connections. Started anew on
/// each call and stopped by its watcher when the process exits; `None` as for
/// [`cluster`].
pub fn own_cluster() -> Option<&'static Cluster> {
    match start() {
        Ok(c) => Some(Box::leak(Box::new(c))),
        Err(why) if under_ci() => panic!("PostgreSQL tests cannot run under CI: {why}"),
        Err(why) => {
            eprintln!("skipped: {why}");
            None
        }
    }
}

impl Cluster {
    /// A new, empty database in this cluster: its URL, password included.
    pub fn database(&self) -> String {
        let name = format!(
            "t_{}_{}",
            std::process::id(),
            NEXT_DB.fetch_add(1, Ordering::SeqCst)
        );
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// `postgres://toolcap:PASSWORD@127.0.0.1:PORT/DB`.
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgres://toolcap:{}@127.0.0.1:{}/{db}",
            self.password, self.port
        )
    }

    /// The password of the `toolcap` superuser.
    pub fn password(&self) -> &str {
        &self.password
    }

    /// Run `sql` in database `db` with psql; its unaligned output (`-At`).
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-At",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-U",
                "toolcap",
            ])
            .args(["-p", &self.port.to_string(), "-d", db, "-c", sql])
            .env("PGPASSWORD", &self.password)
            .stdin(Stdio::null())
            .output()
            .expect("run psql");
        assert!(
            out.status.success(),
            "psql {sql:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Restart the server (`pg_ctl restart -m fast`): every open connection is
    /// closed, as in a server restart in production. Only on an [`own_cluster`]:
    /// other tests' connections break too.
    pub fn restart(&self) {
        let mut ctl = pg_cmd(&self.as_user, &self.bin, "pg_ctl");
        ctl.arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("log"))
            .args([
                "-w",
                "-t",
                "60",
                "-m",
                "fast",
                "-o",
                &self.options,
                "restart",
            ]);
        run(ctl, "pg_ctl restart").expect("the server restarts");
    }

    /// Stop the server (`pg_ctl stop -m fast`), as in an outage; [`start_again`]
    /// brings it back. Only for a test binary of its own (see [`restart`]).
    ///
    /// [`start_again`]: Self::start_again
    /// [`restart`]: Self::restart
    pub fn stop(&self) {
        let mut ctl = pg_cmd(&self.as_user, &self.bin, "pg_ctl");
        ctl.arg("-D")
            .arg(self.dir.join("data"))
            .args(["-w", "-t", "60", "-m", "fast", "stop"]);
        run(ctl, "pg_ctl stop").expect("the server stops");
    }

    /// Start the server stopped by [`stop`](Self::stop).
    pub fn start_again(&self) {
        let mut ctl = pg_cmd(&self.as_user, &self.bin, "pg_ctl");
        ctl.arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("log"))
            .args(["-w", "-t", "60", "-o", &self.options, "start"]);
        run(ctl, "pg_ctl start").expect("the server starts");
    }

    /// The URL's database name, for [`psql`](Self::psql).
    pub fn db_of(url: &str) -> &str {
        url.rsplit('/').next().unwrap_or(url)
    }
}

/// Run a PostgreSQL binary as the cluster's owner.
fn pg_cmd(as_user: &[String], bin: &Path, name: &str) -> Command {
    let exe = bin.join(name);
    match as_user.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(exe);
            c
        }
        None => Command::new(exe),
    }
}

fn run(mut c: Command, what: &str) -> Result<(), String> {
    let out = c
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

fn start() -> Result<Cluster, String> {
    let bin = find_bin().filter(|b| b.join("initdb").exists()).ok_or(
        "PostgreSQL is not installed (no initdb in $TOOLCAP_PG_BIN, /usr/lib/postgresql/*/bin \
             or PATH); install it with `apt-get install postgresql` to run these tests",
    )?;
    let root = unsafe { libc::geteuid() } == 0;
    let as_user: Vec<String> = if root {
        ["runuser", "-u", "nobody", "--"].map(String::from).to_vec()
    } else {
        Vec::new()
    };
    let dir = tempfile::Builder::new()
        .prefix("toolcap-pg-")
        .tempdir()
        .map_err(|e| format!("temporary directory: {e}"))?
        .keep();
    let password = format!("pw-{}-{}", std::process::id(), free_port()?);
    // (the directory goes if anything before the server's start fails)
    let cleanup = |e: String| {
        let _ = std::fs::remove_dir_all(&dir);
        e
    };
    std::fs::write(dir.join("pw"), &password)
        .map_err(|e| cleanup(format!("password file: {e}")))?;
    if root {
        let mut c = Command::new("chown");
        c.args(["-R", "nobody"]).arg(&dir);
        run(c, "chown the cluster directory to nobody").map_err(cleanup)?;
    }
    let data = dir.join("data");
    let mut init = pg_cmd(&as_user, &bin, "initdb");
    init.arg("-D")
        .arg(&data)
        .args(["-U", "toolcap", "-E", "UTF8", "--locale=C", "--no-sync"])
        .args(["--auth-host=scram-sha-256", "--auth-local=trust"])
        .arg(format!("--pwfile={}", dir.join("pw").display()));
    run(init, "initdb").map_err(cleanup)?;

    // the watcher: once this process is gone, stop the server and delete it all
    let stop = format!(
        "{} {} -D '{}' stop -m immediate",
        as_user.join(" "),
        bin.join("pg_ctl").display(),
        data.display()
    );
    let script = format!(
        "while kill -0 {} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf '{}'",
        std::process::id(),
        dir.display()
    );
    let fsync = if std::env::var("TOOLCAP_PG_FSYNC").is_ok_and(|v| v == "on") {
        "on"
    } else {
        "off"
    };
    let mut last = String::new();
    for _ in 0..5 {
        let port = free_port()?;
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync={fsync} -c max_connections=300",
            dir.display()
        );
        let mut ctl = pg_cmd(&as_user, &bin, "pg_ctl");
        ctl.arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.join("log"))
            .args(["-w", "-t", "60", "-o", &options])
            .arg("start");
        match run(ctl, "pg_ctl start") {
            Ok(()) => {
                {
                    use std::os::unix::process::CommandExt;
                    Command::new("sh")
                        .args(["-c", &script])
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .process_group(0)
                        .spawn()
                        .map_err(|e| format!("start the cleanup watcher: {e}"))?;
                }
                return Ok(Cluster {
                    port,
                    dir,
                    bin,
                    password,
                    as_user,
                    options,
                });
            }
            Err(e) => {
                last = format!(
                    "{e}\n{}",
                    std::fs::read_to_string(dir.join("log")).unwrap_or_default()
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Err(format!("PostgreSQL would not start: {last}"))
}
