-- A stream's audio, kept when its client asked (GET /v1/listen?keep_audio=true): the API writes it to the object
-- store in chunks as it arrives, and counts here the chunks and bytes written, so a stream whose instance died keeps
-- what was written before. audio_expires_at follows the plan's transcript retention. audio_deleted_at hides it at
-- once when deleted, and the purge removes the objects, then sets audio_chunks to 0.
ALTER TABLE "listen_sessions"
    ADD COLUMN "encoding" TEXT NOT NULL DEFAULT 'pcm_s16le',
    ADD COLUMN "keep_audio" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "audio_chunks" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "audio_bytes" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "audio_expires_at" TIMESTAMPTZ(3),
    ADD COLUMN "audio_deleted_at" TIMESTAMPTZ(3);

CREATE INDEX "listen_sessions_audio_expires_at_idx" ON "listen_sessions"("audio_expires_at");
