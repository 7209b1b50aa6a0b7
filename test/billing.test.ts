import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import request from 'supertest';
import { createBillingActivities } from '../activities/billing';
import { monthlyGrantsWorkflow } from '../workflows/billing';
import { ensureSchedules, SCHEDULES } from '../worker/schedules';
import { startTestWorker } from './support/worker';
import Stripe from 'stripe';
import {
  CREDIT_PACK_PRICES,
  creditPackLookupKey,
  PAID_PLANS,
  parseLookupKey,
  quote,
  SUBSCRIPTION_PRICES,
  subscriptionLookupKey,
  type PaidPlan,
} from '../domain/billing/catalogue';
import { grantDueMonthlyCredits } from '../domain/billing';
import { syncPrices } from '../domain/billing/prices';
import { monthlySliceAt } from '../domain/billing/subscriptions';
import { loadConfig, stripeSettings } from '../domain/config';
import { addMonths } from '../core/dates';
import { createStripeClient } from '../integrations/payments/stripe-client';
import { bearer, createWorkspace, signInSession, startTestApi, type TestApi, type TestWorkspace } from './support/harness';
import {
  checkoutSessionObject,
  eventObject,
  signedDelivery,
  startStripeState,
  subscriptionObject,
  type StripeState,
} from './support/stripe-state';

// Billing with Stripe (issue 15). Outgoing calls go to the stack's stripe-mock
// (Stripe's own mock, built from Stripe's OpenAPI document: real request
// validation, fixture answers, no state). Incoming events are signed here with
// stripe-node's generateTestHeaderString and posted to /ingress/stripe; for
// the state the service converges on ("retrieve the subscription"), the
// convergence tests point the service at test/support/stripe-state.ts, which
// forwards every request to stripe-mock for validation and answers the
// subscriptions and sessions the test put there.

const STRIPE_MOCK = process.env.STRIPE_API_BASE!;
const SECRET = process.env.STRIPE_WEBHOOK_SECRET!;
const DAY = 86_400_000;
/** Stripe's timestamps are whole seconds. */
const sec = (d: Date | number) => new Date(Math.floor(new Date(d).getTime() / 1000) * 1000);

let api: TestApi; // stripe-mock directly
let stateApi: TestApi; // through the stateful front
let noKeyApi: TestApi; // no payment provider configured
let stripeState: StripeState;

