-- As SQLite migration 0019_alerts.sql. Alerts that run and remember (issue 37). An alert ranks new candidates from its sources
-- for one profile: a collection (``collection``, its path or last name as given) or, for
-- an alert made from a saved search (``search``), the whole library. ``owner`` is the
-- account that made it in a shared library (NULL: the local user). ``last_run`` is the
-- moment of the last successful run (the next run asks its sources from then);
-- ``last_error`` is the last failed run's ``{"code", "message", "source"}`` (JSON), cleared
-- by a success. A run replaces the alert's rows in ``alert_results`` and its last_run in
-- one transaction, so a failed run leaves the previous results whole.
CREATE TABLE alerts (
    name TEXT COLLATE "C" PRIMARY KEY,
    owner TEXT,
    collection TEXT,
    search TEXT,
    sources TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_run TEXT,
    last_error TEXT
);
-- The latest successful run's ranked candidates, best first (``place`` from 1): what the
-- candidate is (its text kept so a triage can remember it), its identifiers (JSON list),
-- score, why (JSON) and whether the library already held it.
CREATE TABLE alert_results (
    alert TEXT NOT NULL,
    place INTEGER NOT NULL,
    candidate TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    url TEXT,
    identifiers TEXT NOT NULL,
    published TEXT,
    score DOUBLE PRECISION NOT NULL,
    why TEXT NOT NULL,
    in_library INTEGER NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (alert, candidate)
);
-- What the user did with a candidate: 'accepted' (fetched into the library) or
-- 'dismissed' (never shown again for that alert). The title and text are kept: each is a
-- positive or a negative of the alert's next rankings.
CREATE TABLE alert_triage (
    alert TEXT NOT NULL,
    candidate TEXT NOT NULL,
    verdict TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    identifiers TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (alert, candidate)
);
