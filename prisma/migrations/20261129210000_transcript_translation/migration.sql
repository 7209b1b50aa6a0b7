-- The translation of a transcript whose job asked for one (translate_to): {language, origin, texts}, one text per
-- segment in the segments' order, null when not asked.
ALTER TABLE "transcripts" ADD COLUMN "translation" JSONB;
