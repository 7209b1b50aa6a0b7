-- AlterTable
ALTER TABLE "batches" ADD COLUMN     "workflow_started_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "credit_accounts" ADD COLUMN     "active_jobs" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "workflow_started_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "uploads" ADD COLUMN     "verification_requested_at" TIMESTAMPTZ(3);

-- Hand-written below (Prisma's schema language has no CHECK constraints, data
-- updates or partial indexes).

-- Rows from before this migration were started inside the accepting
-- transaction: their workflows exist.
UPDATE "jobs" SET "workflow_started_at" = "created_at";
UPDATE "batches" SET "workflow_started_at" = "created_at";

-- The counter starts at what is running now.
UPDATE "credit_accounts" a SET "active_jobs" = (
    SELECT count(*) FROM "jobs" j
    WHERE j."workspace_id" = a."workspace_id" AND j."status" IN ('queued', 'processing', 'awaiting_provider')
);
ALTER TABLE "credit_accounts" ADD CONSTRAINT "credit_accounts_active_jobs_check" CHECK ("active_jobs" >= 0);

-- What the starter scans: only rows whose workflow is not known to exist (few).
CREATE INDEX "jobs_start_pending_idx" ON "jobs" ("created_at") WHERE "workflow_started_at" IS NULL;
CREATE INDEX "batches_start_pending_idx" ON "batches" ("created_at") WHERE "workflow_started_at" IS NULL;
CREATE INDEX "uploads_verifying_idx" ON "uploads" ("verification_requested_at") WHERE "status" = 'verifying';
