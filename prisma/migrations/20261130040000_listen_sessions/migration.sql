-- Real-time streams (GET /v1/listen): one row a stream, for the per-workspace limit and per-second billing across
-- API instances. The API instance of an active stream reports its seconds every few seconds, and one that stops reporting
-- (its instance died) is settled from the last report by the next stream start of its workspace or the purge.
CREATE TABLE "listen_sessions" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "hold_id" UUID NOT NULL,
    "token_id" UUID,
    "language" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "audio_ms" INTEGER NOT NULL DEFAULT 0,
    "credits_charged" INTEGER NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),
    CONSTRAINT "listen_sessions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "listen_sessions_audio_ms_check" CHECK ("audio_ms" >= 0)
);

-- token_id: the browser token that opened the stream, unique, so a token opens one stream only.
CREATE UNIQUE INDEX "listen_sessions_token_id_key" ON "listen_sessions"("token_id");
CREATE UNIQUE INDEX "listen_sessions_hold_id_key" ON "listen_sessions"("hold_id");
CREATE INDEX "listen_sessions_workspace_id_active_idx" ON "listen_sessions"("workspace_id", "active");

ALTER TABLE "listen_sessions" ADD CONSTRAINT "listen_sessions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "listen_sessions" ADD CONSTRAINT "listen_sessions_hold_id_fkey" FOREIGN KEY ("hold_id") REFERENCES "credit_holds"("id") ON DELETE CASCADE ON UPDATE CASCADE;
