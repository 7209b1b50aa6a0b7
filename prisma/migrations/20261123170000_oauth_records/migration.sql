-- OAuth 2.1 for agents (issue 14): the authorization server's records, keyed by the SHA-256 of their id.
CREATE TABLE "oauth_records" (
    "model" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "grant_id" TEXT,
    "uid" TEXT,
    "account_id" TEXT,
    "client_id" TEXT,
    "payload" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_records_pkey" PRIMARY KEY ("model","key_hash")
);

-- CreateIndex
CREATE INDEX "oauth_records_grant_id_idx" ON "oauth_records"("grant_id");

-- CreateIndex
CREATE INDEX "oauth_records_uid_idx" ON "oauth_records"("uid");

-- CreateIndex
CREATE INDEX "oauth_records_account_id_model_idx" ON "oauth_records"("account_id", "model");

-- CreateIndex
CREATE INDEX "oauth_records_expires_at_idx" ON "oauth_records"("expires_at");
