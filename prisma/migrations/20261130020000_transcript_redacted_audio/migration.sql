-- The redacted copy of a transcript's audio (redacted_audio): {key, bytes, content_type, tone_spans}, the object
-- being redacted-audio/<transcript id>.ogg in the object store. Null when not asked.
ALTER TABLE "transcripts" ADD COLUMN "redacted_audio" JSONB;
