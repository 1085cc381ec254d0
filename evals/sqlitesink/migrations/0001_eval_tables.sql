-- One row per run, with its summary; the JSON columns hold what does not
-- fit a flat column, complete.
CREATE TABLE eval_runs (
    run_id        TEXT    PRIMARY KEY,
    dataset       TEXT    NOT NULL,
    started_at    TEXT    NOT NULL, -- RFC 3339, UTC
    duration_ns   INTEGER NOT NULL,
    evaluators    TEXT    NOT NULL, -- JSON array of names
    cases         INTEGER NOT NULL,
    passed        INTEGER NOT NULL,
    failed        INTEGER NOT NULL,
    errors        INTEGER NOT NULL,
    mean_score    REAL    NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost          REAL    NOT NULL,
    summary       TEXT    NOT NULL  -- the report's summary as JSON
);

-- One row per case, in dataset order (case_index).
CREATE TABLE eval_cases (
    run_id         TEXT    NOT NULL REFERENCES eval_runs (run_id) ON DELETE CASCADE,
    case_index     INTEGER NOT NULL,
    case_id        TEXT    NOT NULL,
    line           INTEGER NOT NULL,
    input          TEXT    NOT NULL,
    expected       TEXT,             -- JSON, NULL when the case has none
    expected_tools TEXT,             -- JSON array, NULL when the case has none
    metadata       TEXT,             -- JSON object
    status         TEXT    NOT NULL, -- passed, failed or error
    output         TEXT    NOT NULL,
    error          TEXT,
    scores         TEXT    NOT NULL, -- JSON array of scores
    input_tokens   INTEGER NOT NULL,
    output_tokens  INTEGER NOT NULL,
    cost           REAL    NOT NULL,
    started_at     TEXT    NOT NULL,
    duration_ns    INTEGER NOT NULL,
    PRIMARY KEY (run_id, case_index)
) WITHOUT ROWID;

-- One row per session event of a case's run, in the canonical SessionEvent
-- form the session backends store: payload is the whole event as JSON;
-- kind and ts are copies kept for ad-hoc queries.
CREATE TABLE eval_events (
    run_id     TEXT    NOT NULL,
    case_index INTEGER NOT NULL,
    sequence   INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    ts         INTEGER NOT NULL, -- Unix nanoseconds
    payload    TEXT    NOT NULL,
    PRIMARY KEY (run_id, case_index, sequence),
    FOREIGN KEY (run_id, case_index) REFERENCES eval_cases (run_id, case_index) ON DELETE CASCADE
) WITHOUT ROWID;
