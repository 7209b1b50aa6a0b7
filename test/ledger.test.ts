import { chargeHold, getBalance, placeHolds, releaseHold, renewIfDue } from '../domain/credits/ledger';
import { ServiceError } from '../core/errors';
import { createWorkspace, startTestApi, type TestApi } from './support/harness';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const db = () => api.deps.db;

async function hold(workspaceId: string, amount: number, plan: 'trial' | 'pro' = 'pro') {
  // Many concurrent transactions share a small test pool: let them queue for a connection.
  return db().$transaction((tx) => placeHolds(tx, workspaceId, [amount], 'test', { plan }), { maxWait: 20_000 });
}

/** Sets the balance of a workspace directly, for a small-balance scenario. */
async function setBalance(workspaceId: string, period: number, prepaid = 0) {
  await db()
    .$executeRaw`UPDATE credit_accounts SET period_credits = ${period}, prepaid_credits = ${prepaid}, reserved = 0 WHERE workspace_id = ${workspaceId}::uuid`;
}

describe('credits ledger', () => {
  it('never goes negative under many concurrent holds against a small balance', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    await setBalance(ws.workspaceId, 7, 3);
    const attempts = await Promise.allSettled(Array.from({ length: 40 }, () => hold(ws.workspaceId, 1)));
    const ok = attempts.filter((a) => a.status === 'fulfilled');
    const refused = attempts.filter((a) => a.status === 'rejected') as PromiseRejectedResult[];
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(30);
    for (const r of refused) expect((r.reason as ServiceError).code).toBe('INSUFFICIENT_BALANCE');
    const b = await getBalance(db(), ws.workspaceId);
    expect(b).toMatchObject({ reserved: 10, available: 0, periodCredits: 7, prepaidCredits: 3 });
  });

  it('settles each hold exactly once under concurrent charge and release', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    await setBalance(ws.workspaceId, 5);
    const [holdId] = await hold(ws.workspaceId, 2);
    const outcomes = await Promise.all([
      chargeHold(db(), holdId!, 1),
      chargeHold(db(), holdId!, 1),
      releaseHold(db(), holdId!),
      releaseHold(db(), holdId!),
      chargeHold(db(), holdId!, 2),
    ]);
    expect(outcomes.filter((o) => o.settled)).toHaveLength(1);
    const winner = outcomes.find((o) => o.settled)!;
    // Every loser reports the winner's outcome.
    for (const o of outcomes) expect(o.status).toBe(winner.status);
    const b = await getBalance(db(), ws.workspaceId);
    expect(b.reserved).toBe(0);
    expect(b.periodCredits).toBe(5 - winner.charged);
    const entries = await db().creditLedgerEntry.findMany({ where: { holdId } });
    expect(entries.filter((e) => e.kind === 'hold')).toHaveLength(1);
    expect(entries.filter((e) => e.kind === 'charge').length).toBeLessThanOrEqual(1);
  });

  it('charges monthly credits before prepaid ones and frees the unused part of a hold', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    await setBalance(ws.workspaceId, 1, 10);
    const [h] = await hold(ws.workspaceId, 4);
    await chargeHold(db(), h!, 3);
    const b = await getBalance(db(), ws.workspaceId);
    expect(b).toMatchObject({ periodCredits: 0, prepaidCredits: 8, reserved: 0, available: 8 });
  });

  it('places a batch of holds all or none', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    await setBalance(ws.workspaceId, 5);
    await expect(db().$transaction((tx) => placeHolds(tx, ws.workspaceId, [2, 2, 2], 'batch', { plan: 'pro' }))).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    });
    expect((await getBalance(db(), ws.workspaceId)).reserved).toBe(0);
    expect(await db().creditHold.count({ where: { workspaceId: ws.workspaceId } })).toBe(0);
    const ids = await db().$transaction((tx) => placeHolds(tx, ws.workspaceId, [2, 3], 'batch', { plan: 'pro' }));
    expect(ids).toHaveLength(2);
    expect((await getBalance(db(), ws.workspaceId)).available).toBe(0);
  });

  it('answers PLAN_REQUIRED when the trial credits are used up', async () => {
    const ws = await createWorkspace(api.deps);
    expect((await getBalance(db(), ws.workspaceId)).available).toBe(50);
    await setBalance(ws.workspaceId, 0);
    await expect(hold(ws.workspaceId, 1, 'trial')).rejects.toMatchObject({ code: 'PLAN_REQUIRED' });
  });

  it('renews monthly credits at period_end; prepaid credits never expire; the trial is not renewed', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'starter' });
    await setBalance(ws.workspaceId, 12, 40);
    await db().$executeRaw`UPDATE credit_accounts SET period_end = now() - interval '1 day' WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const b = await getBalance(db(), ws.workspaceId);
    expect(b).toMatchObject({ periodCredits: 2000, periodTotal: 2000, prepaidCredits: 40 });
    expect(b.periodEnd.getTime()).toBeGreaterThan(Date.now());
    // A second renewal attempt in the same period changes nothing.
    await renewIfDue(db(), ws.workspaceId);
    expect((await getBalance(db(), ws.workspaceId)).periodCredits).toBe(2000);

    const trial = await createWorkspace(api.deps);
    await setBalance(trial.workspaceId, 3);
    await db()
      .$executeRaw`UPDATE credit_accounts SET period_end = now() - interval '1 day' WHERE workspace_id = ${trial.workspaceId}::uuid`;
    expect((await getBalance(db(), trial.workspaceId)).periodCredits).toBe(3);
  });

  it('is backed by CHECK constraints in the database', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    await expect(
      db().$executeRaw`UPDATE credit_accounts SET period_credits = -1 WHERE workspace_id = ${ws.workspaceId}::uuid`,
    ).rejects.toThrow();
    await expect(
      db()
        .$executeRaw`UPDATE credit_accounts SET reserved = period_credits + prepaid_credits + 1 WHERE workspace_id = ${ws.workspaceId}::uuid`,
    ).rejects.toThrow();
  });
});
