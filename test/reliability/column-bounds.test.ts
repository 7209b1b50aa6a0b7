import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ROOT } from '../../stack/proc';
import { signedDelivery } from '../support/stripe-state';
import { bearer, createWorkspace, startTestApi, type TestApi, type TestWorkspace } from '../support/harness';

// Issue 23, item 2, closed as a class: every bounded column of the Prisma
// schema (a VARCHAR(n), or text in a btree index, whose entries PostgreSQL
// refuses past 2,704 bytes) is either written only by the server (hashes,
// generated ids, values from Stripe or the recognition provider) or reached
// by request fields whose bound the API states (the OpenAPI document, the
// form's maxlength) and enforces before anything is stored: a value of the
// bound passes validation, one character more and 100,000 characters are
// refused (422 naming the field; the protocol's own 400 on the Stripe
// ingress; a header too large for the HTTP parser is 431), in ASCII,
// accented (precomposed) and combining forms. A bounded column added
// without an entry here fails the first test.

/** A btree index entry must fit in 2,704 bytes; text of up to 4 UTF-8 bytes per character is safe up to this many characters. */
const BTREE_SAFE_CHARS = 676;

type Form = 'ascii' | 'accented' | 'combining';
const FORMS: Form[] = ['ascii', 'accented', 'combining'];

/** `n` UTF-16 code units of one form: `a`, `é` (U+00E9), or `e` + U+0301 pairs. */
function fill(n: number, form: Form): string {
  if (form === 'ascii') return 'a'.repeat(n);
  if (form === 'accented') return '\u00e9'.repeat(n);
  return 'e\u0301'.repeat(Math.floor(n / 2)) + (n % 2 ? 'e' : '');
}

interface Probe {
  /** How the field is named in `details.detail` (and found in the document). */
  field: string;
  where: string;
  /** The bound the API states for the field (characters). */
  bound: number;
  /** Where the API states it: the OpenAPI schema of an operation's body field or header, or a form's maxlength. */
  stated: { operationId: string; body?: string; header?: string } | { page: string; input: string };
  /** A value of exactly `length` characters in `form` (valid otherwise, where the field allows it). */
  value: (length: number, form: Form) => string;
  /** Sends it; the answer's status and the field it names (from the envelope, or found in a page or OAuth answer). */
  send: (value: string) => Promise<{ status: number; names: (field: string) => boolean }>;
  /** Forms the transport cannot carry (an HTTP header holds Latin-1 only). */
  forms?: Form[];
  /** The route's body limit in bytes, when a value this long is refused by it first (413 naming the limit). */
  bodyLimitBytes?: number;
}

/** A syntactically valid e-mail address of exactly `length` characters, the form's characters in the local part. */
function email(length: number, form: Form): string {
  const domain = '@example.test';
  return fill(length - domain.length, form) + domain;
}

let api: TestApi;
let ws: TestWorkspace;
let openapi: any;

beforeAll(async () => {
  api = await startTestApi({ SIGN_UPS_PER_HOUR: '100000', SIGN_IN_FAILURES_PER_15_MINUTES: '100000' });
  ws = await createWorkspace(api.deps, { plan: 'pro' });
  openapi = (await request(api.app).get('/openapi.json')).body;
});
afterAll(() => api.close());

const envelope = (res: request.Response) => ({
  status: res.status,
  names: (field: string) => res.body?.error?.details?.detail === field,
});
/** A dashboard page's refusal names the field in its alert (`email: …`). */
const page = (res: request.Response) => ({
  status: res.status,
  names: (field: string) => new RegExp(`role="alert">\\s*${field}:`).test(res.text),
});

