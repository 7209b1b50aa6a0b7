import request from 'supertest';
import { API_KEY_CACHE_MS, API_KEY_PREFIX, MAX_API_KEYS } from '../domain/accounts/accounts';
import { sha256Hex } from '../domain/accounts/secrets';
import { bearer, createWorkspace, signInSession, startTestApi, uniqueEmail, type TestApi } from './support/harness';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('sign-up, verification and sign-in', () => {
  it('walks the whole flow through the development outbox', async () => {
    const email = uniqueEmail('flow');
    const password = 'a long enough password';
    const signUp = await request(api.app).post('/app/sign-up').send({ email, password, display_name: 'Ada' }).expect(202);
    expect(signUp.body.email_verification).toBe('sent');

    // Before verification: signed in, but most calls are refused with EMAIL_UNVERIFIED.
    const session = await signInSession(api.app, email, password);
    const blocked = await request(api.app).get('/app/keys').set('Cookie', session.cookie);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe('EMAIL_UNVERIFIED');
    const profile = await request(api.app).get('/app/profile').set('Cookie', session.cookie).expect(200);
    expect(profile.body).toMatchObject({ email, email_verified: false, plan: 'trial', retention_days: 7 });

    const outbox = await request(api.app).get('/app/dev/outbox').query({ to: email }).expect(200);
    const token = /token=([A-Za-z0-9_-]+)/.exec(outbox.body.emails[0].body)![1];
    await request(api.app).post('/app/verify-email').send({ token }).expect(204);
    // A used token cannot be used again.
    const again = await request(api.app).post('/app/verify-email').send({ token });
    expect(again.status).toBe(422);

    await request(api.app).get('/app/keys').set('Cookie', session.cookie).expect(200);
  });

  it('sets an HttpOnly, SameSite session cookie (not Secure in local dev)', async () => {
    const ws = await createWorkspace(api.deps);
    const res = await request(api.app).post('/app/session').send({ email: ws.email, password: ws.password }).expect(200);
    const cookie = (res.headers['set-cookie'] as unknown as string[])[0]!;
    expect(cookie).toMatch(/^ts_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(res.body.csrf_token).toBeTruthy();
  });

  it('marks the cookie Secure in production', async () => {
    const prod = await startTestApi({ APP_ENV: 'production', SECRETS_KEY: 'x'.repeat(40), PUBLIC_BASE_URL: 'https://api.example.test' });
    const ws = await createWorkspace(prod.deps);
    const res = await request(prod.app).post('/app/session').send({ email: ws.email, password: ws.password }).expect(200);
    expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(/Secure/);
    await prod.close();
  });

  it('refuses a wrong password with 401 and stores only a slow hash', async () => {
    const ws = await createWorkspace(api.deps);
    const res = await request(api.app).post('/app/session').send({ email: ws.email, password: 'wrong password!' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    const user = await api.deps.db.user.findUniqueOrThrow({ where: { email: ws.email } });
    expect(user.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(user.passwordHash).not.toContain(ws.password);
  });

  it('refuses sign-in after too many wrong passwords for one e-mail from one address, without locking the owner out elsewhere', async () => {
    const throttled = await startTestApi({ SIGN_IN_FAILURES_PER_15_MINUTES: '3', TRUST_PROXY: 'loopback' });
    try {
      const ws = await createWorkspace(throttled.deps);
      const other = await createWorkspace(throttled.deps);
      // The test client is a trusted proxy (TRUST_PROXY=loopback here): X-Forwarded-For is the client's address.
      const from = (address: string, email: string, password: string) =>
        request(throttled.app).post('/app/session').set('X-Forwarded-For', address).send({ email, password });
      for (let i = 0; i < 3; i++) expect((await from('198.51.100.7', ws.email, 'wrong password!')).status).toBe(401);
      // Past the limit even the right password is refused, before it is checked, until the window ends.
      const refused = await from('198.51.100.7', ws.email, ws.password);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: { code: 'RATE_LIMITED', details: { detail: 'sign_in_failures_per_15_minutes=3' } },
        request_id: expect.any(String),
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['set-cookie']).toBeUndefined();
      // The dashboard's sign-in form shares the count.
      const form = await request(throttled.app)
        .post('/app/sign-in')
        .set('X-Forwarded-For', '198.51.100.7')
        .type('form')
        .send({ email: ws.email, password: ws.password });
      expect(form.status).toBe(429);
      expect(Number(form.headers['retry-after'])).toBeGreaterThan(0);
      // The owner from another address, and another e-mail from this address, still sign in.
      expect((await from('198.51.100.8', ws.email, ws.password)).status).toBe(200);
      expect((await from('198.51.100.7', other.email, other.password)).status).toBe(200);
    } finally {
      await throttled.close();
    }
  });

  it('counts only consecutive failures: a successful sign-in clears them', async () => {
    const throttled = await startTestApi({ SIGN_IN_FAILURES_PER_15_MINUTES: '3', TRUST_PROXY: 'loopback' });
    try {
      const ws = await createWorkspace(throttled.deps);
      const from = (password: string) =>
        request(throttled.app).post('/app/session').set('X-Forwarded-For', '198.51.100.9').send({ email: ws.email, password });
      for (let round = 0; round < 3; round++) {
        expect((await from('wrong password!')).status).toBe(401);
        expect((await from('wrong password!')).status).toBe(401);
        expect((await from(ws.password)).status).toBe(200);
      }
    } finally {
      await throttled.close();
    }
  });

  it('limits sign-ups per client address and hour; nothing is stored past the limit; the form shares the count', async () => {
    const limited = await startTestApi({ SIGN_UPS_PER_HOUR: '2', TRUST_PROXY: 'loopback' });
    try {
      const signUpFrom = (address: string, email = uniqueEmail('limit')) =>
        request(limited.app)
          .post('/app/sign-up')
          .set('X-Forwarded-For', address)
          .send({ email, password: 'a long enough password', display_name: 'L' });
      expect((await signUpFrom('198.51.100.20')).status).toBe(202);
      expect((await signUpFrom('198.51.100.20')).status).toBe(202);
      const email = uniqueEmail('refused');
      const refused = await signUpFrom('198.51.100.20', email);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: { code: 'RATE_LIMITED', retryable: true, details: { detail: 'sign_ups_per_hour=2' } },
        request_id: expect.any(String),
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await limited.deps.db.user.count({ where: { email } })).toBe(0);
      // The dashboard's form counts against the same limit.
      const form = await request(limited.app)
        .post('/dashboard/sign-up')
        .set('X-Forwarded-For', '198.51.100.20')
        .type('form')
        .send({ email: uniqueEmail('form'), password: 'a long enough password', display_name: 'F' });
      expect(form.status).toBe(429);
      expect(form.text).toContain('per hour from one address');
      expect(Number(form.headers['retry-after'])).toBeGreaterThan(0);
      // Another address still signs up.
      expect((await signUpFrom('198.51.100.21')).status).toBe(202);
    } finally {
      await limited.close();
    }
  });

  it('answers a sign-up for a taken e-mail exactly as for a new one; the owner is told by mail and nothing changes', async () => {
    const ws = await createWorkspace(api.deps);
    const fresh = await request(api.app)
      .post('/app/sign-up')
      .send({ email: uniqueEmail('fresh'), password: 'another long password', display_name: 'B' });
    const taken = await request(api.app)
      .post('/app/sign-up')
      .send({ email: ws.email, password: 'another long password', display_name: 'B' });
    expect({ status: taken.status, body: taken.body }).toEqual({ status: fresh.status, body: fresh.body });
    expect(taken.status).toBe(202);
    // The owner's password and workspace are as they were; the address got a notice, not a verification link.
    const session = await signInSession(api.app, ws.email, ws.password);
    expect(session.csrf).toBeTruthy();
    expect(await api.deps.db.user.count({ where: { email: ws.email } })).toBe(1);
    const outbox = await request(api.app).get('/app/dev/outbox').query({ to: ws.email }).expect(200);
    expect(outbox.body.emails[0].subject).toBe('Someone tried to create an account with your address');
    expect(outbox.body.emails[0].body).not.toMatch(/token=/);
    // The dashboard's form answers the same page for both.
    const formFresh = await request(api.app)
      .post('/dashboard/sign-up')
      .type('form')
      .send({ email: uniqueEmail('form-fresh'), password: 'another long password', display_name: 'B' });
    const formTaken = await request(api.app)
      .post('/dashboard/sign-up')
      .type('form')
      .send({ email: ws.email, password: 'another long password', display_name: 'B' });
    expect(formTaken.status).toBe(formFresh.status);
    expect(formTaken.text.replace(ws.email, 'X')).toBe(formFresh.text.replace(/form-fresh-[^<"]+@example\.test/g, 'X'));
  });

  it('requires the CSRF token on cookie-authenticated writes', async () => {
    const ws = await createWorkspace(api.deps);
    const s = await signInSession(api.app, ws.email, ws.password);
    const without = await request(api.app)
      .post('/app/keys')
      .set('Cookie', s.cookie)
      .send({ name: 'x', scopes: ['jobs:read'] });
    expect(without.status).toBe(403);
    expect(without.body.error.details.detail).toBe('X-CSRF-Token');
    const wrong = await request(api.app)
      .post('/app/keys')
      .set('Cookie', s.cookie)
      .set('X-CSRF-Token', 'nope')
      .send({ name: 'x', scopes: ['jobs:read'] });
    expect(wrong.status).toBe(403);
    await request(api.app)
      .post('/app/keys')
      .set('Cookie', s.cookie)
      .set('X-CSRF-Token', s.csrf)
      .send({ name: 'x', scopes: ['jobs:read'] })
      .expect(201);
  });

  it('signs out: the cookie stops working', async () => {
    const ws = await createWorkspace(api.deps);
    const s = await signInSession(api.app, ws.email, ws.password);
    await request(api.app).delete('/app/session').set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).expect(204);
    const after = await request(api.app).get('/app/profile').set('Cookie', s.cookie);
    expect(after.status).toBe(401);
  });
});

describe('API keys', () => {
  it('shows the secret once, stores only its hash, lists newest first, revokes', async () => {
    const ws = await createWorkspace(api.deps);
    const s = await signInSession(api.app, ws.email, ws.password);
    const created = await request(api.app)
      .post('/app/keys')
      .set('Cookie', s.cookie)
      .set('X-CSRF-Token', s.csrf)
      .send({ name: 'ci', scopes: ['jobs:read', 'transcripts:read'] })
      .expect(201);
    const secret: string = created.body.secret;
    expect(secret.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(secret.length).toBeGreaterThan(40);

    const row = await api.deps.db.apiKey.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.secretHash).toBe(sha256Hex(secret));
    expect(JSON.stringify(row)).not.toContain(secret);

    const list = await request(api.app).get('/app/keys').set(bearer(secret)).expect(200);
    expect(list.body.keys[0].id).toBe(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(JSON.stringify(list.body)).not.toContain(row.secretHash);

    await request(api.app).get('/v1/usage').set(bearer(secret)).expect(200);
    await request(api.app).delete(`/app/keys/${created.body.id}`).set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).expect(204);
    const revoked = await request(api.app).get('/v1/usage').set(bearer(secret));
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('allows at most 10 active keys per workspace', async () => {
    const ws = await createWorkspace(api.deps); // already has 1 key
    const s = await signInSession(api.app, ws.email, ws.password);
    const results = await Promise.all(
      Array.from({ length: MAX_API_KEYS + 2 }, (_, i) =>
        request(api.app)
          .post('/app/keys')
          .set('Cookie', s.cookie)
          .set('X-CSRF-Token', s.csrf)
          .send({ name: `k${i}`, scopes: ['jobs:read'] }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(MAX_API_KEYS - 1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.body.error.details.detail).toBe('api_keys');
    expect(await api.deps.db.apiKey.count({ where: { workspaceId: ws.workspaceId, revokedAt: null } })).toBe(MAX_API_KEYS);
  });

  it('refuses key creation with an API key (owner session only)', async () => {
    const ws = await createWorkspace(api.deps);
    const res = await request(api.app)
      .post('/app/keys')
      .set(bearer(ws.apiKey))
      .send({ name: 'x', scopes: ['jobs:read'] });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });
});

describe('authentication and scope rules', () => {
  it('answers 401 without a key, with a malformed header and with an unknown key', async () => {
    for (const headers of [{}, { Authorization: 'Basic abc' }, { Authorization: 'Bearer tsk_nope' }]) {
      const res = await request(api.app).get('/v1/usage').set(headers);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }
  });

  it('answers 403 FORBIDDEN for a missing scope, naming it', async () => {
    const ws = await createWorkspace(api.deps, { scopes: ['transcripts:read'] });
    const res = await request(api.app).get('/app/keys').set(bearer(ws.apiKey));
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', details: { detail: 'scope:jobs:read' } });
  });

  it('answers 403 EMAIL_UNVERIFIED for a key of an unverified workspace', async () => {
    const ws = await createWorkspace(api.deps, { verified: false });
    const res = await request(api.app).get('/v1/usage').set(bearer(ws.apiKey));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('EMAIL_UNVERIFIED');
  });

  it('disables the workspace on account deletion: later requests get FORBIDDEN', async () => {
    const ws = await createWorkspace(api.deps);
    const s = await signInSession(api.app, ws.email, ws.password);
    const bad = await request(api.app)
      .delete('/app/account')
      .set('Cookie', s.cookie)
      .set('X-CSRF-Token', s.csrf)
      .send({ confirm: 'delete' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.detail).toBe('confirm');
    await request(api.app)
      .delete('/app/account')
      .set('Cookie', s.cookie)
      .set('X-CSRF-Token', s.csrf)
      .send({ confirm: 'DELETE' })
      .expect(204);
    const res = await request(api.app).get('/v1/usage').set(bearer(ws.apiKey));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    const w = await api.deps.db.workspace.findUniqueOrThrow({ where: { id: ws.workspaceId } });
    expect(w.status).toBe('disabled');
    expect(w.purgeAfter!.getTime()).toBeGreaterThan(Date.now());
  });

  it('limits the retention window to the plan', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'starter' });
    const s = await signInSession(api.app, ws.email, ws.password);
    const tooLong = await request(api.app)
      .patch('/app/profile')
      .set('Cookie', s.cookie)
      .set('X-CSRF-Token', s.csrf)
      .send({ retention_days: 90 });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.details.detail).toBe('retention_days');
    const ok = await request(api.app)
      .patch('/app/profile')
      .set('Cookie', s.cookie)
      .set('X-CSRF-Token', s.csrf)
      .send({ retention_days: 14, display_name: 'Grace' })
      .expect(200);
    expect(ok.body).toMatchObject({ retention_days: 14, display_name: 'Grace', plan: 'starter', max_retention_days: 30 });
  });

  it('quotes credits with the volume discount, and refuses the trial', async () => {
    const pro = await createWorkspace(api.deps, { plan: 'pro' });
    const q = await request(api.app).get('/app/billing/quote').query({ units: 10000 }).set(bearer(pro.apiKey)).expect(200);
    expect(q.body).toMatchObject({ units: 10000, unit_price_usd_per_1000: 7, discount_percent: 10, total_usd: 63 });
    const bad = await request(api.app).get('/app/billing/quote').query({ units: 1500 }).set(bearer(pro.apiKey));
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.detail).toBe('units');
    const trial = await createWorkspace(api.deps);
    const t = await request(api.app).get('/app/billing/quote').query({ units: 1000 }).set(bearer(trial.apiKey));
    expect(t.status).toBe(422);
  });

  // Checkout, portal and the 503 without a payment provider: test/billing.test.ts.
});

describe('the API-key cache of each API instance', () => {
  it('a key revoked on one instance stops working there at once and on another within API_KEY_CACHE_MS', async () => {
    const other = await startTestApi(); // a second API process: its own database client, its own cache
    try {
      const ws = await createWorkspace(api.deps, { plan: 'pro' });
      const session = await signInSession(api.app, ws.email, ws.password);
      const created = await request(api.app)
        .post('/app/keys')
        .set('Cookie', session.cookie)
        .set('X-CSRF-Token', session.csrf)
        .send({ name: 'short-lived', scopes: ['jobs:read'] })
        .expect(201);
      const key = created.body.secret as string;
      // Both instances have read (and cached) the key.
      await request(api.app).get('/v1/usage').set(bearer(key)).expect(200);
      await request(other.app).get('/v1/usage').set(bearer(key)).expect(200);
      await request(api.app)
        .delete(`/app/keys/${created.body.id}`)
        .set('Cookie', session.cookie)
        .set('X-CSRF-Token', session.csrf)
        .expect(204);
      const revokedAt = Date.now();
      expect((await request(api.app).get('/v1/usage').set(bearer(key))).status).toBe(401);
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < API_KEY_CACHE_MS + 3000) {
        status = (await request(other.app).get('/v1/usage').set(bearer(key))).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThanOrEqual(API_KEY_CACHE_MS + 1000);
    } finally {
      await other.close();
    }
  });
});