beforeAll(async () => {
  if (!STRIPE_MOCK || !SECRET) throw new Error('run through stack/test-env.ts: it starts stripe-mock and sets STRIPE_API_BASE');
  stripeState = await startStripeState(STRIPE_MOCK);
  [api, stateApi, noKeyApi] = await Promise.all([
    startTestApi(),
    startTestApi({ STRIPE_API_BASE: stripeState.url }),
    startTestApi({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' }),
  ]);
});
afterAll(async () => {
  await Promise.all([api?.close(), stateApi?.close(), noKeyApi?.close()]);
  await stripeState?.close();
});

async function owner(t: TestApi, ws: TestWorkspace) {
  const s = await signInSession(t.app, ws.email, ws.password);
  return (req: request.Test) => req.set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf);
}

async function usage(t: TestApi, ws: TestWorkspace) {
  return (await request(t.app).get('/v1/usage').set(bearer(ws.apiKey)).expect(200)).body;
}

/** Posts an event to the ingress as Stripe would: the exact bytes, signed. */
function deliver(
  t: TestApi,
  event: Stripe.Event,
  opts: { secret?: string; timestamp?: number; tamper?: (payload: string) => string } = {},
) {
  const { payload, signature } = signedDelivery(JSON.stringify(event), opts.secret ?? SECRET, opts.timestamp);
  return request(t.app)
    .post('/ingress/stripe')
    .set('Stripe-Signature', signature)
    .set('Content-Type', 'application/json')
    .send(opts.tamper ? opts.tamper(payload) : payload);
}

/** Moves a workspace's billing state `ms` into the past: as if `ms` had gone by. */
async function timeTravel(t: TestApi, workspaceId: string, ms: number) {
  const iv = `${ms} milliseconds`;
  const db = t.deps.db;
  await db.$executeRaw`UPDATE credit_accounts SET period_start = period_start - ${iv}::interval, period_end = period_end - ${iv}::interval WHERE workspace_id = ${workspaceId}::uuid`;
  await db.$executeRaw`UPDATE billing_credit_grants SET period_start = period_start - ${iv}::interval, period_end = period_end - ${iv}::interval WHERE workspace_id = ${workspaceId}::uuid`;
  await db.$executeRaw`UPDATE subscriptions SET current_period_start = current_period_start - ${iv}::interval, current_period_end = current_period_end - ${iv}::interval, state_at = state_at - ${iv}::interval WHERE workspace_id = ${workspaceId}::uuid`;
}

let seq = 0;
const ids = () => {
  seq += 1;
  return { sub: `sub_t${process.pid}_${seq}`, cs: `cs_test_t${process.pid}_${seq}`, cus: `cus_t${process.pid}_${seq}` };
};

/** A trial workspace that checks out `plan` (the subscription now in Stripe, the checkout completed event delivered). */
async function subscribe(plan: PaidPlan, interval: 'monthly' | 'yearly' = 'monthly', period?: { start: Date; end: Date }) {
  const ws = await createWorkspace(stateApi.deps);
  const id = ids();
  const start = sec(period?.start ?? Date.now() - DAY);
  const end = sec(period?.end ?? addMonths(start, interval === 'monthly' ? 1 : 12));
  const sub = subscriptionObject({
    id: id.sub,
    workspaceId: ws.workspaceId,
    customer: id.cus,
    lookupKey: subscriptionLookupKey(plan, interval),
    interval: interval === 'monthly' ? 'month' : 'year',
    start,
    end,
  });
  stripeState.subscriptions.set(id.sub, sub);
  stripeState.sessions.set(
    id.cs,
    checkoutSessionObject({ id: id.cs, workspaceId: ws.workspaceId, mode: 'subscription', subscription: id.sub }),
  );
  const res = await deliver(stateApi, eventObject('checkout.session.completed', { id: id.cs, object: 'checkout.session' })).expect(200);
  expect(res.body).toMatchObject({ received: true, duplicate: false, ignored: false });
  return { ws, id, sub, start, end };
}

/** Changes the subscription in "Stripe" and delivers `type` for it. */
async function stripeChanges(id: string, change: Parameters<typeof subscriptionObject>[0] | null, type: string, eventPayload?: unknown) {
  const before = stripeState.subscriptions.get(id)!;
  if (change) stripeState.subscriptions.set(id, subscriptionObject(change));
  const object = type.startsWith('invoice.')
    ? { id: `in_${id}`, object: 'invoice', parent: { type: 'subscription_details', subscription_details: { subscription: id } } }
    : (eventPayload ?? before);
  return deliver(stateApi, eventObject(type, object)).expect(200);
}

describe('the price list and quotes', () => {
  it('quotes every plan at every discount boundary', () => {
    const cases: [PaidPlan, number, number, number][] = [
      // plan, units, discount %, total USD
      ['starter', 1000, 0, 8],
      ['starter', 9000, 0, 72],
      ['starter', 10000, 10, 72],
      ['starter', 49000, 10, 352.8],
      ['starter', 50000, 20, 320],
      ['starter', 100000, 20, 640],
      ['pro', 1000, 0, 7],
      ['pro', 9000, 0, 63],
      ['pro', 10000, 10, 63],
      ['pro', 49000, 10, 308.7],
      ['pro', 50000, 20, 280],
      ['pro', 100000, 20, 560],
      ['scale', 1000, 0, 6],
      ['scale', 9000, 0, 54],
      ['scale', 10000, 10, 54],
      ['scale', 49000, 10, 264.6],
      ['scale', 50000, 20, 240],
      ['scale', 100000, 20, 480],
    ];
    for (const [plan, units, discount, total] of cases) {
      expect(quote(plan, units)).toMatchObject({
        plan,
        units,
        discount_percent: discount,
        total_usd: total,
        total_cents: Math.round(total * 100),
      });
    }
  });

  it("Stripe's volume tiers charge exactly the quote for every quantity", () => {
    for (const p of CREDIT_PACK_PRICES) {
      for (let packs = 1; packs <= 100; packs++) {
        // Stripe's `volume` mode: the tier of the whole quantity prices every unit.
        const tier = p.tiers.find((t) => t.upToPacks === null || packs <= t.upToPacks)!;
        expect(packs * tier.unitAmountCents).toBe(quote(p.plan, packs * 1000).total_cents);
      }
    }
  });

  it('refuses units out of range and the trial, over HTTP too (422)', async () => {
    expect(() => quote('pro', 999)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', detail: 'units' }));
    expect(() => quote('pro', 1500)).toThrow(expect.objectContaining({ detail: 'units' }));
    expect(() => quote('pro', 101000)).toThrow(expect.objectContaining({ detail: 'units' }));
    expect(() => quote('trial', 1000)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', detail: 'plan' }));
    const pro = await createWorkspace(api.deps, { plan: 'pro' });
    for (const units of ['0', '999', '1500', '101000', 'abc']) {
      const r = await request(api.app).get('/app/billing/quote').query({ units }).set(bearer(pro.apiKey));
      expect(r.status).toBe(422);
      expect(r.body.error.details.detail).toBe('units');
    }
    const ok = await request(api.app).get('/app/billing/quote').query({ units: 50000 }).set(bearer(pro.apiKey)).expect(200);
    expect(ok.body).toEqual({
      plan: 'pro',
      units: 50000,
      unit_price_usd_per_1000: 7,
      discount_percent: 20,
      discounted_usd_per_1000: 5.6,
      total_usd: 280,
      total_cents: 28000,
      currency: 'usd',
      price_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    const trial = await createWorkspace(api.deps);
    const t = await request(api.app).get('/app/billing/quote').query({ units: 1000 }).set(bearer(trial.apiKey));
    expect(t.status).toBe(422);
    expect(t.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'plan' } });
  });

  it('has monthly and yearly prices for every paid plan, yearly at 10 × monthly, lookup keys naming the price version', () => {
    const usd = (plan: PaidPlan, interval: string) =>
      SUBSCRIPTION_PRICES.find((p) => p.plan === plan && p.interval === interval)!.unitAmountCents / 100;
    expect(PAID_PLANS.map((p) => [usd(p, 'monthly'), usd(p, 'yearly')])).toEqual([
      [19, 190],
      [49, 490],
      [149, 1490],
    ]);
    expect(SUBSCRIPTION_PRICES.map((p) => p.monthlyCredits)).toEqual([2000, 2000, 6000, 6000, 20000, 20000]);
    expect(parseLookupKey(subscriptionLookupKey('pro', 'yearly', '2025-01-01'))).toEqual({
      kind: 'subscription',
      plan: 'pro',
      interval: 'yearly',
      version: '2025-01-01',
    });
    expect(parseLookupKey(creditPackLookupKey('scale'))).toMatchObject({ kind: 'credits', plan: 'scale' });
    expect(parseLookupKey('someone_elses_price')).toBeNull();
  });

  it('syncs to Stripe by lookup key: stripe-mock accepts every price; a second sync creates none', async () => {
    // stripe-mock validates the creation parameters (tiered volume prices included) but keeps nothing.
    const mock = createStripeClient({ secretKey: process.env.STRIPE_SECRET_KEY!, apiBase: STRIPE_MOCK });
    const first = await syncPrices(mock);
    expect(first.created).toHaveLength(9);
    // The stateful front remembers them: the second sync lists all nine and creates nothing; nothing is duplicated.
    const front = createStripeClient({ secretKey: process.env.STRIPE_SECRET_KEY!, apiBase: stripeState.url });
    const a = await syncPrices(front);
    const b = await syncPrices(front);
    expect(b.created).toEqual([]);
    expect([...b.ids.entries()].sort()).toEqual([...a.ids.entries()].sort());
    const keys = [...stripeState.prices.values()].map((p) => p.lookup_key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBeGreaterThanOrEqual(9);
  });

  it('keeps a period inside the billing period, monthly slices of a year', () => {
    const start = new Date('2026-01-31T10:00:00Z');
    const end = addMonths(start, 12);
    expect(monthlySliceAt(start, end, new Date('2026-03-01T00:00:00Z'))).toEqual({
      start: new Date('2026-02-28T10:00:00Z'),
      end: new Date('2026-03-31T10:00:00Z'),
    });
    expect(monthlySliceAt(start, end, new Date('2027-01-31T09:00:00Z'))!.end).toEqual(end);
    expect(monthlySliceAt(start, end, end)).toBeNull();
  });
});

describe('checkout and portal against stripe-mock', () => {
  it('creates a subscription checkout for the workspace (owner session + CSRF)', async () => {
    const ws = await createWorkspace(api.deps);
    const as = await owner(api, ws);
    for (const [plan, interval, amount] of [
      ['pro', 'monthly', 49],
      ['scale', 'yearly', 1490],
    ] as const) {
      const res = await as(request(api.app).post('/app/billing/checkout')).send({ kind: 'subscription', plan, interval }).expect(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^cs_/),
        url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//),
        kind: 'subscription',
        plan,
        interval,
        units: null,
        amount_usd: amount,
        currency: 'usd',
        price_version: expect.any(String),
        expires_at: expect.any(String),
      });
    }
    // stripe-mock made the customer; the workspace keeps the first one.
    const stored = await api.deps.db.workspace.findUniqueOrThrow({ where: { id: ws.workspaceId } });
    expect(stored.stripeCustomerId).toMatch(/^cus_/);
  });

  it('creates a credit purchase on a paid plan, refuses it on the trial (402) and out of range (422)', async () => {
    const pro = await createWorkspace(api.deps, { plan: 'pro' });
    const as = await owner(api, pro);
    const res = await as(request(api.app).post('/app/billing/checkout')).send({ kind: 'credits', units: 10000 }).expect(200);
    expect(res.body).toMatchObject({ kind: 'credits', plan: 'pro', units: 10000, interval: null, amount_usd: 63, url: expect.any(String) });
    const bad = await as(request(api.app).post('/app/billing/checkout')).send({ kind: 'credits', units: 1500 });
    expect(bad.status).toBe(422);
    const trial = await createWorkspace(api.deps);
    const asTrial = await owner(api, trial);
    const refused = await asTrial(request(api.app).post('/app/billing/checkout')).send({ kind: 'credits', units: 1000 });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: 'PLAN_REQUIRED', details: { detail: 'plan' } });
  });

  it('needs an owner session and its CSRF token', async () => {
    const ws = await createWorkspace(api.deps);
    const key = await request(api.app).post('/app/billing/checkout').set(bearer(ws.apiKey)).send({ kind: 'subscription', plan: 'pro' });
    expect(key.status).toBe(403);
    const s = await signInSession(api.app, ws.email, ws.password);
    const noCsrf = await request(api.app).post('/app/billing/checkout').set('Cookie', s.cookie).send({ kind: 'subscription', plan: 'pro' });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.details.detail).toBe('X-CSRF-Token');
  });

  it('opens the billing portal', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'starter' });
    const as = await owner(api, ws);
    const res = await as(request(api.app).post('/app/billing/portal')).expect(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^bps_/),
      url: expect.stringMatching(/^https:\/\//),
      return_url: 'http://127.0.0.1/app/billing',
    });
  });

  it('answers 503 while no payment provider is configured (checkout, portal, events)', async () => {
    const ws = await createWorkspace(noKeyApi.deps, { plan: 'pro' });
    const as = await owner(noKeyApi, ws);
    for (const r of [
      await as(request(noKeyApi.app).post('/app/billing/checkout')).send({ kind: 'credits', units: 1000 }),
      await as(request(noKeyApi.app).post('/app/billing/portal')),
      await deliver(noKeyApi, eventObject('invoice.paid', { id: 'in_x' })),
    ]) {
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { detail: 'payment_provider' } });
    }
    // The quote needs no provider.
    await request(noKeyApi.app).get('/app/billing/quote').query({ units: 1000 }).set(bearer(ws.apiKey)).expect(200);
  });

  it('answers 503 with Retry-After while the payment provider cannot be reached; nothing is stored, and an event is left for Stripe to deliver again', async () => {
    // A loopback port held by this test that drops every connection: every Stripe call fails to connect (after
    // stripe-node's own retries). A port merely found free could be taken by another suite's server meanwhile: one
    // run got that server's answer, which is not an outage, and a 500.
    const dropper = net.createServer((socket) => socket.destroy());
    await new Promise<void>((r) => dropper.listen(0, '127.0.0.1', r));
    const down = await startTestApi({ STRIPE_API_BASE: `http://127.0.0.1:${(dropper.address() as net.AddressInfo).port}` });
    try {
      const ws = await createWorkspace(down.deps, { plan: 'pro' });
      const as = await owner(down, ws);
      for (const r of [
        await as(request(down.app).post('/app/billing/checkout')).send({ kind: 'credits', units: 1000 }),
        await as(request(down.app).post('/app/billing/portal')),
      ]) {
        expect(r.status).toBe(503);
        expect(r.body).toMatchObject({
          error: { code: 'SERVICE_UNAVAILABLE', retryable: true, details: { detail: 'payment_provider' } },
          request_id: expect.any(String),
        });
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      }
      // The dashboard's billing buttons: a page saying to come back, with the navigation kept; not an internal error.
      const s = await signInSession(down.app, ws.email, ws.password);
      const form = await request(down.app)
        .post('/dashboard/billing/portal')
        .set('Cookie', `${s.cookie}; ts_csrf=${s.csrf}`)
        .type('form')
        .send({ _csrf: s.csrf });
      expect(form.status).toBe(503);
      expect(form.text).toContain('Not available right now');
      expect(form.text).toContain('The payment provider cannot be reached right now');
      expect(form.text).toContain('<nav aria-label="Dashboard">');
      expect(Number(form.headers['retry-after'])).toBeGreaterThan(0);
      const stored = await down.deps.db.workspace.findUniqueOrThrow({ where: { id: ws.workspaceId }, select: { stripeCustomerId: true } });
      expect(stored.stripeCustomerId).toBeNull();
      const event = eventObject('checkout.session.completed', { id: `cs_${randomUUID()}`, object: 'checkout.session' });
      const delivered = await deliver(down, event);
      expect(delivered.status).toBe(503);
      expect(await down.deps.db.billingEvent.count({ where: { id: event.id } })).toBe(0);
    } finally {
      await down.close();
      await new Promise((r) => dropper.close(r));
    }
  }, 60_000);

  it('takes its settings from config: production refuses a secret key without the webhook signing secret', () => {
    const prod = {
      APP_ENV: 'production',
      DATABASE_URL: 'postgresql://x/y',
      SECRETS_KEY: 'k'.repeat(32),
      PUBLIC_BASE_URL: 'https://api.example.com',
    };
    expect(stripeSettings(loadConfig(prod))).toBeNull();
    expect(() => loadConfig({ ...prod, STRIPE_SECRET_KEY: 'sk_live_abc' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(stripeSettings(loadConfig({ ...prod, STRIPE_SECRET_KEY: 'sk_live_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }))).toEqual({
      secretKey: 'sk_live_abc',
      apiBase: null,
      webhookSecret: 'whsec_abc',
    });
  });

  it('declares the account billing routes in the OpenAPI document, and never the Stripe ingress', async () => {
    const { body: doc } = await request(api.app).get('/openapi.json').expect(200);
    expect(doc.paths['/app/billing/checkout'].post['x-error-codes']).toEqual(
      expect.arrayContaining(['SERVICE_UNAVAILABLE', 'CONFLICT', 'PLAN_REQUIRED']),
    );
    expect(doc.paths['/app/billing/quote'].get).toBeDefined();
    expect(doc.paths['/app/billing/portal'].post).toBeDefined();
    expect(doc.components.schemas.CheckoutSession.required).toEqual(
      expect.arrayContaining(['id', 'url', 'kind', 'amount_usd', 'expires_at']),
    );
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/ingress'))).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('stripe-signature');
  });
});

describe('Stripe events at the ingress', () => {
  it('refuses a tampered body, a wrong secret, a stale timestamp and a missing signature (400), recording nothing', async () => {
    const ws = await createWorkspace(stateApi.deps);
    const event = eventObject('checkout.session.completed', { id: 'cs_never', object: 'checkout.session' });
    const tampered = await deliver(stateApi, event, { tamper: (p) => p.replace('cs_never', 'cs_other') });
    const wrongSecret = await deliver(stateApi, event, { secret: 'whsec_someone_else' });
    const stale = await deliver(stateApi, event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    const missing = await request(stateApi.app).post('/ingress/stripe').set('Content-Type', 'application/json').send(JSON.stringify(event));
    for (const r of [tampered, wrongSecret, stale, missing]) {
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { detail: 'Stripe-Signature' } });
    }
    expect(await stateApi.deps.db.billingEvent.findUnique({ where: { id: event.id } })).toBeNull();
    expect((await usage(stateApi, ws)).plan).toBe('trial');
  });

  it('acknowledges event types it does not act on', async () => {
    const r = await deliver(stateApi, eventObject('customer.created', { id: 'cus_x', object: 'customer' })).expect(200);
    expect(r.body).toMatchObject({ ignored: true, duplicate: false });
  });

  it('an upgrade from the trial: checkout completed → the plan, its credits and the subscription in GET /v1/usage', async () => {
    const { ws, end } = await subscribe('pro');
    const u = await usage(stateApi, ws);
    expect(u).toMatchObject({
      plan: 'pro',
      credits_total: 6000,
      credits_remaining: 6000,
      prepaid_credits: 0,
      subscription: { status: 'active', interval: 'monthly', cancel_at_period_end: false, current_period_end: end.toISOString() },
    });
    expect(u.period_end).toBe(end.toISOString());
    // The new plan's limits at once: AI transcription is offered.
    const caps = await request(stateApi.app).get('/v1/capabilities').set(bearer(ws.apiKey)).expect(200);
    expect(caps.body.videosite.transcribe).toBe(true);
    // The subscription was retrieved from Stripe, not read from the event.
    expect(stripeState.requests.some((r) => /^GET \/v1\/subscriptions\//.test(r))).toBe(true);
  });

  it('duplicates and replays change nothing; concurrent duplicates grant once', async () => {
    const { ws, id, sub } = await subscribe('starter');
    const before = await usage(stateApi, ws);
    const updated = eventObject('customer.subscription.updated', sub);
    const first = await deliver(stateApi, updated).expect(200);
    expect(first.body.duplicate).toBe(false);
    // The same event again (Stripe retries), signed anew, and five of it at once, plus distinct events at once.
    const again = await deliver(stateApi, updated).expect(200);
    expect(again.body.duplicate).toBe(true);
    const burst = await Promise.all([
      ...Array.from({ length: 5 }, () =>
        deliver(
          stateApi,
          eventObject(
            'invoice.paid',
            { id: 'in_1', object: 'invoice', parent: { subscription_details: { subscription: id.sub } } },
            `evt_same_${id.sub}`,
          ),
        ),
      ),
      ...Array.from({ length: 3 }, () => deliver(stateApi, eventObject('customer.subscription.updated', sub))),
    ]);
    expect(burst.every((r) => r.status === 200)).toBe(true);
    expect(await usage(stateApi, ws)).toEqual(before);
    expect(await stateApi.deps.db.billingCreditGrant.count({ where: { workspaceId: ws.workspaceId } })).toBe(1);
    expect(await stateApi.deps.db.billingEvent.count({ where: { id: `evt_same_${id.sub}` } })).toBe(1);
  });

  it('out of order: a late "created" carrying an old state does not undo what Stripe holds now', async () => {
    const { ws, id, sub, start, end } = await subscribe('pro');
    const created = eventObject('customer.subscription.created', { ...sub, status: 'incomplete' });
    // Stripe now: cancelling at period end. The "updated" arrives first, the older "created" last.
    await stripeChanges(
      id.sub,
      { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('pro', 'monthly'), start, end, cancelAtPeriodEnd: true },
      'customer.subscription.updated',
    );
    await deliver(stateApi, created).expect(200);
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'pro', subscription: { status: 'active', cancel_at_period_end: true } });
  });

  it('racing handlers: a read of Stripe that started earlier never overwrites one that started later', async () => {
    const { ws, id, start, end } = await subscribe('pro');
    const base = { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('pro', 'monthly'), start, end };
    // Handler 1 reads "cancelling" and is slow to get its answer; meanwhile the customer resumes and handler 2 reads that.
    stripeState.subscriptions.set(id.sub, subscriptionObject({ ...base, cancelAtPeriodEnd: true }));
    stripeState.delays.set(id.sub, 1500);
    const slow = deliver(stateApi, eventObject('customer.subscription.updated', { id: id.sub, object: 'subscription' }));
    const slowDone = slow.then((r) => r);
    await new Promise((r) => setTimeout(r, 300));
    stripeState.delays.delete(id.sub);
    stripeState.subscriptions.set(id.sub, subscriptionObject({ ...base, cancelAtPeriodEnd: false }));
    await deliver(stateApi, eventObject('customer.subscription.updated', { id: id.sub, object: 'subscription' })).expect(200);
    expect((await slowDone).status).toBe(200);
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'pro', subscription: { cancel_at_period_end: false } });
  });

  it('an upgrade mid-period applies at once and tops the running month up to the new plan', async () => {
    const { ws, id, start, end } = await subscribe('starter');
    await stateApi.deps.db
      .$executeRaw`UPDATE credit_accounts SET period_credits = period_credits - 500 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    await stripeChanges(
      id.sub,
      { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('scale', 'monthly'), start, end },
      'customer.subscription.updated',
    );
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'scale', credits_total: 20000, credits_remaining: 19500 });
  });

  it('a renewal: no credits before the invoice is paid, the new month on invoice.paid; unused monthly credits lapse', async () => {
    const { ws, id, end } = await subscribe('pro');
    await stateApi.deps.db.$executeRaw`UPDATE credit_accounts SET period_credits = 1000 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    // A month goes by; Stripe starts the next period and drafts its invoice.
    const month = end.getTime() - Date.now() + 60_000;
    await timeTravel(stateApi, ws.workspaceId, month);
    const next = { start: sec(end.getTime() - month), end: addMonths(sec(end.getTime() - month), 1) };
    const renewed = { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('pro', 'monthly'), ...next };
    await stripeChanges(id.sub, { ...renewed, invoiceStatus: 'open' }, 'customer.subscription.updated');
    const waiting = await usage(stateApi, ws);
    expect(waiting).toMatchObject({ plan: 'pro', credits_remaining: 1000, subscription: { current_period_end: next.end.toISOString() } });
    await stripeChanges(id.sub, renewed, 'invoice.paid');
    expect(await usage(stateApi, ws)).toMatchObject({
      plan: 'pro',
      credits_total: 6000,
      credits_remaining: 6000,
      period_end: next.end.toISOString(),
    });
  });

  it('a yearly plan gets its credits every month (on a usage read or by the monthly grant job)', async () => {
    const start = sec(Date.now() - 45 * DAY);
    const { ws } = await subscribe('pro', 'yearly', { start, end: addMonths(start, 12) });
    const u = await usage(stateApi, ws);
    expect(u).toMatchObject({
      plan: 'pro',
      credits_total: 6000,
      period_end: addMonths(start, 2).toISOString(),
      subscription: { interval: 'yearly' },
    });
    await stateApi.deps.db.$executeRaw`UPDATE credit_accounts SET period_credits = 10 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    // A month later: the usage read finds the month over and grants the next one.
    await timeTravel(stateApi, ws.workspaceId, 31 * DAY);
    expect(await usage(stateApi, ws)).toMatchObject({ credits_total: 6000, credits_remaining: 6000 });
    // Another month: the grant job, without any read.
    await stateApi.deps.db.$executeRaw`UPDATE credit_accounts SET period_credits = 10 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    await timeTravel(stateApi, ws.workspaceId, 31 * DAY);
    // The schedule's workflow on a real worker (worker/schedules.ts runs it every 10 minutes).
    const taskQueue = `grants-${randomUUID()}`;
    const worker = await startTestWorker(createBillingActivities(stateApi.deps.db), taskQueue);
    try {
      const granted = await stateApi.deps.temporal.workflow.execute(monthlyGrantsWorkflow, {
        taskQueue,
        workflowId: `grants-${randomUUID()}`,
      });
      expect(granted).toBeGreaterThanOrEqual(1);
    } finally {
      await worker.stop();
    }
    const account = await stateApi.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId: ws.workspaceId } });
    expect(account.periodCredits).toBe(6000);
    expect(await stateApi.deps.db.billingCreditGrant.count({ where: { workspaceId: ws.workspaceId } })).toBe(3);
    // Running it again grants nothing more.
    await grantDueMonthlyCredits(stateApi.deps.db);
    expect(await stateApi.deps.db.billingCreditGrant.count({ where: { workspaceId: ws.workspaceId } })).toBe(3);
  });

  it('a credit purchase adds its credits exactly once, also under concurrent duplicate deliveries', async () => {
    const { ws } = await subscribe('pro');
    const cs = ids().cs;
    const meta = { kind: 'credits', units: '10000', workspace_id: ws.workspaceId, plan: 'pro' };
    stripeState.sessions.set(
      cs,
      checkoutSessionObject({ id: cs, workspaceId: ws.workspaceId, mode: 'payment', metadata: meta, amountTotal: 6300 }),
    );
    const completed = eventObject('checkout.session.completed', { id: cs, object: 'checkout.session' });
    const results = await Promise.all([
      ...Array.from({ length: 6 }, () => deliver(stateApi, completed)),
      ...Array.from({ length: 4 }, () =>
        deliver(stateApi, eventObject('checkout.session.completed', { id: cs, object: 'checkout.session' })),
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const u = await usage(stateApi, ws);
    expect(u).toMatchObject({ prepaid_credits: 10000, credits_remaining: 16000 });
    expect(await stateApi.deps.db.billingCreditPurchase.count({ where: { workspaceId: ws.workspaceId } })).toBe(1);
    expect(await stateApi.deps.db.creditLedgerEntry.count({ where: { workspaceId: ws.workspaceId, kind: 'grant_prepaid' } })).toBe(1);
  });

  it('a delayed payment method: nothing while unpaid, the credits once it succeeds', async () => {
    const pro = await createWorkspace(stateApi.deps, { plan: 'pro' });
    const cs = ids().cs;
    const meta = { kind: 'credits', units: '2000', workspace_id: pro.workspaceId, plan: 'pro' };
    stripeState.sessions.set(
      cs,
      checkoutSessionObject({ id: cs, workspaceId: pro.workspaceId, mode: 'payment', metadata: meta, paymentStatus: 'unpaid' }),
    );
    await deliver(stateApi, eventObject('checkout.session.completed', { id: cs, object: 'checkout.session' })).expect(200);
    expect((await usage(stateApi, pro)).prepaid_credits).toBe(0);
    stripeState.sessions.set(
      cs,
      checkoutSessionObject({ id: cs, workspaceId: pro.workspaceId, mode: 'payment', metadata: meta, paymentStatus: 'paid' }),
    );
    await deliver(stateApi, eventObject('checkout.session.async_payment_succeeded', { id: cs, object: 'checkout.session' })).expect(200);
    expect((await usage(stateApi, pro)).prepaid_credits).toBe(2000);
  });

  it('a failed payment: the plan stays while Stripe retries, no new credits; the end of the subscription drops to the trial', async () => {
    const { ws, id, end } = await subscribe('pro');
    await stateApi.deps.db.$executeRaw`UPDATE credit_accounts SET prepaid_credits = 300 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const month = end.getTime() - Date.now() + 60_000;
    await timeTravel(stateApi, ws.workspaceId, month);
    const next = { start: sec(end.getTime() - month), end: addMonths(sec(end.getTime() - month), 1) };
    const base = { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('pro', 'monthly'), ...next };
    await stripeChanges(id.sub, { ...base, status: 'past_due', invoiceStatus: 'open' }, 'invoice.payment_failed');
    const dunning = await usage(stateApi, ws);
    expect(dunning).toMatchObject({ plan: 'pro', subscription: { status: 'past_due' } });
    expect(await stateApi.deps.db.billingCreditGrant.count({ where: { workspaceId: ws.workspaceId } })).toBe(1);
    // Stripe gives up and cancels.
    await stripeChanges(id.sub, { ...base, status: 'canceled', invoiceStatus: 'open' }, 'customer.subscription.deleted');
    const ended = await usage(stateApi, ws);
    expect(ended).toMatchObject({ plan: 'trial', credits_total: 0, prepaid_credits: 300, credits_remaining: 300, subscription: null });
  });

  it('a cancellation takes effect at period end: plan and credits until then, the trial limits after (no new free credits)', async () => {
    const { ws, id, start, end } = await subscribe('scale');
    const base = { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('scale', 'monthly'), start, end };
    await stripeChanges(id.sub, { ...base, cancelAtPeriodEnd: true }, 'customer.subscription.updated');
    expect(await usage(stateApi, ws)).toMatchObject({
      plan: 'scale',
      credits_total: 20000,
      subscription: { cancel_at_period_end: true, status: 'active' },
    });
    // The period ends; Stripe deletes the subscription.
    const month = end.getTime() - Date.now() + 60_000;
    await timeTravel(stateApi, ws.workspaceId, month);
    await stripeChanges(
      id.sub,
      {
        ...base,
        start: new Date(start.getTime() - month),
        end: new Date(end.getTime() - month),
        status: 'canceled',
        cancelAtPeriodEnd: true,
      },
      'customer.subscription.deleted',
    );
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'trial', credits_total: 0, credits_remaining: 0, subscription: null });
    const caps = await request(stateApi.app).get('/v1/capabilities').set(bearer(ws.apiKey)).expect(200);
    expect(caps.body.videosite.transcribe).toBe(false);
    const profile = await stateApi.deps.db.workspace.findUniqueOrThrow({ where: { id: ws.workspaceId } });
    expect(profile.retentionDays).toBeLessThanOrEqual(7);
  });

  it('a cancellation effective at once in Stripe still keeps the paid month', async () => {
    const { ws, id, start, end } = await subscribe('pro');
    await stripeChanges(
      id.sub,
      { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('pro', 'monthly'), start, end, status: 'canceled' },
      'customer.subscription.deleted',
    );
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'pro', credits_total: 6000, subscription: { status: 'canceled' } });
    await timeTravel(stateApi, ws.workspaceId, end.getTime() - Date.now() + 60_000);
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'trial', credits_total: 0, subscription: null });
  });

  it('a downgrade takes effect at period end: the higher plan until then, the lower plan and its credits after', async () => {
    const { ws, id, start, end } = await subscribe('pro');
    // Changed in the portal now (Stripe already bills Starter).
    await stripeChanges(
      id.sub,
      { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('starter', 'monthly'), start, end },
      'customer.subscription.updated',
    );
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'pro', credits_total: 6000 });
    const batch = await request(stateApi.app)
      .post('/v1/batches')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', `downgrade-${id.sub}`)
      .send({
        items: Array.from({ length: 11 }, (_, i) => ({ source: { url: `https://example.com/not-a-video-${i}` }, mode: 'captions_only' })),
      });
    expect(batch.status).not.toBe(402); // Pro's batch size (25) still applies.
    const month = end.getTime() - Date.now() + 60_000;
    await timeTravel(stateApi, ws.workspaceId, month);
    const next = { start: sec(end.getTime() - month), end: addMonths(sec(end.getTime() - month), 1) };
    await stripeChanges(
      id.sub,
      { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('starter', 'monthly'), ...next },
      'invoice.paid',
    );
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'starter', credits_total: 2000, credits_remaining: 2000 });
    const small = await request(stateApi.app)
      .post('/v1/batches')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', `downgrade-after-${id.sub}`)
      .send({
        items: Array.from({ length: 11 }, (_, i) => ({ source: { url: `https://example.com/not-a-video-${i}` }, mode: 'captions_only' })),
      });
    expect(small.status).toBe(402);
    expect(small.body.error.code).toBe('PLAN_REQUIRED');
  });

  it('subscribing again after a cancellation: the new subscription applies; a late event of the old one changes nothing', async () => {
    const { ws, id, start, end } = await subscribe('starter');
    const old = { id: id.sub, workspaceId: ws.workspaceId, lookupKey: subscriptionLookupKey('starter', 'monthly'), start, end };
    await timeTravel(stateApi, ws.workspaceId, end.getTime() - Date.now() + 60_000);
    await stripeChanges(id.sub, { ...old, status: 'canceled' }, 'customer.subscription.deleted');
    expect((await usage(stateApi, ws)).plan).toBe('trial');
    const again = ids();
    const s2 = sec(Date.now() - 1000);
    stripeState.subscriptions.set(
      again.sub,
      subscriptionObject({
        id: again.sub,
        workspaceId: ws.workspaceId,
        lookupKey: subscriptionLookupKey('pro', 'yearly'),
        interval: 'year',
        start: s2,
        end: addMonths(s2, 12),
      }),
    );
    stripeState.sessions.set(
      again.cs,
      checkoutSessionObject({ id: again.cs, workspaceId: ws.workspaceId, mode: 'subscription', subscription: again.sub }),
    );
    await deliver(stateApi, eventObject('checkout.session.completed', { id: again.cs, object: 'checkout.session' })).expect(200);
    expect(await usage(stateApi, ws)).toMatchObject({
      plan: 'pro',
      credits_total: 6000,
      subscription: { status: 'active', interval: 'yearly' },
    });
    // The old subscription's deletion delivered again, late: the live one stays.
    await deliver(stateApi, eventObject('customer.subscription.deleted', { id: id.sub, object: 'subscription' })).expect(200);
    expect(await usage(stateApi, ws)).toMatchObject({ plan: 'pro', subscription: { status: 'active', interval: 'yearly' } });
  });

  it('a second subscription checkout is refused while one is live (409: the portal changes plans)', async () => {
    const { ws } = await subscribe('starter');
    const as = await owner(stateApi, ws);
    const r = await as(request(stateApi.app).post('/app/billing/checkout')).send({ kind: 'subscription', plan: 'pro' });
    expect(r.status).toBe(409);
    expect(r.body.error.details.detail).toBe('subscription');
  });
});

