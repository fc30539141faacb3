-- The researcher's own words from a reference manager, and what each sync last saw.
--
-- ``work_notes``: child notes (HTML turned to text) and PDF annotations (highlights,
-- underlines, comments) a reference manager keeps with an item, kept with the item's work.
-- Each is also indexed as a passage of the work (``chunks.section`` 'note' or 'highlight'),
-- so search finds them and marks them as the user's; this table is where they come from
-- and what the Read page shows at their page.
CREATE TABLE work_notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    note_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL DEFAULT '',
    comment TEXT NOT NULL DEFAULT '',
    color TEXT NOT NULL DEFAULT '',
    page_label TEXT NOT NULL DEFAULT '',
    page INTEGER,
    UNIQUE (work_id, source, note_key)
);
CREATE INDEX work_notes_work ON work_notes(work_id);

-- One row per item a sync (``zotero sync``, ``import refs.bib``) has stored: ``scope`` is
-- where the items come from ('zotero', or 'bibtex:<absolute path>'), ``item_key`` the
-- manager's key, ``fingerprint`` a hash of everything the sync stores of the item (so an
-- unchanged item is skipped without touching the library), ``files`` a JSON object
-- {attachment key: {"sha256", "size", "mtime_ns"}} of the files it ingested (a file whose
-- size and time are unchanged is not read again). Written after the item's work, in the
-- same transaction, so a sync killed at any point redoes only the items it had not
-- finished.
CREATE TABLE refsync_items (
    scope TEXT NOT NULL,
    item_key TEXT NOT NULL,
    work_id TEXT,
    fingerprint TEXT NOT NULL,
    files TEXT NOT NULL DEFAULT '{}',
    synced_at TEXT NOT NULL,
    PRIMARY KEY (scope, item_key)
);
CREATE INDEX refsync_items_work ON refsync_items(work_id);
