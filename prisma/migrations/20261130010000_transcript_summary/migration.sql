-- The summary of a transcript whose job asked for one (summarize): {text, key_points, chapters, model}, null when
-- not asked.
ALTER TABLE "transcripts" ADD COLUMN "summary" JSONB;
