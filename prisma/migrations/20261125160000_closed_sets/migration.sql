-- Closed sets of values become enum types, and every existing value is kept
-- (ALTER ... TYPE ... USING casts each stored string to its label). Written by
-- hand, as Prisma's diff would drop and re-add the columns. After it, the diff
-- between the migrations and schema.prisma is empty (test/stack.test.ts).
-- No semicolon in these comments: the engine splits the script on them.

-- CreateEnum
CREATE TYPE "UserRole" AS ENUM ('owner');
CREATE TYPE "BillingInterval" AS ENUM ('monthly', 'yearly');
CREATE TYPE "LedgerEntryKind" AS ENUM ('grant_period', 'grant_prepaid', 'renew', 'hold', 'charge', 'release');
CREATE TYPE "IdempotentResource" AS ENUM ('job', 'batch', 'video_discovery', 'language_discovery');
CREATE TYPE "JobMode" AS ENUM ('captions_only', 'auto', 'transcribe');
CREATE TYPE "JobStage" AS ENUM ('resolve', 'captions', 'acquire_audio', 'submit_asr', 'wait_asr', 'finalize');
CREATE TYPE "Platform" AS ENUM ('videosite', 'shortvideo', 'photosocial', 'upload', 'direct');
CREATE TYPE "CaptionPreference" AS ENUM ('prefer_creator', 'creator_only', 'automatic_only');
CREATE TYPE "BillingKind" AS ENUM ('captions', 'ai_transcription', 'cached');
CREATE TYPE "SourceOrigin" AS ENUM ('creator_captions', 'platform_captions', 'speech_recognition');
CREATE TYPE "TimingGranularity" AS ENUM ('word', 'segment', 'none');
CREATE TYPE "UploadStatus" AS ENUM ('pending', 'verifying', 'ready', 'failed', 'expired');
CREATE TYPE "VideoDiscoveryKind" AS ENUM ('videosite_search', 'videosite_channel_videos', 'videosite_channel_search', 'videosite_playlist_videos', 'shortvideo_user_videos');
CREATE TYPE "DiscoveryStatus" AS ENUM ('queued', 'processing', 'succeeded', 'failed');

-- AlterTable: the values stay, their type changes
ALTER TABLE "users" ALTER COLUMN "role" DROP DEFAULT,
  ALTER COLUMN "role" TYPE "UserRole" USING ("role"::"UserRole"),
  ALTER COLUMN "role" SET DEFAULT 'owner';
ALTER TABLE "subscriptions" ALTER COLUMN "interval" TYPE "BillingInterval" USING ("interval"::"BillingInterval"),
  ALTER COLUMN "plan" TYPE "Plan" USING ("plan"::"Plan");
ALTER TABLE "billing_credit_grants" ALTER COLUMN "plan" TYPE "Plan" USING ("plan"::"Plan");
ALTER TABLE "credit_ledger_entries" ALTER COLUMN "kind" TYPE "LedgerEntryKind" USING ("kind"::"LedgerEntryKind");
ALTER TABLE "idempotency_records" ALTER COLUMN "resource_type" TYPE "IdempotentResource" USING ("resource_type"::"IdempotentResource");
ALTER TABLE "jobs" ALTER COLUMN "stage" TYPE "JobStage" USING ("stage"::"JobStage"),
  ALTER COLUMN "mode" TYPE "JobMode" USING ("mode"::"JobMode"),
  ALTER COLUMN "caption_preference" TYPE "CaptionPreference" USING ("caption_preference"::"CaptionPreference"),
  ALTER COLUMN "platform" TYPE "Platform" USING ("platform"::"Platform"),
  ALTER COLUMN "billing_kind" TYPE "BillingKind" USING ("billing_kind"::"BillingKind");
ALTER TABLE "transcripts" ALTER COLUMN "platform" TYPE "Platform" USING ("platform"::"Platform"),
  ALTER COLUMN "source_origin" TYPE "SourceOrigin" USING ("source_origin"::"SourceOrigin"),
  ALTER COLUMN "timing_granularity" TYPE "TimingGranularity" USING ("timing_granularity"::"TimingGranularity");
-- The partial index on verifying uploads compares the column with a text value: rebuilt around the change.
DROP INDEX "uploads_verifying_idx";
ALTER TABLE "uploads" ALTER COLUMN "status" DROP DEFAULT,
  ALTER COLUMN "status" TYPE "UploadStatus" USING ("status"::"UploadStatus"),
  ALTER COLUMN "status" SET DEFAULT 'pending';
CREATE INDEX "uploads_verifying_idx" ON "uploads" ("verification_requested_at") WHERE "status" = 'verifying';
ALTER TABLE "video_discoveries" ALTER COLUMN "kind" TYPE "VideoDiscoveryKind" USING ("kind"::"VideoDiscoveryKind"),
  ALTER COLUMN "status" DROP DEFAULT,
  ALTER COLUMN "status" TYPE "DiscoveryStatus" USING ("status"::"DiscoveryStatus"),
  ALTER COLUMN "status" SET DEFAULT 'queued';
ALTER TABLE "language_discoveries" ALTER COLUMN "status" DROP DEFAULT,
  ALTER COLUMN "status" TYPE "DiscoveryStatus" USING ("status"::"DiscoveryStatus"),
  ALTER COLUMN "status" SET DEFAULT 'queued';

-- The webhook event types: a closed set whose names hold dots.
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_type_check" CHECK ("type" IN ('job.succeeded', 'job.failed', 'batch.completed'));
