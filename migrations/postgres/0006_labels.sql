-- Collections and tags of works: see the SQLite migration 0008_labels.sql.
CREATE TABLE work_collections (
    work_id TEXT COLLATE "C" NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    source TEXT COLLATE "C" NOT NULL,
    path TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (work_id, source, path)
);
CREATE INDEX work_collections_path ON work_collections(path, work_id);

CREATE TABLE work_tags (
    work_id TEXT COLLATE "C" NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    source TEXT COLLATE "C" NOT NULL,
    tag TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (work_id, source, tag)
);
CREATE INDEX work_tags_tag ON work_tags(tag, work_id);
