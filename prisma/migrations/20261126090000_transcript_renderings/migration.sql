-- Transcripts serialised once when written (issue 28: the word-timed json export). Transcripts written
-- before this have no rendering and are served as before (serialised on each read).

-- CreateTable
CREATE TABLE "transcript_renderings" (
    "transcript_id" UUID NOT NULL,
    "body" TEXT NOT NULL,

    CONSTRAINT "transcript_renderings_pkey" PRIMARY KEY ("transcript_id")
);

-- AddForeignKey
ALTER TABLE "transcript_renderings" ADD CONSTRAINT "transcript_renderings_transcript_id_fkey" FOREIGN KEY ("transcript_id") REFERENCES "transcripts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
