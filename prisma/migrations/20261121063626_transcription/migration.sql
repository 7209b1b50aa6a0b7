-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "media_duration_ms" INTEGER,
ADD COLUMN     "provider_job_id" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "jobs_provider_job_id_key" ON "jobs"("provider_job_id");
