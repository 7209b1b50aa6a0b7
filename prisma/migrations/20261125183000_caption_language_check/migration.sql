-- Caption tracks: the platform's language label checked against the text (issue 25, item 4).

-- AlterTable
ALTER TABLE "transcripts" ADD COLUMN     "caption_language_check" JSONB;
