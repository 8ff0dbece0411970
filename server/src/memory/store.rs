//! The SQLite file behind memory: one per cache dir, shared by every
//! server and CLI of the user (WAL, a busy timeout, short transactions).
//! A file that is not a healthy store of a version this engine knows is
//! moved aside and a fresh one is built in its place.

use super::schema::{current_version, MIGRATIONS};
use super::MemoryError;
use rusqlite::{params, Connection, ErrorCode, OptionalExtension, TransactionBehavior};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// File name of the store inside its folder.
pub const FILE: &str = "memory.sqlite3";
/// How long a writer waits for another before giving up on one statement.
const BUSY: Duration = Duration::from_secs(10);
/// A consolidation lock older than this is taken over (its holder died).
const LOCK_SECONDS: i64 = 120;

/// One value template that made a usage signature run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Template {
    pub signature: String,
    /// A Python expression.
    pub code: String,
    /// The import statements it needs.
    pub imports: Vec<String>,
    pub uses: i64,
    pub failures: i64,
    /// Of its uses, those where the rules' own first prefix had another
    /// value for the name: the search (or this template leading) found it.
    pub found: i64,
    pub last_used: i64,
}

/// What phase 1 records after a job, before consolidation folds it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// A template that ran (`worked`) or was tried and lost (`!worked`);
    /// `found`: it worked where the rules' first prefix had another value.
    Template { signature: String, code: String, imports: Vec<String>, worked: bool, found: bool },
    /// An import that installed (with consent) and imported.
    Import { module: String, distribution: String },
}

/// Counts, for `runnable memory stats`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub path: String,
    pub schema_version: i64,
    pub results: i64,
    pub result_hits: i64,
    pub templates: i64,
    pub imports: i64,
    pub pending_observations: i64,
    pub bytes: u64,
}

/// What one consolidation did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Consolidated {
    pub folded: usize,
    pub pruned: usize,
}

pub struct Store {
    conn: Mutex<Connection>,
    path: PathBuf,
    /// Where a corrupt file found at open was moved.
    pub moved_aside: Option<PathBuf>,
}

pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase))
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked))
}

impl Store {
    /// Open (or create) the store in `dir`; a corrupt or unknown file is
    /// moved aside (`memory.sqlite3.corrupt-<time>`) and rebuilt.
    pub fn open(dir: &Path) -> Result<Store, MemoryError> {
        std::fs::create_dir_all(dir).map_err(|e| MemoryError::Io(dir.to_path_buf(), e))?;
        let path = dir.join(FILE);
        match Self::open_retrying(&path) {
            Ok(conn) => Ok(Store { conn: Mutex::new(conn), path, moved_aside: None }),
            Err(OpenError::Unusable(why)) => {
                tracing::warn!("memory store {} is unusable ({why}); moving it aside", path.display());
                let aside = move_aside(&path)?;
                let conn = Self::open_checked(&path).map_err(|e| match e {
                    OpenError::Unusable(why) => MemoryError::Unusable(path.clone(), why),
                    OpenError::Sql(e) => MemoryError::Sql(e),
                })?;
                Ok(Store { conn: Mutex::new(conn), path, moved_aside: Some(aside) })
            }
            Err(OpenError::Sql(e)) => Err(MemoryError::Sql(e)),
        }
    }

    /// `open_checked`, again after a pause while another process holds
    /// the file: switching a new file to WAL takes an exclusive lock and
    /// SQLite reports "database is locked" at once rather than waiting in
    /// the busy handler, so two servers starting together would race.
    fn open_retrying(path: &Path) -> Result<Connection, OpenError> {
        let deadline = std::time::Instant::now() + BUSY;
        loop {
            match Self::open_checked(path) {
                Err(OpenError::Sql(e)) if is_busy(&e) && std::time::Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
                other => return other,
            }
        }
    }

