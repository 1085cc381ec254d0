-- One row per event. payload is the whole event as JSON, its timestamp
-- included, so the nanoseconds a timestamptz would round away survive; ts
-- and kind are copies kept for queries. The payload's "seq" is always 0:
-- the sequence column is the authority.
CREATE TABLE IF NOT EXISTS session_events (
    session_id text        NOT NULL,
    sequence   bigint      NOT NULL,
    kind       text        NOT NULL,
    ts         timestamptz NOT NULL,
    payload    jsonb       NOT NULL,
    PRIMARY KEY (session_id, sequence)
);
