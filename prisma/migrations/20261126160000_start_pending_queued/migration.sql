-- Hand-written (Prisma's schema language has no partial indexes).

-- What the workflow starter scans for jobs whose start was lost, every 2 s on every worker. The index had
-- every job with a null workflow_started_at: besides the few queued ones, every job a retained transcript
-- answered (created succeeded, no workflow) and every batch child (its batch starts it), for ever: an index
-- that grew with every job, written on each insert, which the planner then passed over for a skip scan of
-- jobs_workspace_id_status_idx (one descent per workspace). Now it holds exactly the rows the starter asks for,
-- and a row leaves it when its job starts.
DROP INDEX "jobs_start_pending_idx";
CREATE INDEX "jobs_start_pending_idx" ON "jobs" ("created_at")
    WHERE "workflow_started_at" IS NULL AND "batch_id" IS NULL AND "status" = 'queued';
