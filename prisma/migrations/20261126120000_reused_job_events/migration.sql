-- Hand-written (Prisma's schema language has no partial indexes).

-- What the workflow starter scans for events whose delivery was never attempted (the event of a job that a
-- retained transcript answered, when the start of its delivery workflow was lost, see domain/workflow-starts.ts):
-- only undelivered events are in this index and an event leaves it once delivered, so the scan that every
-- worker makes every 2 s reads those few instead of every event of the last day.
CREATE INDEX "webhook_events_undelivered_idx" ON "webhook_events" ("created_at") WHERE "delivered_at" IS NULL;