    fn open_checked(path: &Path) -> Result<Connection, OpenError> {
        let conn = Connection::open(path).map_err(OpenError::from)?;
        conn.busy_timeout(BUSY).map_err(OpenError::from)?;
        // Reading the header is what tells garbage from a database.
        let check: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(OpenError::from)?;
        if check != "ok" {
            return Err(OpenError::Unusable(format!("integrity check: {check}")));
        }
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(OpenError::from)?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!("memory store journal mode is {mode}, not WAL");
        }
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(OpenError::from)?;
        migrate(&conn)?;
        Ok(conn)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The stored report for a results-cache key (and count the hit).
    pub fn result(&self, key: &str) -> Result<Option<String>, MemoryError> {
        let conn = self.conn();
        let report: Option<String> = conn.query_row("SELECT report FROM results WHERE key = ?1", [key], |r| r.get(0)).optional()?;
        if report.is_some() {
            conn.execute("UPDATE results SET hits = hits + 1, last_used = ?2 WHERE key = ?1", params![key, now()])?;
        }
        Ok(report)
    }

    pub fn put_result(&self, key: &str, report: &str) -> Result<(), MemoryError> {
        let t = now();
        self.conn().execute(
            "INSERT INTO results (key, report, created, last_used, hits) VALUES (?1, ?2, ?3, ?3, 0)
             ON CONFLICT (key) DO UPDATE SET report = excluded.report, last_used = excluded.last_used",
            params![key, report, t],
        )?;
        Ok(())
    }

