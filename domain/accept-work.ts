import { PLANS, type PlanId } from '../core/plans';
import type { Principal } from './accounts/principal';
import { holdsPart, reservationRefusal, reserveCredits, reserveStatement, writeHolds, type JobSlots } from './credits/ledger';
import type { Db, Tx } from './db';
import { claimIdempotencyKey, claimStatement, replayOf, type IdempotencyScope, type KeyClaim } from './idempotency';
import { Prisma } from '../prisma/generated/client';
import { errorCauses } from '../integrations/dependency-errors';
import type { StartedTable } from './workflow-starts';
import type { StartDispatcher } from './start-dispatcher';

// The one accepting transaction of jobs, batches and discoveries (README,
// "Accepting work"): the idempotency key is claimed, the credits are held,
// the rows are created, and the credits are reserved last (the one statement
// that takes a lock on a shared row, the workspace's credit account, held only
// until the commit). Nothing in it waits on the network. The workflow is
// started after the commit through the StartDispatcher, outside the
// transaction and without holding up the answer; a start that fails or is
// lost is made up by the workflow starter. Two single-row accepts, the
// hottest, do the same in one statement: acceptRow (nothing held) and
// acceptHeldRow (a job's hold).

export interface WorkToAccept<Created> {
  principal: Principal;
  idempotency: IdempotencyScope;
  /** requestHash of the body: the same key with another body is IDEMPOTENCY_CONFLICT. */
  hash: string;
  /** What the key will name: the id the new object is created with. */
  resource: { type: string; id: string };
  /**
   * An object that answers the request already (a discovery from the short
   * cache): the key is bound to it, and nothing is held or created.
   */
  existingId?: string | null;
  /** One hold per amount (credits); none for work that costs nothing (a reused transcript). */
  holds: number[];
  /** The holds' reason, for the ledger (`job <id>`). */
  holdReason: string;
  /** Jobs in progress the work adds, checked against the plan's limit in the reserving statement. */
  jobsAdded?: number;
  /** What `details.detail` names when the credits fall short (default `credits_remaining`). */
  shortfallDetail?: string;
  /** Writes the new rows, given the ids of the holds (in the order of `holds`). */
  create(tx: Tx, holdIds: string[]): Promise<Created>;
  /**
   * Starts the work's workflow after the commit; absent when there is nothing to run. `records`: the table of
   * the row the workflow is for (its id is `resource.id`), recorded as started once the start succeeded.
   */
  start?: { label: string; run(created: Created): Promise<unknown>; records?: StartedTable };
  /** The transaction's own bound (a batch writes more rows). */
  timeoutMs?: number;
}

export type Accepted<Created> =
  /** Created now (its workflow queued for start). */
  | { kind: 'created'; created: Created }
  /** The key was used before with this body, or an existing object answers: its id. */
  | { kind: 'existing'; id: string };

export async function acceptWork<Created>(db: Db, starts: StartDispatcher, work: WorkToAccept<Created>): Promise<Accepted<Created>> {
  const { principal } = work;
  const outcome = await db.$transaction(
    async (tx): Promise<Accepted<Created>> => {
      const claim = await claimIdempotencyKey(tx, {
        workspaceId: principal.workspaceId,
        operation: work.idempotency.operation,
        key: work.idempotency.key,
        hash: work.hash,
        resource: { type: work.resource.type, id: work.existingId ?? work.resource.id },
      });
      if (claim.kind === 'replay') return { kind: 'existing', id: claim.resourceId };
      if (work.existingId) return { kind: 'existing', id: work.existingId };
      const holdIds = work.holds.length ? await writeHolds(tx, principal.workspaceId, work.holds, work.holdReason) : [];
      const created = await work.create(tx, holdIds);
      if (work.holds.length) {
        await reserveCredits(tx, principal.workspaceId, work.holds, {
          plan: principal.plan,
          detail: work.shortfallDetail,
          ...(work.jobsAdded ? { jobs: { adding: work.jobsAdded, limit: PLANS[principal.plan].jobsInProgress } } : {}),
        });
      }
      return { kind: 'created', created };
    },
    { timeout: work.timeoutMs ?? 15_000, maxWait: 10_000 },
  );
  if (outcome.kind === 'created' && work.start) {
    const { label, run, records } = work.start;
    starts.dispatch(label, () => run(outcome.created), records && { table: records, id: work.resource.id });
  }
  return outcome;
}

