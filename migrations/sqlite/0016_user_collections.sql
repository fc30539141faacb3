-- Collections made in Prioris (issue 37). A collection a reference manager gave exists
-- through its works' rows in work_collections; one made here may hold no work yet, so it
-- is kept here by its full path (segments joined by ' / ', as in work_collections), its
-- parents too. The works the user puts in a collection, and the tags the user gives, are
-- rows of work_collections and work_tags whose ``source`` is 'user' (a JSONL import's are
-- 'import'): that column is each label's origin, so a re-sync of Zotero or a re-import of
-- a BibTeX file replaces only the rows of its own source and never the user's. The rows
-- every library held before this migration came from a reference manager and keep their
-- source ('zotero', 'bibtex', 'ris'): they are the imported labels.
CREATE TABLE user_collections (
    path TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);
