-- One compacted snapshot per session, for sessions opened with
-- WithSnapshotEvery: the session's projection as of sequence, as JSON
-- (bytea, so NUL characters need no wrapping).
CREATE TABLE IF NOT EXISTS session_snapshots (
    session_id text   NOT NULL PRIMARY KEY,
    sequence   bigint NOT NULL,
    payload    bytea  NOT NULL
);