const PROBES: Probe[] = [
  {
    field: 'email',
    where: 'POST /app/sign-up',
    bound: 254,
    stated: { operationId: 'signUp', body: 'email' },
    value: email,
    send: async (v) =>
      envelope(await request(api.app).post('/app/sign-up').send({ email: v, password: 'a long enough password', display_name: 'B' })),
  },
  {
    field: 'email',
    where: 'POST /app/session',
    bound: 254,
    stated: { operationId: 'signIn', body: 'email' },
    value: email,
    send: async (v) => envelope(await request(api.app).post('/app/session').send({ email: v, password: 'a wrong password' })),
  },
  {
    field: 'email',
    where: 'the dashboard sign-up form',
    bound: 254,
    bodyLimitBytes: 64 * 1024,
    stated: { page: '/dashboard/sign-up', input: 'email' },
    value: email,
    send: async (v) =>
      page(
        await request(api.app)
          .post('/dashboard/sign-up')
          .type('form')
          .send({ email: v, password: 'a long enough password', display_name: 'B' }),
      ),
  },
  {
    field: 'email',
    where: 'the dashboard sign-in form',
    bound: 254,
    bodyLimitBytes: 64 * 1024,
    stated: { page: '/app/sign-in', input: 'email' },
    value: email,
    send: async (v) => page(await request(api.app).post('/app/sign-in').type('form').send({ email: v, password: 'a wrong password' })),
  },
  {
    field: 'Idempotency-Key',
    where: 'POST /v1/jobs',
    bound: 128,
    stated: { operationId: 'createJob', header: 'Idempotency-Key' },
    value: fill,
    forms: ['ascii', 'accented'],
    send: async (v) => {
      try {
        return envelope(
          await request(api.app)
            .post('/v1/jobs')
            .set(bearer(ws.apiKey))
            .set('Idempotency-Key', v)
            .send({ source: { url: 'https://www.youtube.com/watch?v=bounds00001' }, mode: 'captions_only' }),
        );
      } catch (err) {
        // Headers past the HTTP parser's 16 KiB: it answers 431 and closes while the client is still sending, so
        // the client may see the reset before it reads the answer. Either way the request never existed.
        if (v.length > 16 * 1024 && ['ECONNRESET', 'EPIPE'].includes((err as NodeJS.ErrnoException).code ?? '')) {
          return { status: 431, names: () => false };
        }
        throw err;
      }
    },
  },
  {
    field: 'id',
    where: 'POST /ingress/stripe (a signed event)',
    bound: 255,
    stated: { operationId: 'stripeEvents', body: 'id' },
    value: fill,
    send: async (v) => {
      // A type the service ignores: the id is validated before anything is read or stored.
      const { payload, signature } = signedDelivery(
        JSON.stringify({ id: v, object: 'event', type: 'customer.created', data: { object: { id: 'cus_1', object: 'customer' } } }),
        process.env.STRIPE_WEBHOOK_SECRET!,
      );
      const res = await request(api.app)
        .post('/ingress/stripe')
        .set('Stripe-Signature', signature)
        .set('Content-Type', 'application/json')
        .send(payload);
      return envelope(res);
    },
  },
];

/**
 * Every bounded column and what reaches it. `probes` name the request fields
 * above; `server` says why no request value is ever stored there as sent.
 */
const COLUMN_SOURCES: Record<string, { probes: string[] } | { server: string }> = {
  'Workspace.stripeCustomerId': { server: "Stripe's customer id, from Stripe's API answer" },
  'User.email': { probes: ['POST /app/sign-up: email', 'the dashboard sign-up form: email'] },
  'EmailVerification.tokenHash': { server: 'sha256 of a server-made token' },
  'OutboxEmail.to': { probes: ['POST /app/sign-up: email', 'the dashboard sign-up form: email'] },
  'Session.tokenHash': { server: 'sha256 of a server-made token' },
  'ApiKey.secretHash': { server: 'sha256 of a server-made key' },
  'Subscription.stripeSubscriptionId': { server: "Stripe's id, from Stripe's API" },
  'BillingCreditPurchase.checkoutSessionId': { server: "Stripe's id, retrieved from Stripe's API" },
  'BillingEvent.id': { probes: ['POST /ingress/stripe (a signed event): id'] },
  'IdempotencyRecord.operation': { server: "the route's path with its validated (uuid) parameters" },
  'IdempotencyRecord.key': { probes: ['POST /v1/jobs: Idempotency-Key'] },
  'Job.mediaId': {
    server:
      "the platform's id matched by a bounded pattern (at most 64 characters), or sha256 of a direct link (integrations/platforms/links.ts)",
  },
  'Job.providerJobId': { server: "the recognition provider's id" },
  'Job.workflowId': { server: 'job-<uuid>' },
  'Batch.workflowId': { server: 'batch-<uuid>' },
  'Transcript.reuseKey': { server: 'sha256 of the normalised request' },
  'TranscriptMoment.embeddingModel': { server: "the embedding model's name and version (integrations/embeddings/e5.ts E5_MODEL)" },
  'Upload.objectKey': { server: 'uploads/<workspace uuid>/<upload uuid>' },
  'VideoDiscovery.cacheKey': { server: 'sha256 of the normalised request' },
  'LanguageDiscovery.cacheKey': { server: 'sha256 of the normalised request' },
  'WebhookEvent.subjectKey': { server: 'an event type and a uuid' },
  'RateLimitCounter.key': { probes: ['POST /app/session: email', 'the dashboard sign-in form: email'] },
  'OAuthRecord.model': { server: "oidc-provider's model names" },
  'OAuthRecord.keyHash': { server: "sha256 of oidc-provider's record id (domain/oauth/records.ts)" },
  'OAuthRecord.grantId': { server: "oidc-provider's generated grant id" },
  'OAuthRecord.uid': { server: "oidc-provider's generated interaction uid" },
  'OAuthRecord.accountId': { server: 'a user uuid' },
};

