//! The store's schema, versioned: `PRAGMA user_version` is the number of
//! migrations applied, and opening a store applies the missing ones in one
//! transaction each. A migration is never edited once released; a change
//! is a new one at the end.

/// Migration `i` takes a store from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // 1: the results cache, raw observations (phase 1), consolidated
    //    templates and import pairs (phase 2), the consolidation lock.
    "CREATE TABLE results (
        key TEXT PRIMARY KEY,
        report TEXT NOT NULL,
        created INTEGER NOT NULL,
        last_used INTEGER NOT NULL,
        hits INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE observations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        signature TEXT NOT NULL,
        value TEXT NOT NULL,
        extra TEXT NOT NULL,
        worked INTEGER NOT NULL,
        at INTEGER NOT NULL
    );
    CREATE TABLE templates (
        signature TEXT NOT NULL,
        code TEXT NOT NULL,
        imports TEXT NOT NULL,
        uses INTEGER NOT NULL,
        failures INTEGER NOT NULL,
        last_used INTEGER NOT NULL,
        PRIMARY KEY (signature, code)
    );
    CREATE TABLE imports (
        module TEXT NOT NULL,
        distribution TEXT NOT NULL,
        uses INTEGER NOT NULL,
        last_used INTEGER NOT NULL,
        PRIMARY KEY (module, distribution)
    );
    CREATE TABLE lock (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        holder TEXT,
        until INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO lock (id, holder, until) VALUES (1, NULL, 0);",
    // 2: ranking reads templates by signature in rank order, pruning the
    //    results cache by age.
    "CREATE INDEX templates_rank ON templates (signature, uses, last_used);
    CREATE INDEX results_age ON results (last_used);",
    // 3: how often a template was kept where the rules' own first prefix
    //    had another value for the name (the search, not the first guess,
    //    found it): only such a template may lead a later first run.
    "ALTER TABLE observations ADD COLUMN found INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE templates ADD COLUMN found INTEGER NOT NULL DEFAULT 0;",
];

/// The version a store has once every migration is applied.
pub fn current_version() -> i64 {
    MIGRATIONS.len() as i64
}