/** The tables whose rows acceptRow writes; a closed list, as the name goes into the statement's text. */
const ROW_TABLES = { jobs: Prisma.raw('jobs'), job_texts: Prisma.raw('job_texts') } as const;

/** Columns acceptRow sets to the database's clock (the time of the accepting statement). */
export type StatementTimeColumn = 'created_at' | 'updated_at' | 'finished_at';

/**
 * Work that holds no credits and starts nothing (a job a retained transcript answers): the key is claimed
 * and the row inserted in one statement, atomic without a transaction. That is acceptWork's BEGIN, claim,
 * insert and COMMIT in one round trip. The row goes in as JSON keyed by column (every column of the
 * table: one left out would be NULL, not its default) and `now` names the columns that take the
 * statement's time; those times are answered.
 */
export async function acceptRow(
  db: Db,
  args: { claim: KeyClaim; table: keyof typeof ROW_TABLES; row: Record<string, unknown>; now: StatementTimeColumn[] },
): Promise<{ kind: 'created'; times: Partial<Record<StatementTimeColumn, Date>> } | { kind: 'existing'; id: string }> {
  const table = ROW_TABLES[args.table];
  const stamped = Prisma.sql`jsonb_build_object(${Prisma.join(args.now.map((column) => Prisma.sql`${column}::text, now()`))})`;
  const inserted = await db.$queryRaw<Partial<Record<StatementTimeColumn, Date>>[]>`
    WITH claim AS (${claimStatement(args.claim)})
    INSERT INTO ${table}
    SELECT * FROM jsonb_populate_record(NULL::${table}, ${JSON.stringify(args.row)}::jsonb || ${stamped})
    WHERE EXISTS (SELECT 1 FROM claim)
    RETURNING ${Prisma.join(args.now.map((column) => Prisma.raw(column)))}`;
  if (inserted[0]) return { kind: 'created', times: inserted[0] };
  return { kind: 'existing', id: (await replayOf(db, args.claim)).resourceId };
}

/** What acceptHeldRow's statement raises (refuse_statement) when the key was claimed and the credits had no room. */
const NO_ROOM = 'accept-held-row: no room to reserve';

/**
 * acceptRow for work that holds credits: a single job's accept (domain/jobs/submit.ts), the API's hottest
 * write. One statement claims the key, reserves the credits and the job slot, writes the hold with its
 * ledger entry, the row and its `children`: acceptWork's BEGIN, claim, hold, row, children, reserve and COMMIT
 * (up to seven round trips through an interactive transaction) in one, atomic without a transaction. Every write is gated
 * on the reservation, the reservation on the claim; when the claim succeeded but the reservation found no
 * room, the statement ends in refuse_statement (the migration of that name), which undoes the claim with it,
 * and the reason is read afterwards (reservationRefusal), as reserveCredits does. The reserving UPDATE is
 * the same conditional statement as acceptWork's, re-checked under the account row's lock.
 */
