//! The store's connection pool: at most [`MAX_CONNECTIONS`] connections, opened
//! as needed, each with the statements prepared on it; a connection the server
//! closed is dropped, not handed out again.
//!
//! (Why not `r2d2`: its `get` retries a failed connect in the background until
//! its timeout and then reports the last error as a string, so a wrong password
//! would wait the whole timeout and lose the SQLSTATE that names the fix; this
//! pool fails at once with the client's typed error.)

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Statement};

/// Most connections one store opens at once; callers beyond that wait.
pub const MAX_CONNECTIONS: usize = 8;

/// How long a caller waits for a free connection when all are busy.
pub(super) const POOL_WAIT: Duration = Duration::from_secs(60);

pub(super) enum PoolError {
    Pg(postgres::Error),
    Busy,
}

pub(super) struct Pool {
    config: Config,
    state: Mutex<PoolState>,
    freed: Condvar,
}

struct PoolState {
    idle: Vec<Pg>,
    open: usize,
}

/// A connection and the statements prepared on it.
pub(super) struct Pg {
    pub(super) client: Client,
    stmts: HashMap<String, Statement>,
}

impl Pg {
    /// `sql` prepared on this connection (once: a statement is parsed and planned
    /// by the server the first time only).
    pub(super) fn prep(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        if let Some(st) = self.stmts.get(sql) {
            return Ok(st.clone());
        }
        let st = self.client.prepare(sql)?;
        self.stmts.insert(sql.to_string(), st.clone());
        Ok(st)
    }

    pub(super) fn execute(
        &mut self,
        sql: &str,
        p: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        let st = self.prep(sql)?;
        self.client.execute(&st, p)
    }

    pub(super) fn query(
        &mut self,
        sql: &str,
        p: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, postgres::Error> {
        let st = self.prep(sql)?;
        self.client.query(&st, p)
    }

    pub(super) fn is_closed(&self) -> bool {
        self.client.is_closed()
    }
}

/// A pooled connection, given back when dropped (unless the server closed it).
pub(super) struct Conn<'a> {
    pool: &'a Pool,
    pg: Option<Pg>,
    /// Taken from the idle ones (it may have been closed meanwhile).
    pub(super) reused: bool,
}

impl Pool {
    pub(super) fn new(config: Config) -> Pool {
        Pool {
            config,
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                open: 0,
            }),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // the state is two plain fields: a panic cannot leave it half-changed
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn get(&self) -> Result<Conn<'_>, PoolError> {
        let deadline = Instant::now() + POOL_WAIT;
        let mut state = self.lock();
        loop {
            while let Some(client) = state.idle.pop() {
                if client.is_closed() {
                    state.open -= 1;
                    continue;
                }
                return Ok(Conn {
                    pool: self,
                    pg: Some(client),
                    reused: true,
                });
            }
            if state.open < MAX_CONNECTIONS {
                state.open += 1;
                drop(state);
                return match self.config.connect(NoTls) {
                    Ok(client) => Ok(Conn {
                        pool: self,
                        pg: Some(Pg {
                            client,
                            stmts: HashMap::new(),
                        }),
                        reused: false,
                    }),
                    Err(e) => {
                        self.lock().open -= 1;
                        self.freed.notify_one();
                        Err(PoolError::Pg(e))
                    }
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(PoolError::Busy);
            }
            state = self
                .freed
                .wait_timeout(state, left)
                .map_or_else(|p| p.into_inner().0, |(s, _)| s);
        }
    }
}

impl Deref for Conn<'_> {
    type Target = Pg;
    fn deref(&self) -> &Pg {
        // Some until dropped
        self.pg.as_ref().unwrap_or_else(|| unreachable!())
    }
}

impl DerefMut for Conn<'_> {
    fn deref_mut(&mut self) -> &mut Pg {
        self.pg.as_mut().unwrap_or_else(|| unreachable!())
    }
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        match self.pg.take() {
            Some(c) if !c.is_closed() => state.idle.push(c),
            _ => state.open -= 1,
        }
        drop(state);
        self.pool.freed.notify_one();
    }
}
