-- One compacted snapshot per session, for sessions opened with
-- WithSnapshotEvery: the session's projection as of sequence, as JSON.
CREATE TABLE session_snapshots (
    session_id TEXT    NOT NULL PRIMARY KEY,
    sequence   INTEGER NOT NULL,
    payload    BLOB    NOT NULL
) WITHOUT ROWID;
