import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

// stripe-mock validates every request against Stripe's OpenAPI document but
// keeps no state: any id returns the same fixture. The service's state machine
// needs "the subscription as Stripe holds it now", so the convergence tests put
// this small HTTP server in front of stripe-mock:
//
//   - every request goes to stripe-mock first (so its parameters are validated
//     by Stripe's own schema; a 4xx from stripe-mock is returned as is);
//   - subscriptions and checkout sessions the test has put here, and prices
//     created through here, are then answered from this state, in Stripe's
//     object shape (API 2026-10-28: the period on the subscription items);
//   - everything else is stripe-mock's answer.
//
// The service's stripe-node client is pointed at this server exactly as at
// stripe-mock (host/port/protocol). What is real: stripe-node, the HTTP calls,
// stripe-mock's validation. What is the test's: the content of the retrieved
// subscriptions and sessions (stripe-mock cannot hold them).

export interface StripeState {
  url: string;
  subscriptions: Map<string, Stripe.Subscription>;
  sessions: Map<string, Stripe.Checkout.Session>;
  prices: Map<string, Stripe.Price>;
  /** Milliseconds to hold the answer to GET /v1/subscriptions/<id> (the state is read when the request arrives). */
  delays: Map<string, number>;
  /** `METHOD path` of every request, in order. */
  requests: string[];
  close(): Promise<void>;
}

function parseForm(body: string): URLSearchParams {
  return new URLSearchParams(body);
}

function stripeError(res: http.ServerResponse, status: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { type: 'invalid_request_error', message } }));
}

export async function startStripeState(stripeMockBase: string): Promise<StripeState> {
  const state: Omit<StripeState, 'url' | 'close'> = {
    subscriptions: new Map(),
    sessions: new Map(),
    prices: new Map(),
    delays: new Map(),
    requests: [],
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const url = new URL(req.url ?? '/', 'http://x');
        // A subscription as it is when the request arrives (a held answer then carries an older state).
        const subId = req.method === 'GET' ? /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname)?.[1] : undefined;
        const subAtArrival = subId ? state.subscriptions.get(subId) : undefined;
        const hold = subId ? (state.delays.get(subId) ?? 0) : 0;
        state.requests.push(`${req.method} ${url.pathname}`);
        const headers: Record<string, string> = {};
        const hopByHop = ['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'];
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !hopByHop.includes(k)) headers[k] = v;
        const upstream = await fetch(`${stripeMockBase}${req.url}`, {
          method: req.method,
          headers,
          body: req.method === 'GET' ? undefined : body,
        });
        const text = await upstream.text();
        if (upstream.status >= 400) {
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          return res.end(text);
        }
        const json = (o: unknown) => {
          res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_state_${state.requests.length}` });
          res.end(JSON.stringify(o));
        };
        let m: RegExpExecArray | null;
        if (subId) {
          if (hold > 0) await new Promise((r) => setTimeout(r, hold));
          return subAtArrival ? json(subAtArrival) : stripeError(res, 404, `No such subscription: '${subId}'`);
        }
        if (req.method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname))) {
          const s = state.sessions.get(m[1]!);
          return s ? json(s) : stripeError(res, 404, `No such checkout.session: '${m[1]}'`);
        }
        if (req.method === 'GET' && url.pathname === '/v1/prices') {
          const keys = [...url.searchParams.entries()].filter(([k]) => k.startsWith('lookup_keys')).map(([, v]) => v);
          const data = [...state.prices.values()].filter((p) => p.active && (keys.length === 0 || keys.includes(p.lookup_key ?? '')));
          return json({ object: 'list', data, has_more: false, url: '/v1/prices' });
        }
        if (req.method === 'POST' && url.pathname === '/v1/prices') {
          const form = parseForm(body);
          const key = form.get('lookup_key');
          if (key && [...state.prices.values()].some((p) => p.active && p.lookup_key === key)) {
            return stripeError(res, 400, `A price (lookup_key ${key}) already uses that lookup key.`);
          }
          const price = JSON.parse(text) as Stripe.Price;
          const metadata = Object.fromEntries(
            [...form.entries()].filter(([k]) => /^metadata\[/.test(k)).map(([k, v]) => [k.slice(9, -1), v]),
          );
          const stored = { ...price, id: `price_state_${state.prices.size + 1}`, lookup_key: key, active: true, metadata } as Stripe.Price;
          state.prices.set(stored.id, stored);
          return json(stored);
        }
        res.writeHead(upstream.status, { 'content-type': 'application/json' });
        res.end(text);
      })().catch((err: Error) => stripeError(res, 500, err.message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    ...state,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/** A subscription in Stripe's shape (API 2026-10-28): one item, the period on the item, the latest invoice expanded. */
export function subscriptionObject(o: {
  id: string;
  workspaceId?: string;
  customer?: string;
  status?: Stripe.Subscription.Status;
  lookupKey: string;
  interval?: 'month' | 'year';
  start: Date;
  end: Date;
  cancelAtPeriodEnd?: boolean;
  invoiceStatus?: Stripe.Invoice.Status;
}): Stripe.Subscription {
  return {
    id: o.id,
    object: 'subscription',
    customer: o.customer ?? 'cus_state',
    status: o.status ?? 'active',
    cancel_at_period_end: o.cancelAtPeriodEnd ?? false,
    metadata: o.workspaceId ? { workspace_id: o.workspaceId } : {},
    items: {
      object: 'list',
      has_more: false,
      url: `/v1/subscription_items?subscription=${o.id}`,
      data: [
        {
          id: `si_${o.id}`,
          object: 'subscription_item',
          quantity: 1,
          current_period_start: unix(o.start),
          current_period_end: unix(o.end),
          price: {
            id: `price_${o.lookupKey}`,
            object: 'price',
            lookup_key: o.lookupKey,
            recurring: { interval: o.interval ?? 'month', interval_count: 1 },
            metadata: {},
          },
        },
      ],
    },
    latest_invoice: { id: `in_${o.id}_${unix(o.start)}`, object: 'invoice', status: o.invoiceStatus ?? 'paid' },
  } as unknown as Stripe.Subscription;
}

/** A Checkout Session in Stripe's shape. */
export function checkoutSessionObject(o: {
  id: string;
  workspaceId: string;
  mode: 'subscription' | 'payment';
  subscription?: string;
  paymentStatus?: Stripe.Checkout.Session.PaymentStatus;
  metadata?: Record<string, string>;
  amountTotal?: number;
}): Stripe.Checkout.Session {
  return {
    id: o.id,
    object: 'checkout.session',
    mode: o.mode,
    status: 'complete',
    client_reference_id: o.workspaceId,
    subscription: o.subscription ?? null,
    payment_status: o.paymentStatus ?? 'paid',
    metadata: o.metadata ?? {},
    amount_total: o.amountTotal ?? null,
  } as unknown as Stripe.Checkout.Session;
}

let eventCounter = 0;

/** A Stripe event (what Stripe POSTs): the object as it was when the event happened. */
export function eventObject(type: string, object: unknown, id = `evt_test_${process.pid}_${Date.now()}_${++eventCounter}`): Stripe.Event {
  return {
    id,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  } as unknown as Stripe.Event;
}

/** Signs an event payload as Stripe does (`Stripe-Signature: t=…,v1=…`). */
export function signedDelivery(payload: string, secret: string, timestamp?: number): { payload: string; signature: string } {
  const stripe = new Stripe('sk_test_signingonly');
  return { payload, signature: stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) }) };
}
