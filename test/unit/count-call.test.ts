import { ServiceError } from '../../core/errors';
import { countCall } from '../../api/http/accounting';

// countCall's order of work with a key: the replay check and the count side by side, a replay's point given back.
function fakes(opts: { replay: boolean; limited?: boolean }) {
  const events: string[] = [];
  let answerCheck!: () => void;
  const db = {
    $queryRaw: () =>
      new Promise<{ one: number }[]>((resolve) => {
        events.push('check sent');
        answerCheck = () => resolve(opts.replay ? [{ one: 1 }] : []);
      }),
  };
  const rateLimits = {
    consume: async () => {
      events.push('count sent');
      if (opts.limited) throw new ServiceError('RATE_LIMITED', 'submits_per_minute=10');
      return { headers: { 'ratelimit-remaining': '9' } };
    },
    refund: async () => void events.push('refunded'),
  };
  const deps = { db, rateLimits } as unknown as Parameters<typeof countCall>[0];
  const call = {
    kind: 'submit' as const,
    principal: { workspaceId: 'w', plan: 'trial' } as never,
    idempotency: { key: 'k', operation: 'POST /v1/jobs' },
  };
  return { events, deps, call, answer: () => answerCheck() };
}

describe('counting a submit with an Idempotency-Key', () => {
  it('sends the count while the replay check is still in flight', async () => {
    const f = fakes({ replay: false });
    const headers: Record<string, string>[] = [];
    const counted = countCall(f.deps, f.call, (h) => headers.push(h));
    await new Promise((r) => setImmediate(r));
    expect(f.events).toEqual(['check sent', 'count sent']);
    f.answer();
    expect(await counted).toEqual({ replay: false });
    expect(headers).toEqual([{ 'ratelimit-remaining': '9' }]);
  });

  it('gives a replay its point back', async () => {
    const f = fakes({ replay: true });
    const counted = countCall(f.deps, f.call);
    await new Promise((r) => setImmediate(r));
    f.answer();
    expect(await counted).toEqual({ replay: true });
    expect(f.events).toEqual(['check sent', 'count sent', 'refunded']);
  });

  it('answers a replay at the limit instead of refusing it, and refuses a new key there', async () => {
    const replay = fakes({ replay: true, limited: true });
    const answered = countCall(replay.deps, replay.call);
    await new Promise((r) => setImmediate(r));
    replay.answer();
    expect(await answered).toEqual({ replay: true });
    expect(replay.events).toContain('refunded');

    const fresh = fakes({ replay: false, limited: true });
    const refused = countCall(fresh.deps, fresh.call);
    await new Promise((r) => setImmediate(r));
    fresh.answer();
    await expect(refused).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(fresh.events).not.toContain('refunded');
  });
});
