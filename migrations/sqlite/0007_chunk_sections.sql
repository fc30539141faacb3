-- The part of the paper each chunk comes from: abstract, body, references,
-- acknowledgements, funding, author_info (contributions, competing interests, data and
-- code availability, ethics) or appendix. Ingest labels new chunks from their headings
-- and text (prioris.ingest.sections); search ranks the back matter below a work's other
-- passages. Existing chunks get a label from their stored heading path here, so a library
-- benefits without a re-ingest (`ingest --force` also applies the run-in and
-- reference-list fallbacks, which need the text around each chunk).
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
