-- AlterTable
ALTER TABLE "billing_events" ADD COLUMN     "workspace_id" UUID;

-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "current_period_start" TIMESTAMPTZ(3),
ADD COLUMN     "period_paid" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "plan" TEXT,
ADD COLUMN     "price_lookup_key" TEXT,
ADD COLUMN     "state_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "stripe_customer_id" TEXT;

-- CreateTable
CREATE TABLE "billing_credit_grants" (
    "workspace_id" UUID NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "plan" TEXT NOT NULL,
    "credits" INTEGER NOT NULL,
    "stripe_subscription_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_credit_grants_pkey" PRIMARY KEY ("workspace_id","period_start")
);

-- CreateTable
CREATE TABLE "billing_credit_purchases" (
    "checkout_session_id" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "units" INTEGER NOT NULL,
    "amount_total_cents" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_credit_purchases_pkey" PRIMARY KEY ("checkout_session_id")
);

-- CreateIndex
CREATE INDEX "billing_credit_purchases_workspace_id_created_at_idx" ON "billing_credit_purchases"("workspace_id", "created_at");

-- AddForeignKey
ALTER TABLE "billing_credit_grants" ADD CONSTRAINT "billing_credit_grants_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "billing_credit_purchases" ADD CONSTRAINT "billing_credit_purchases_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
