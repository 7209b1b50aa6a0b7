-- Recognition options of a job (issue 25) and what a transcript gains from them.
-- Existing jobs keep today's behaviour through the defaults (standard profile,
-- no vocabulary, no speaker labels).

-- CreateEnum
CREATE TYPE "RecognitionProfile" AS ENUM ('standard', 'fast');

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "recognition_profile" "RecognitionProfile" NOT NULL DEFAULT 'standard',
ADD COLUMN     "speaker_labels" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "speakers_expected" INTEGER,
ADD COLUMN     "vocabulary" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "transcripts" ADD COLUMN     "languages" JSONB,
ADD COLUMN     "speakers" JSONB;
