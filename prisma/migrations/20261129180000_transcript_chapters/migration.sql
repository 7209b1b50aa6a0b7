-- Chapters of a transcript whose job asked for them: [{start, end, title, origin}], null when not asked.
ALTER TABLE "transcripts" ADD COLUMN "chapters" JSONB;
