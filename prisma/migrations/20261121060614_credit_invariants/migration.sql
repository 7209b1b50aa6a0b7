-- Hand-written: Prisma's schema language cannot express CHECK constraints
-- (and its diff ignores them, so later migrations will not drop these).
-- Together with "every change happens in one transaction", they make a
-- negative balance or an over-reservation impossible, whatever the code does.

-- AddCheckConstraints
ALTER TABLE "credit_accounts"
    ADD CONSTRAINT "credit_accounts_period_credits_check" CHECK ("period_credits" >= 0),
    ADD CONSTRAINT "credit_accounts_prepaid_credits_check" CHECK ("prepaid_credits" >= 0),
    ADD CONSTRAINT "credit_accounts_reserved_check" CHECK ("reserved" >= 0),
    ADD CONSTRAINT "credit_accounts_reserved_covered_check" CHECK ("reserved" <= "period_credits" + "prepaid_credits");

-- AddCheckConstraints
ALTER TABLE "credit_holds"
    ADD CONSTRAINT "credit_holds_amount_check" CHECK ("amount" > 0),
    ADD CONSTRAINT "credit_holds_charged_check" CHECK ("charged" >= 0 AND "charged" <= "amount");