export async function acceptHeldRow<Answer = never>(
  db: Db,
  args: {
    claim: KeyClaim;
    table: keyof typeof ROW_TABLES;
    row: Record<string, unknown>;
    now: StatementTimeColumn[];
    /** Rows of another table that name the row (each written whole, like `row`). */
    children?: { table: keyof typeof ROW_TABLES; rows: Record<string, unknown>[] };
    hold: { id: string; amount: number; reason: string };
    reserve: { plan: PlanId; jobs?: JobSlots; detail?: string };
    /**
     * A read that, when it finds a row, answers the request with no work (a retained transcript answers a
     * job): then nothing is claimed, reserved or written, and the row is answered. Read in the same statement
     * so that the usual case, nothing found, costs no round trip of its own.
     */
    answeredBy?: Prisma.Sql;
  },
): Promise<
  | { kind: 'created'; times: Partial<Record<StatementTimeColumn, Date>> }
  | { kind: 'existing'; id: string }
  | { kind: 'answered'; answer: Answer }
> {
  const { workspaceId } = args.claim;
  const table = ROW_TABLES[args.table];
  const reserved = Prisma.sql`EXISTS (SELECT 1 FROM reserved)`;
  const answer = args.answeredBy ? Prisma.sql`answer AS (${args.answeredBy}),` : Prisma.empty;
  const unanswered = args.answeredBy ? Prisma.sql`NOT EXISTS (SELECT 1 FROM answer)` : undefined;
  const answered = args.answeredBy ? Prisma.sql`(SELECT to_jsonb(answer) FROM answer LIMIT 1)` : Prisma.sql`NULL::jsonb`;
  const stamped = Prisma.sql`jsonb_build_object(${Prisma.join(args.now.map((column) => Prisma.sql`${column}::text, now()`))})`;
  const children = args.children?.rows.length
    ? Prisma.sql`, children AS (
        INSERT INTO ${ROW_TABLES[args.children.table]}
        SELECT * FROM jsonb_populate_recordset(NULL::${ROW_TABLES[args.children.table]}, ${JSON.stringify(args.children.rows)}::jsonb)
        WHERE ${reserved})`
    : Prisma.empty;
  let outcome: ({ claimed: boolean; answer: Answer | null; refused: null } & Partial<Record<StatementTimeColumn, Date>>)[];
  try {
    outcome = await db.$queryRaw`
      WITH ${answer} claim AS (${claimStatement(args.claim, unanswered)}),
      reserved AS (${reserveStatement({ workspaceId, total: args.hold.amount, jobs: args.reserve.jobs, when: Prisma.sql`EXISTS (SELECT 1 FROM claim)` })} RETURNING 1),
      ${holdsPart({ workspaceId, ids: [args.hold.id], amounts: [args.hold.amount], reason: args.hold.reason, when: reserved })},
      inserted AS (
        INSERT INTO ${table}
        SELECT * FROM jsonb_populate_record(NULL::${table}, ${JSON.stringify(args.row)}::jsonb || ${stamped})
        WHERE ${reserved}
        RETURNING ${Prisma.join(args.now.map((column) => Prisma.raw(column)))})
      ${children}
      SELECT EXISTS (SELECT 1 FROM claim) AS claimed, ${answered} AS answer, inserted.*,
        CASE WHEN EXISTS (SELECT 1 FROM claim) AND NOT ${reserved} THEN refuse_statement(${NO_ROOM}) END AS refused
      FROM (VALUES (1)) AS one LEFT JOIN inserted ON true`;
  } catch (err) {
    if (!raisedByRefusal(err)) throw err;
    throw await reservationRefusal(db, workspaceId, args.hold.amount, args.reserve);
  }
  const [{ claimed, answer: found, refused: _, ...times }] = outcome as [(typeof outcome)[number]];
  if (found) return { kind: 'answered', answer: found };
  if (claimed) return { kind: 'created', times };
  return { kind: 'existing', id: (await replayOf(db, args.claim)).resourceId };
}

/** True when `err` (or an error it wraps: Prisma, then its pg adapter) is acceptHeldRow's refuse_statement. */
function raisedByRefusal(err: unknown): boolean {
  for (const e of errorCauses(err)) if (typeof e.message === 'string' && e.message.includes(NO_ROOM)) return true;
  return false;
}