    /// Phase 1's output, recorded as it is (consolidation folds it in).
    pub fn observe(&self, observations: &[Observation]) -> Result<(), MemoryError> {
        if observations.is_empty() {
            return Ok(());
        }
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let t = now();
        for o in observations {
            match o {
                Observation::Template { signature, code, imports, worked, found } => {
                    tx.execute(
                        "INSERT INTO observations (kind, signature, value, extra, worked, found, at) VALUES ('template', ?1, ?2, ?3, ?4, ?5, ?6)",
                        params![signature, code, serde_json::to_string(imports).unwrap_or_default(), *worked as i64, (*worked && *found) as i64, t],
                    )?;
                }
                Observation::Import { module, distribution } => {
                    tx.execute(
                        "INSERT INTO observations (kind, signature, value, extra, worked, at) VALUES ('import', ?1, ?2, '', 1, ?3)",
                        params![module, distribution, t],
                    )?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The best `limit` templates for `signature` worth a run: most net
    /// uses first, then the most recent. Only one a search found there
    /// (`found`): one that was only ever the rules' first guess is what the
    /// rules compute from a fragment's text, and on another text they
    /// compute their own, made for it. And only while its uses outnumber
    /// twice its failures (as the ranking weighs them): each failure cost a
    /// run, and one that fails every other time costs more than it saves.
    pub fn templates_for(&self, signature: &str, limit: usize) -> Result<Vec<Template>, MemoryError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT signature, code, imports, uses, failures, found, last_used FROM templates
             WHERE signature = ?1 AND found > 0 AND uses > 2 * failures
             ORDER BY uses - 2 * failures DESC, last_used DESC, code LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![signature, limit as i64], template_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Phase 2: fold the pending observations into templates and import
    /// pairs (duplicates merged: one row per signature and code), rank and
    /// prune to `cap` templates and `cap` results. One consolidation at a
    /// time: `None` when another process holds the lock (it folds ours too).
    pub fn consolidate(&self, cap: usize, holder: &str) -> Result<Option<Consolidated>, MemoryError> {
        if !self.take_lock(holder)? {
            return Ok(None);
        }
        let done = self.fold_and_prune(cap);
        // Release even when folding failed, so the next job can try.
        let released = self.conn().execute("UPDATE lock SET holder = NULL, until = 0 WHERE id = 1 AND holder = ?1", [holder]);
        let done = done?;
        released?;
        Ok(Some(done))
    }

    fn take_lock(&self, holder: &str) -> Result<bool, MemoryError> {
        let t = now();
        let taken = self.conn().execute(
            "UPDATE lock SET holder = ?1, until = ?2 WHERE id = 1 AND (holder IS NULL OR until < ?3)",
            params![holder, t + LOCK_SECONDS, t],
        )?;
        Ok(taken == 1)
    }

    /// Whether someone holds the consolidation lock now.
    pub fn locked(&self) -> Result<bool, MemoryError> {
        let holder: Option<String> = self.conn().query_row("SELECT holder FROM lock WHERE id = 1 AND until >= ?1", [now()], |r| r.get(0)).optional()?.flatten();
        Ok(holder.is_some())
    }

    fn fold_and_prune(&self, cap: usize) -> Result<Consolidated, MemoryError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let last: i64 = tx.query_row("SELECT COALESCE(MAX(id), 0) FROM observations", [], |r| r.get(0))?;
        let folded = tx.query_row("SELECT COUNT(*) FROM observations WHERE id <= ?1", [last], |r| r.get::<_, i64>(0))? as usize;
        // Duplicates merge: the same signature and code is one template,
        // its uses and failures summed, its last use the latest.
        tx.execute(
            "INSERT INTO templates (signature, code, imports, uses, failures, found, last_used)
             SELECT signature, value, MAX(extra), SUM(worked), SUM(1 - worked), SUM(found), MAX(at)
             FROM observations WHERE kind = 'template' AND id <= ?1 GROUP BY signature, value
             ON CONFLICT (signature, code) DO UPDATE SET
                uses = uses + excluded.uses,
                failures = failures + excluded.failures,
                found = found + excluded.found,
                last_used = MAX(last_used, excluded.last_used)",
            [last],
        )?;
        tx.execute(
            "INSERT INTO imports (module, distribution, uses, last_used)
             SELECT signature, value, COUNT(*), MAX(at)
             FROM observations WHERE kind = 'import' AND id <= ?1 GROUP BY signature, value
             ON CONFLICT (module, distribution) DO UPDATE SET
                uses = uses + excluded.uses,
                last_used = MAX(last_used, excluded.last_used)",
            [last],
        )?;
        tx.execute("DELETE FROM observations WHERE id <= ?1", [last])?;
        // Rank (net uses, then recency) and keep the best `cap` of each.
        let mut pruned = tx.execute(
            "DELETE FROM templates WHERE rowid NOT IN (
                SELECT rowid FROM templates ORDER BY uses - 2 * failures DESC, last_used DESC LIMIT ?1)",
            [cap as i64],
        )?;
        pruned += tx.execute("DELETE FROM imports WHERE rowid NOT IN (SELECT rowid FROM imports ORDER BY uses DESC, last_used DESC LIMIT ?1)", [cap as i64])?;
        pruned += tx.execute("DELETE FROM results WHERE rowid NOT IN (SELECT rowid FROM results ORDER BY last_used DESC LIMIT ?1)", [cap as i64])?;
        tx.commit()?;
        Ok(Consolidated { folded, pruned })
    }

    pub fn stats(&self) -> Result<Stats, MemoryError> {
        let conn = self.conn();
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, Option<i64>>(0)).map(|n| n.unwrap_or(0));
        Ok(Stats {
            path: self.path.display().to_string(),
            schema_version: conn.query_row("PRAGMA user_version", [], |r| r.get(0))?,
            results: count("SELECT COUNT(*) FROM results")?,
            result_hits: count("SELECT SUM(hits) FROM results")?,
            templates: count("SELECT COUNT(*) FROM templates")?,
            imports: count("SELECT COUNT(*) FROM imports")?,
            pending_observations: count("SELECT COUNT(*) FROM observations")?,
            bytes: std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0),
        })
    }

    /// Forget everything (the schema stays).
    pub fn clear(&self) -> Result<(), MemoryError> {
        self.conn().execute_batch("BEGIN IMMEDIATE; DELETE FROM results; DELETE FROM observations; DELETE FROM templates; DELETE FROM imports; COMMIT; VACUUM;")?;
        Ok(())
    }

