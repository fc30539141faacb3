-- The part of the paper each chunk comes from: abstract, body, references,
-- acknowledgements, funding, author_info (contributions, competing interests, data and
-- code availability, ethics) or appendix. Ingest labels new chunks from their headings
-- and text (prioris.ingest.sections); search ranks the back matter below a work's other
-- passages. Existing chunks get a label from their stored heading path here, so a library
-- benefits without a re-ingest (`ingest --force` also applies the run-in and
-- reference-list fallbacks, which need the text around each chunk).
-- The label is read from the last heading of the stored path (the deepest section) by
-- name, as the labeller does; a long heading that merely contains such a word stays
-- body, and so does a record's only heading, its title.
ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT 'body';

UPDATE chunks SET section = CASE
    WHEN (x.l LIKE 'acknowledg%' AND length(x.l) <= 26)
        OR (x.l LIKE '% acknowledg%' AND length(x.l) <= 26)
        THEN 'acknowledgements'
    WHEN (x.l LIKE 'funding%' AND length(x.l) <= 23)
        OR (x.l LIKE '% funding%' AND length(x.l) <= 23)
        OR (x.l LIKE 'financial support%' AND length(x.l) <= 33)
        OR (x.l LIKE '% financial support%' AND length(x.l) <= 33)
        OR (x.l LIKE 'financial disclosure%' AND length(x.l) <= 36)
        OR (x.l LIKE '% financial disclosure%' AND length(x.l) <= 36)
        THEN 'funding'
    WHEN (x.l LIKE 'competing interest%' AND length(x.l) <= 34)
        OR (x.l LIKE '% competing interest%' AND length(x.l) <= 34)
        OR (x.l LIKE 'conflict of interest%' AND length(x.l) <= 36)
        OR (x.l LIKE '% conflict of interest%' AND length(x.l) <= 36)
        OR (x.l LIKE 'conflicts of interest%' AND length(x.l) <= 37)
        OR (x.l LIKE '% conflicts of interest%' AND length(x.l) <= 37)
        OR (x.l LIKE 'author contribution%' AND length(x.l) <= 35)
        OR (x.l LIKE '% author contribution%' AND length(x.l) <= 35)
        OR (x.l LIKE 'authors'' contribution%' AND length(x.l) <= 37)
        OR (x.l LIKE '% authors'' contribution%' AND length(x.l) <= 37)
        OR (x.l LIKE 'authors’ contribution%' AND length(x.l) <= 37)
        OR (x.l LIKE '% authors’ contribution%' AND length(x.l) <= 37)
        OR (x.l LIKE 'data availability%' AND length(x.l) <= 33)
        OR (x.l LIKE '% data availability%' AND length(x.l) <= 33)
        OR (x.l LIKE 'code availability%' AND length(x.l) <= 33)
        OR (x.l LIKE '% code availability%' AND length(x.l) <= 33)
        OR (x.l LIKE 'availability of data%' AND length(x.l) <= 36)
        OR (x.l LIKE '% availability of data%' AND length(x.l) <= 36)
        OR (x.l LIKE 'declarations%' AND length(x.l) <= 28)
        OR (x.l LIKE '% declarations%' AND length(x.l) <= 28)
        OR (x.l LIKE 'ethics statement%' AND length(x.l) <= 32)
        OR (x.l LIKE '% ethics statement%' AND length(x.l) <= 32)
        OR (x.l LIKE 'ethical approval%' AND length(x.l) <= 32)
        OR (x.l LIKE '% ethical approval%' AND length(x.l) <= 32)
        OR (x.l LIKE 'author information%' AND length(x.l) <= 34)
        OR (x.l LIKE '% author information%' AND length(x.l) <= 34)
        OR (x.l LIKE 'consent for publication%' AND length(x.l) <= 39)
        OR (x.l LIKE '% consent for publication%' AND length(x.l) <= 39)
        OR (x.l LIKE 'additional information%' AND length(x.l) <= 38)
        OR (x.l LIKE '% additional information%' AND length(x.l) <= 38)
        THEN 'author_info'
    WHEN (x.l LIKE 'references%' AND length(x.l) <= 26)
        OR (x.l LIKE '% references%' AND length(x.l) <= 26)
        OR (x.l LIKE 'bibliography%' AND length(x.l) <= 28)
        OR (x.l LIKE '% bibliography%' AND length(x.l) <= 28)
        OR (x.l LIKE 'literature cited%' AND length(x.l) <= 32)
        OR (x.l LIKE '% literature cited%' AND length(x.l) <= 32)
        THEN 'references'
    WHEN x.l LIKE 'appendix%'
        OR (x.l LIKE '% appendix%' AND length(x.l) <= 24)
        OR x.l LIKE 'appendices%'
        OR (x.l LIKE '% appendices%' AND length(x.l) <= 26)
        OR (x.l LIKE 'supplementary material%' AND length(x.l) <= 38)
        OR (x.l LIKE '% supplementary material%' AND length(x.l) <= 38)
        OR (x.l LIKE 'supplementary information%' AND length(x.l) <= 41)
        OR (x.l LIKE '% supplementary information%' AND length(x.l) <= 41)
        THEN 'appendix'
    WHEN (x.l LIKE 'abstract%' AND length(x.l) <= 24)
        OR (x.l LIKE '% abstract%' AND length(x.l) <= 24)
        THEN 'abstract'
    ELSE 'body'
END
FROM (
    SELECT c.id, lower(trim(replace(c.heading, rtrim(c.heading, replace(c.heading, '>', '')), ''))) AS l
    FROM chunks c JOIN works w ON w.id = c.work_id
    WHERE c.heading <> '' AND c.heading <> w.title
) AS x
WHERE x.id = chunks.id;
