-- Forced alignment (issue 25, item 2): caption transcripts with word times
-- (jobs.word_timing) and a user's own text aligned to the audio (job_texts).
-- Existing jobs keep today's behaviour through the default (no word timing).

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "align_text_chars" INTEGER,
ADD COLUMN     "word_timing" BOOLEAN NOT NULL DEFAULT false;

-- AlterEnum
ALTER TYPE "SourceOrigin" ADD VALUE 'provided_text';

-- AlterTable
ALTER TABLE "transcripts" ADD COLUMN     "alignment" JSONB;

-- CreateTable
CREATE TABLE "job_texts" (
    "job_id" UUID NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "job_texts_pkey" PRIMARY KEY ("job_id")
);

-- AddForeignKey
ALTER TABLE "job_texts" ADD CONSTRAINT "job_texts_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The API refuses longer texts first (domain/schemas/jobs.ts MAX_ALIGN_TEXT_CHARS), this is the last word.
ALTER TABLE "job_texts" ADD CONSTRAINT "job_texts_text_length" CHECK (char_length("text") BETWEEN 1 AND 200000);
