-- Growing transcripts: the segments of a running AI job, published piece by piece in time order, readable
-- before the job ends (GET /v1/jobs/{id}/segments, /events). Removed in the statement that finishes the job:
-- from then on the transcript is the answer, and no copy of its text outlives it.
ALTER TABLE "jobs" ADD COLUMN "transcribed_ms" INTEGER NOT NULL DEFAULT 0;

CREATE TABLE "job_segments" (
    "job_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "piece" INTEGER NOT NULL,
    "start" DOUBLE PRECISION NOT NULL,
    "end" DOUBLE PRECISION NOT NULL,
    "text" TEXT NOT NULL,
    "language" TEXT,
    CONSTRAINT "job_segments_pkey" PRIMARY KEY ("job_id", "seq")
);

ALTER TABLE "job_segments" ADD CONSTRAINT "job_segments_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
