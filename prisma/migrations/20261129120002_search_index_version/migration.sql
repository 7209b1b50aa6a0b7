-- The version of the search index a transcript's moments were written by: what the backfill workflow looks for.
ALTER TABLE "transcripts" ADD COLUMN "search_index_version" INTEGER;