/** The bounded columns of prisma/schema.prisma: `Model.field` → the column's bound in characters. */
function boundedColumns(): Map<string, number> {
  const schema = fs.readFileSync(path.join(ROOT, 'prisma/schema.prisma'), 'utf8');
  const out = new Map<string, number>();
  for (const [, model, body] of schema.matchAll(/model (\w+) \{([\s\S]*?)\n\}/g)) {
    const indexed = new Set(
      // btree indexes only: a GIN index (text search, trigrams) holds parts of a value, never the whole of it.
      [...body!.matchAll(/@@(?:index|unique|id)\(\[([^\]]*)\]([^\n]*)/g)]
        .filter((m) => !/type:\s*Gin/.test(m[2]!))
        .flatMap((m) => m[1]!.split(',').map((f) => f.trim().split('(')[0]!)),
    );
    for (const line of body!.split('\n').map((l) => l.trim())) {
      const m = /^(\w+)\s+String\??\s*(.*)$/.exec(line);
      if (!m || line.includes('@db.Uuid')) continue; // a uuid column takes only a uuid (path ids are checked by format)
      const [, field, rest] = m;
      const varchar = /@db\.VarChar\((\d+)\)/.exec(rest!);
      if (varchar) out.set(`${model}.${field}`, Number(varchar[1]));
      else if (/@unique|@id\b/.test(rest!) || indexed.has(field!)) out.set(`${model}.${field}`, BTREE_SAFE_CHARS);
    }
  }
  return out;
}

/** The schema object of a body field (dotted) or a header of an operation in the served document (internal ones: the route's own zod schema stands). */
function statedMaxLength(stated: Extract<Probe['stated'], { operationId: string }>): number | undefined {
  for (const ops of Object.values<any>(openapi.paths)) {
    for (const op of Object.values<any>(ops)) {
      if (op?.operationId !== stated.operationId) continue;
      if (stated.header) return op.parameters?.find((p: any) => p.in === 'header' && p.name === stated.header)?.schema?.maxLength;
      let schema = op.requestBody?.content?.['application/json']?.schema;
      for (const part of stated.body!.split('.')) {
        schema = schema?.$ref ? openapi.components.schemas[schema.$ref.split('/').pop()] : schema;
        schema =
          schema?.properties?.[part] ??
          schema?.anyOf
            ?.map((s: any) => (s.$ref ? openapi.components.schemas[s.$ref.split('/').pop()] : s))
            .find((s: any) => s.properties?.[part])?.properties?.[part];
      }
      return schema?.maxLength;
    }
  }
  return undefined;
}

test('every bounded column of the Prisma schema is accounted for: written by the server only, or reached by probed request fields', () => {
  const columns = boundedColumns();
  expect(columns.size).toBeGreaterThan(20);
  expect([...columns.keys()].filter((c) => !(c in COLUMN_SOURCES))).toEqual([]);
  expect(Object.keys(COLUMN_SOURCES).filter((c) => !columns.has(c))).toEqual([]);
  for (const [column, source] of Object.entries(COLUMN_SOURCES)) {
    if (!('probes' in source)) continue;
    for (const where of source.probes) {
      const probes = PROBES.filter((p) => `${p.where}: ${p.field}` === where);
      expect({ column, where, probes: probes.length > 0 }).toEqual({ column, where, probes: true });
      // The stated bound fits the column (a btree entry, a VARCHAR).
      for (const p of probes) expect({ column, where, fits: p.bound <= columns.get(column)! }).toEqual({ column, where, fits: true });
    }
  }
});

describe.each(PROBES)('$where: $field', (probe) => {
  it(`states the bound of ${probe.bound} characters`, async () => {
    if ('operationId' in probe.stated) {
      if (probe.stated.operationId === 'stripeEvents') return; // internal: not in the public document; its rule is in domain/billing/events.ts
      expect(statedMaxLength(probe.stated)).toBe(probe.bound);
    } else {
      const html = (await request(api.app).get(probe.stated.page)).text;
      const input = new RegExp(`<input[^>]*\\bname="${probe.stated.input}"[^>]*>`).exec(html)?.[0] ?? '';
      expect(input).toContain(`maxlength="${probe.bound}"`);
    }
  });

  it.each((probe.forms ?? FORMS).flatMap((form) => [form].map((f) => [f] as const)))(
    'enforces it before storing anything (%s): the bound passes, bound + 1 and 100,000 characters are refused naming the field',
    async (form) => {
      const at = await probe.send(probe.value(probe.bound, form));
      expect(at.status).toBeLessThan(500);
      if (at.status === 422 || at.status === 400) expect(at.names(probe.field)).toBe(true); // refused for another rule of the field, never another field
      for (const length of [probe.bound + 1, 100_000]) {
        const over = await probe.send(probe.value(length, form));
        if (probe.stated && 'header' in probe.stated && probe.stated.header && length === 100_000) {
          expect(over.status).toBe(431); // larger than the HTTP parser takes: refused before the request exists
          continue;
        }
        // A form whose body is larger than the route takes is refused for its size before it is read (413, body_limit_bytes).
        if (probe.bodyLimitBytes && Buffer.byteLength(encodeURIComponent(probe.value(length, form))) > probe.bodyLimitBytes) {
          expect(over.status).toBe(413);
          continue;
        }
        expect({ length, form, status: over.status }).toEqual({
          length,
          form,
          status: probe.where.includes('/ingress/stripe') ? 400 : 422,
        });
        expect({ length, form, names: over.names(probe.field) }).toEqual({ length, form, names: true });
      }
    },
  );
});
