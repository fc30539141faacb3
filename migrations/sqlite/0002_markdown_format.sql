-- The format of the document a work's indexed Markdown was parsed from, kept on the work so
-- the Markdown keeps its format after that document alone is deleted (PriorisMCP deletes
-- the "document" and "markdown" artefacts separately). NULL: no Markdown, or Markdown made
-- from metadata only (title and abstract).
ALTER TABLE works ADD COLUMN markdown_format TEXT;
UPDATE works SET markdown_format = (
    SELECT d.format FROM documents d WHERE d.sha256 = works.markdown_sha256
) WHERE markdown_sha256 IS NOT NULL;
