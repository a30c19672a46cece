-- 0001: the engagement record. Never edit once released; add 0002_… instead.

CREATE TABLE engagement (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    engagement_id TEXT NOT NULL,
    client        TEXT NOT NULL DEFAULT '',
    project       TEXT NOT NULL,
    target_soc    TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    created_by    TEXT NOT NULL
);

CREATE TABLE config (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE phases (
    name          TEXT PRIMARY KEY,
    ord           INTEGER NOT NULL UNIQUE,
    signed_off_at TEXT,
    signed_off_by TEXT,
    note          TEXT
);
-- The rows come from plugins/data/phases.json: the store fills them when it opens a record.

CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    actor       TEXT NOT NULL,
    scope       TEXT NOT NULL,          -- JSON: {"phases":[…],"plugins":[…]}
    nfindings   INTEGER NOT NULL DEFAULT 0,
    nerrors     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE plugin_errors (
    id      INTEGER PRIMARY KEY,
    run_id  INTEGER NOT NULL REFERENCES runs(id),
    plugin  TEXT NOT NULL,
    message TEXT NOT NULL
);

CREATE TABLE findings (
    id          INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    plugin      TEXT NOT NULL,
    phase       TEXT NOT NULL REFERENCES phases(name),
    severity    TEXT NOT NULL CHECK (severity IN ('error', 'warning', 'info')),
    category    TEXT,
    file        TEXT NOT NULL DEFAULT '',
    line        INTEGER NOT NULL DEFAULT 0,
    col         INTEGER NOT NULL DEFAULT 0,
    end_line    INTEGER NOT NULL DEFAULT 0,
    end_col     INTEGER NOT NULL DEFAULT 0,
    message     TEXT NOT NULL,
    suggestion  TEXT NOT NULL DEFAULT '',
    edits       TEXT,                  -- JSON array of {start_byte,end_byte,text} or NULL
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'fixed', 'waived')),
    first_run   INTEGER REFERENCES runs(id),
    last_run    INTEGER REFERENCES runs(id),
    fixed_by    INTEGER REFERENCES checkpoints(id),
    UNIQUE (plugin, file, fingerprint)
);
CREATE INDEX findings_phase ON findings (phase, status);

CREATE TABLE waivers (
    id         INTEGER PRIMARY KEY,
    finding_id INTEGER NOT NULL REFERENCES findings(id),
    reason     TEXT NOT NULL CHECK (length(reason) > 0),
    actor      TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE checkpoints (
    id         INTEGER PRIMARY KEY,
    commit_oid TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL CHECK (kind IN ('baseline', 'fix', 'manual', 'revert', 'generated', 'recovered')),
    message    TEXT NOT NULL,
    actor      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    phase      TEXT,
    plugin     TEXT,
    findings   TEXT,                   -- JSON array of finding ids
    reverts    INTEGER REFERENCES checkpoints(id)
);

CREATE TABLE artifacts (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    label       TEXT NOT NULL DEFAULT '',
    path        TEXT NOT NULL,          -- relative to .ferry/artifacts/
    source      TEXT NOT NULL,          -- where it was ingested from
    sha256      TEXT NOT NULL,
    size        INTEGER NOT NULL,
    ingested_at TEXT NOT NULL,
    actor       TEXT NOT NULL
);

CREATE TABLE metrics (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES runs(id),
    plugin      TEXT NOT NULL,
    name        TEXT NOT NULL,
    value       REAL NOT NULL,
    unit        TEXT NOT NULL DEFAULT ''
);

-- The audit chain: each row's hash = SHA-256(prev_hash || "\n" || payload), where
-- payload is the event's canonical JSON. Rows are only ever appended.
CREATE TABLE audit (
    seq       INTEGER PRIMARY KEY,
    prev_hash TEXT NOT NULL,
    payload   TEXT NOT NULL,
    hash      TEXT NOT NULL UNIQUE
);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
