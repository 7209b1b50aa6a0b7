-- A live job tells its webhook endpoint when it began to transcribe its stream.
ALTER TABLE "webhook_events" DROP CONSTRAINT "webhook_events_type_check";
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_type_check" CHECK ("type" IN ('job.succeeded', 'job.failed', 'batch.completed', 'job.live_started'));
