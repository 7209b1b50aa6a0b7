-- Hand-written: the backfill is SQL Prisma cannot write.

-- A job's options as one value (domain/schemas/jobs.ts JobSpecSchema): what the workflow runs, retry replays
-- and the API echoes as `options`. Written from the columns it replaces, which go. `mode` stays a column of
-- its own for the queries that filter by it.
ALTER TABLE "jobs" ADD COLUMN "spec" JSONB;

UPDATE "jobs" SET "spec" = jsonb_build_object(
  'mode', "mode"::text,
  'language', "language",
  'caption_preference', "caption_preference"::text,
  'caption_languages', to_jsonb(COALESCE("caption_languages", ARRAY[]::TEXT[])),
  'profile', "recognition_profile"::text,
  'vocabulary', to_jsonb(COALESCE("vocabulary", ARRAY[]::TEXT[])),
  'speaker_labels', "speaker_labels",
  'speakers_expected', "speakers_expected",
  'word_timing', "word_timing",
  'align_text_chars', "align_text_chars");

ALTER TABLE "jobs" ALTER COLUMN "spec" SET NOT NULL,
  ADD CONSTRAINT "jobs_spec_object" CHECK (jsonb_typeof("spec") = 'object');

ALTER TABLE "jobs"
  DROP COLUMN "caption_languages",
  DROP COLUMN "caption_preference",
  DROP COLUMN "language",
  DROP COLUMN "recognition_profile",
  DROP COLUMN "vocabulary",
  DROP COLUMN "speaker_labels",
  DROP COLUMN "speakers_expected",
  DROP COLUMN "word_timing",
  DROP COLUMN "align_text_chars";

DROP TYPE "RecognitionProfile";
DROP TYPE "CaptionPreference";
