-- Snowball candidates the user dismissed (``key``: the candidate's identity, a DOI,
-- arXiv id, OpenAlex id or normalised title + year), so they are not shown again.
CREATE TABLE snowball_dismissed (
    key TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    dismissed_at TEXT NOT NULL
);
