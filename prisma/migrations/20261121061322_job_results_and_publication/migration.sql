-- DropIndex
DROP INDEX "jobs_result_id_key";

-- AlterTable
ALTER TABLE "transcripts" ADD COLUMN     "published_at" TIMESTAMPTZ(3);
