-- One row per event. The payload is the whole event as JSON, timestamp
-- included, so nothing is lost to a column type; ts (Unix nanoseconds) and
-- kind are copies kept for ad-hoc queries.
CREATE TABLE session_events (
    session_id TEXT    NOT NULL,
    sequence   INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    ts         INTEGER NOT NULL,
    payload    TEXT    NOT NULL,
    PRIMARY KEY (session_id, sequence)
) WITHOUT ROWID;