describe('schedules', () => {
  it('the worker creates the retention and monthly-grant schedules once, each every 10 minutes', async () => {
    // A namespace of its own: on the shared test server, workers of other test files create the same schedules.
    const namespace = `schedules-${randomUUID()}`;
    const service = api.deps.temporal.connection.workflowService;
    await service.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const client = new Client({ connection: api.deps.temporal.connection, namespace });
    for (let i = 0; ; i++) {
      try {
        for await (const _ of client.schedule.list()) break;
        break;
      } catch (err) {
        if (i > 50) throw err; // the new namespace is visible within moments
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const taskQueue = `schedules-${randomUUID()}`;
    try {
      await ensureSchedules(client, taskQueue);
      await ensureSchedules(client, taskQueue); // a second worker: left as is
      for (const s of SCHEDULES) {
        const d = await client.schedule.getHandle(s.scheduleId).describe();
        expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: s.workflowType, taskQueue });
        expect(d.spec.intervals?.[0]?.every).toBe(600_000);
      }
      expect(SCHEDULES.map((s) => s.scheduleId)).toEqual(['transcript-retention', 'billing-monthly-grants']);
    } finally {
      for (const s of SCHEDULES)
        await client.schedule
          .getHandle(s.scheduleId)
          .delete()
          .catch(() => undefined);
    }
  });
});
