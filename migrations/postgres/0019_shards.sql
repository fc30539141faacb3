-- Shards (issue 38, PRIORIS_MCP_DB_SHARDS): each work's passages, vectors and pages live
-- on one shard, beside a copy of its works row (the chunks' foreign key, their title
-- trigger and the search filters read it there). The primary notes here every work whose
-- row a statement changed, while the session says the library is sharded
-- (SET prioris.sharded = 'on', done by the sharded connection); the connection copies
-- those rows to their shards before its next statement on a shard and at COMMIT, then
-- empties the table. A one-server library never sets it: the trigger does nothing there.
-- ``op`` is the first change seen: a work INSERTed on the primary replaces whatever a
-- stopped write left of it on its shard.
CREATE TABLE shard_outbox (
    work_id TEXT COLLATE "C" PRIMARY KEY,
    op TEXT NOT NULL
);

CREATE FUNCTION prioris_shard_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO shard_outbox(work_id, op)
    VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END, TG_OP)
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
-- the condition is checked before any function runs: a one-server library pays a setting
-- lookup per changed row, nothing more
CREATE TRIGGER works_shard_outbox AFTER INSERT OR UPDATE OR DELETE ON works
    FOR EACH ROW WHEN (coalesce(current_setting('prioris.sharded', true), '') = 'on')
    EXECUTE FUNCTION prioris_shard_outbox();