    /// What is remembered, as JSON (results by key only: reports are large).
    pub fn export(&self) -> Result<serde_json::Value, MemoryError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT signature, code, imports, uses, failures, found, last_used FROM templates ORDER BY signature, uses - 2 * failures DESC")?;
        let templates: Vec<Template> = stmt.query_map([], template_row)?.collect::<Result<_, _>>()?;
        let mut stmt = conn.prepare("SELECT module, distribution, uses, last_used FROM imports ORDER BY module")?;
        let imports: Vec<serde_json::Value> = stmt
            .query_map([], |r| {
                Ok(serde_json::json!({"module": r.get::<_, String>(0)?, "distribution": r.get::<_, String>(1)?, "uses": r.get::<_, i64>(2)?, "last_used": r.get::<_, i64>(3)?}))
            })?
            .collect::<Result<_, _>>()?;
        let mut stmt = conn.prepare("SELECT key, created, last_used, hits FROM results ORDER BY last_used DESC")?;
        let results: Vec<serde_json::Value> = stmt
            .query_map([], |r| {
                Ok(serde_json::json!({"key": r.get::<_, String>(0)?, "created": r.get::<_, i64>(1)?, "last_used": r.get::<_, i64>(2)?, "hits": r.get::<_, i64>(3)?}))
            })?
            .collect::<Result<_, _>>()?;
        Ok(serde_json::json!({"templates": templates, "imports": imports, "results": results}))
    }

    /// Every text column of every row (for checks that nothing secret is kept).
    pub fn all_text(&self) -> Result<Vec<String>, MemoryError> {
        let conn = self.conn();
        let mut out = Vec::new();
        for sql in [
            "SELECT key || ' ' || report FROM results",
            "SELECT signature || ' ' || value || ' ' || extra FROM observations",
            "SELECT signature || ' ' || code || ' ' || imports FROM templates",
            "SELECT module || ' ' || distribution FROM imports",
        ] {
            let mut stmt = conn.prepare(sql)?;
            out.extend(stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?);
        }
        Ok(out)
    }
}

fn template_row(r: &rusqlite::Row) -> rusqlite::Result<Template> {
    let imports: String = r.get(2)?;
    Ok(Template {
        signature: r.get(0)?,
        code: r.get(1)?,
        imports: serde_json::from_str(&imports).unwrap_or_default(),
        uses: r.get(3)?,
        failures: r.get(4)?,
        found: r.get(5)?,
        last_used: r.get(6)?,
    })
}

enum OpenError {
    /// Not a store this engine can use: corrupt, garbage, a newer schema.
    Unusable(String),
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for OpenError {
    fn from(e: rusqlite::Error) -> Self {
        if is_corruption(&e) {
            OpenError::Unusable(e.to_string())
        } else {
            OpenError::Sql(e)
        }
    }
}

/// Apply the migrations the store lacks, each in its own transaction.
fn migrate(conn: &Connection) -> Result<(), OpenError> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > current_version() {
        // A newer engine's store: not ours to change or read.
        return Err(OpenError::Unusable(format!("schema version {version} is newer than this engine's {}", current_version())));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        // IMMEDIATE: the write lock first (waiting out other writers), then
        // the version again: another process may have migrated meanwhile.
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let step = (|| {
            let now_version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            if now_version <= i as i64 {
                conn.execute_batch(sql)?;
                conn.pragma_update(None, "user_version", i as i64 + 1)?;
            }
            conn.execute_batch("COMMIT")
        })();
        if let Err(e) = step {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(e.into());
        }
    }
    Ok(())
}

/// Move a store file (and its WAL and shared-memory files) out of the way.
fn move_aside(path: &Path) -> Result<PathBuf, MemoryError> {
    let aside = path.with_extension(format!("sqlite3.corrupt-{}-{}", now(), std::process::id()));
    if path.exists() {
        std::fs::rename(path, &aside).map_err(|e| MemoryError::Io(path.to_path_buf(), e))?;
    }
    for suffix in ["-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{suffix}", path.display()));
        if side.exists() {
            let _ = std::fs::rename(&side, PathBuf::from(format!("{}{suffix}", aside.display())));
        }
    }
    Ok(aside)
}
