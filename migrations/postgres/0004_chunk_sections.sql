-- Chunk sections: see the SQLite migration 0007_chunk_sections.sql (same labels, same
-- backfill from the stored heading paths).
ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT 'body';

UPDATE chunks SET section = CASE
    WHEN lower(heading) LIKE '%acknowledg%' THEN 'acknowledgements'
    WHEN lower(heading) LIKE '%funding%' OR lower(heading) LIKE '%financial support%'
        OR lower(heading) LIKE '%financial disclosure%' THEN 'funding'
    WHEN lower(heading) LIKE '%competing interest%' OR lower(heading) LIKE '%conflict of interest%'
        OR lower(heading) LIKE '%conflicts of interest%' OR lower(heading) LIKE '%contributions'
        OR lower(heading) LIKE '%data availability%' OR lower(heading) LIKE '%code availability%'
        OR lower(heading) LIKE '%availability of data%' OR lower(heading) LIKE '%declarations'
        OR lower(heading) LIKE '%ethics statement%' OR lower(heading) LIKE '%ethical approval%'
        OR lower(heading) LIKE '%author information' OR lower(heading) LIKE '%consent for publication'
        THEN 'author_info'
    WHEN lower(heading) LIKE '%references' OR lower(heading) LIKE '%bibliography'
        OR lower(heading) LIKE '%literature cited' THEN 'references'
    WHEN lower(heading) LIKE '%appendix%' OR lower(heading) LIKE '%appendices%'
        OR lower(heading) LIKE '%supplementary material%' THEN 'appendix'
    WHEN lower(heading) LIKE '%abstract' THEN 'abstract'
    ELSE 'body'
END
WHERE heading <> '';
