-- Works, their identifier aliases, original documents, Markdown pages, chunks and the FTS5 index.
CREATE TABLE works (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    authors TEXT NOT NULL DEFAULT '[]',
    year INTEGER,
    venue TEXT,
    abstract TEXT,
    source TEXT NOT NULL,
    published TEXT,
    type TEXT,
    is_oa INTEGER,
    oa_status TEXT,
    pdf_url TEXT,
    cited_by_count INTEGER,
    concepts TEXT NOT NULL DEFAULT '[]',
    is_preprint INTEGER,
    extra TEXT NOT NULL DEFAULT '{}',
    markdown TEXT NOT NULL DEFAULT '',
    markdown_sha256 TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX works_year ON works(year);
CREATE INDEX works_source ON works(source);

CREATE TABLE aliases (
    alias TEXT PRIMARY KEY,
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE
);
CREATE INDEX aliases_work ON aliases(work_id);

CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    size_bytes INTEGER NOT NULL,
    content BLOB NOT NULL
);

CREATE TABLE documents (
    sha256 TEXT PRIMARY KEY REFERENCES blobs(sha256),
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    format TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    page_count INTEGER NOT NULL DEFAULT 0,
    ocr_pages INTEGER NOT NULL DEFAULT 0,
    parser_version TEXT NOT NULL DEFAULT '',
    path TEXT,
    url TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX documents_work ON documents(work_id);

CREATE TABLE pages (
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    ocr INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (work_id, number)
);

CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    work_id TEXT NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    page_start INTEGER NOT NULL,
    page_end INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    heading TEXT NOT NULL DEFAULT '',
    token_count INTEGER NOT NULL DEFAULT 0,
    embedding_model TEXT
);
CREATE INDEX chunks_work ON chunks(work_id, ordinal);
CREATE INDEX chunks_stale ON chunks(embedding_model);

-- Chunk text plus its work's title, so titles weigh in BM25; rowid = chunks.id.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, title, heading,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE index_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
