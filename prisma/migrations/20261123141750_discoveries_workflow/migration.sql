-- DropIndex
DROP INDEX "language_discoveries_workspace_id_media_id_idx";

-- AlterTable
ALTER TABLE "language_discoveries" ADD COLUMN     "cache_key" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "credits_charged" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "video" JSONB,
ADD COLUMN     "workflow_started_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "video_discoveries" ADD COLUMN     "credits_charged" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "listing" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "workflow_started_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "language_discoveries_workspace_id_cache_key_idx" ON "language_discoveries"("workspace_id", "cache_key");

-- CreateIndex
CREATE INDEX "language_discoveries_expires_at_idx" ON "language_discoveries"("expires_at");

-- CreateIndex
CREATE INDEX "video_discoveries_expires_at_idx" ON "video_discoveries"("expires_at");
