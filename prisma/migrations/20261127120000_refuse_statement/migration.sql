-- Hand-written (Prisma's schema language has no functions).

-- Ends the statement that calls it with SQLSTATE P0001 and the given message, and so undoes every write the
-- statement made. The one-statement accept of a job (domain/accept-work.ts acceptHeldRow) claims the
-- Idempotency-Key, writes the hold and the row and reserves the credits in one statement, without a
-- transaction around it. When the key was claimed but the reservation found no room it calls this, so the
-- claim, the hold and the row vanish together, as a rolled-back transaction's would.
--
-- The body is an E'' string with its one semicolon written as \073: the migration runner (Prisma's pg
-- adapter, executeScript) cuts a script at every semicolon, even inside quotes.
CREATE FUNCTION refuse_statement(reason text) RETURNS boolean LANGUAGE plpgsql AS
  E'BEGIN RAISE EXCEPTION USING ERRCODE = ''P0001'', MESSAGE = reason\073 END'
