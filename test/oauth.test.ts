import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { auth, Client, StreamableHTTPClientTransport, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { sha256Hex } from '../domain/accounts/secrets';
import { disableWorkspace } from '../domain/accounts/profile';
import { purgeExpired, UNUSED_CLIENT_TTL_S } from '../domain/oauth/records';
import { createWorkspace, signInSession, startTestApi, type TestApi, type TestWorkspace } from './support/harness';
import pino from 'pino';
import request from 'supertest';
import { testTls } from './support/tls';

// Issue 14, OAuth 2.1 for agents, over real HTTP (the app listening on
// loopback): discovery (RFC 9728 → RFC 8414), client registration by Client ID
// Metadata Document (served by a loopback https host, fetched through the SSRF
// guard) and by dynamic registration (RFC 7591), authorization code with PKCE,
// the owner's consent page (cookie session), tokens, refresh rotation with
// reuse detection, revocation (RFC 7009 and the owner's account endpoint), an
// expired token, and the granted scopes on the REST API and on the tools.

let api: TestApi;
let server: HttpServer;
let base: string;
let ws: TestWorkspace;
let owner: { cookie: string; csrf: string };
let cimd: HttpsServer;
let cimdUrl: string;
const CALLBACK = 'http://127.0.0.1:9/callback';

async function freePort(): Promise<number> {
  const s = createHttpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const tls = testTls();
  api = await startTestApi({}, { baseUrl: base, caForTests: tls.cert });
  server = createHttpServer(api.app);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  ws = await createWorkspace(api.deps, { plan: 'pro' });
  owner = await signInSession(api.app, ws.email, ws.password);

  // The agent's Client ID Metadata Document, on a loopback https host (the test stack's SSRF policy allows loopback only).
  cimd = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    if (req.url !== '/oauth/client.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        client_id: cimdUrl,
        client_name: 'Test Agent (CIMD)',
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      }),
    );
  });
  await new Promise<void>((r) => cimd.listen(0, '127.0.0.1', r));
  cimdUrl = `https://127.0.0.1:${(cimd.address() as AddressInfo).port}/oauth/client.json`;
}, 60_000);

afterAll(async () => {
  cimd.closeAllConnections();
  cimd.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await api.close();
});

/** A tiny cookie jar: every cookie the server set, sent back on every request (paths ignored). */
class Jar {
  private cookies = new Map<string, string>();
  constructor(initial = '') {
    for (const c of initial.split('; ').filter(Boolean)) this.set(c);
  }
  set(cookie: string) {
    const [pair] = cookie.split(';');
    const i = pair!.indexOf('=');
    const [name, value] = [pair!.slice(0, i), pair!.slice(i + 1)];
    if (value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(new URL(url, base), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: this.header() },
    });
    for (const c of res.headers.getSetCookie()) this.set(c);
    return res;
  }
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const form = (fields: Record<string, string | string[]>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of ([] as string[]).concat(v)) p.append(k, x);
  return { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: p.toString() };
};

interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

/** The agent's authorization request (PKCE S256) in this jar's browser: the answer, which sends it to the consent page. */
async function startAuthorization(jar: Jar, clientId: string, opts: { scope: string; resource?: string }) {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('hex');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    scope: opts.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(opts.resource ? { resource: opts.resource } : {}),
  });
  const res = await jar.fetch(`/oauth/authorize?${q}`);
  return { res, consentPath: res.headers.get('location')!, verifier, state };
}

/** Authorization request → consent page (the owner's cookie session) → code → tokens. */
async function authorize(
  clientId: string,
  opts: { scope: string; grant?: string[]; resource?: string; decision?: 'allow' | 'deny'; session?: string } = { scope: '' },
): Promise<{ tokens: Tokens; consentHtml: string }> {
  const jar = new Jar(opts.session ?? owner.cookie);
  const start = await startAuthorization(jar, clientId, { scope: opts.scope, resource: opts.resource ?? `${base}/mcp` });
  const { consentPath, verifier, state } = start;
  let res = start.res;
  expect(res.status).toBe(303);
  expect(consentPath).toMatch(/^\/oauth\/consent\/[\w-]+$/);
  res = await jar.fetch(consentPath);
  expect(res.status).toBe(200);
  const consentHtml = await res.text();
  const csrf = /name="csrf" value="([^"]*)"/.exec(consentHtml)?.[1] ?? '';
  res = await jar.fetch(consentPath, form({ csrf, decision: opts.decision ?? 'allow', scope: opts.grant ?? opts.scope.split(' ') }));
  expect(res.status).toBe(303);
  res = await jar.fetch(res.headers.get('location')!);
  expect(res.status).toBe(303);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  expect(back.searchParams.get('state')).toBe(state);
  if (back.searchParams.get('error')) throw Object.assign(new Error(back.searchParams.get('error')!), { consentHtml });
  const code = back.searchParams.get('code')!;
  const token = await fetch(`${base}/oauth/token`, {
    ...form({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: clientId, code_verifier: verifier }),
  });
  const tokens = (await token.json()) as Tokens;
  expect(token.status).toBe(200);
  return { tokens, consentHtml };
}

const refresh = (clientId: string, refreshToken: string) =>
  fetch(`${base}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }));

const rest = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });

async function registerClient(): Promise<string> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Agent (DCR)',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }),
  });
  const body = (await res.json()) as { client_id: string; client_secret?: string };
  expect(res.status).toBe(201);
  expect(body.client_secret).toBeUndefined();
  return body.client_id;
}

describe('OAuth discovery', () => {
  it('a 401 from /mcp and from the REST API points to the protected-resource metadata, which names this authorization server', async () => {
    const mcp = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const restNone = await fetch(`${base}/v1/jobs`);
    expect(restNone.status).toBe(401);
    expect(restNone.headers.get('www-authenticate')).toBe(
      `Bearer realm="api", resource_metadata="${base}/.well-known/oauth-protected-resource"`,
    );
    const restWrong = await rest('not-a-valid-token-but-long-enough-to-look-like-one', '/v1/jobs');
    expect(restWrong.status).toBe(401);
    expect(restWrong.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);

    const prmMcp = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prmMcp).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base], bearer_methods_supported: ['header'] });
    expect(prmMcp.scopes_supported).toEqual(['jobs:read', 'jobs:write', 'transcripts:read', 'uploads:write']);
    const prmApi = (await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(prmApi).toMatchObject({ resource: base, authorization_servers: [base] });

    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: ['none'],
    });
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  });
});

describe('OAuth authorization code with PKCE', () => {
  it('a Client ID Metadata Document client: consent by the signed-in owner with fewer scopes than asked; the token carries only those, on REST and on the tools', async () => {
    const { tokens, consentHtml } = await authorize(cimdUrl, {
      scope: 'jobs:read jobs:write transcripts:read',
      grant: ['jobs:read', 'transcripts:read'],
    });
    expect(consentHtml).toContain('Test Agent (CIMD)');
    expect(consentHtml).toMatch(/name="scope" value="jobs:write"\s+checked/);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    expect(tokens.scope.split(' ').sort()).toEqual(['jobs:read', 'transcripts:read']);
    expect(tokens.refresh_token).toBeTruthy();

    // REST: the granted scope works, the declined one is refused.
    expect((await rest(tokens.access_token, '/v1/jobs')).status).toBe(200);
    const submit = await rest(tokens.access_token, '/v1/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `oauth-${randomBytes(6).toString('hex')}` },
      body: JSON.stringify({ url: 'https://www.videosite.test/watch?v=dQw4w9WgXcQ' }),
    });
    expect(submit.status).toBe(403);
    expect(((await submit.json()) as { error: { code: string; details: { detail: string } } }).error).toMatchObject({
      code: 'FORBIDDEN',
      details: { detail: 'scope:jobs:write' },
    });

    // Tools, both protocol generations: list_jobs (jobs:read) works, transcribe (jobs:write) is a FORBIDDEN tool error.
    for (const era of ['legacy', 'modern'] as const) {
      const client = new Client(
        { name: 'oauth-test', version: '1.0.0' },
        era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
        }),
      );
      expect(client.getProtocolEra()).toBe(era);
      const listed = (await client.callTool({ name: 'list_jobs', arguments: {} })) as { isError?: boolean };
      expect(listed.isError).toBeFalsy();
      const refused = (await client.callTool({
        name: 'transcribe',
        arguments: { url: 'https://www.videosite.test/watch?v=dQw4w9WgXcQ', idempotency_key: `oauth-${randomBytes(6).toString('hex')}` },
      })) as { isError?: boolean; structuredContent?: { error: { code: string; details?: { detail?: string } } } };
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent!.error).toMatchObject({ code: 'FORBIDDEN', details: { detail: 'scope:jobs:write' } });
      await client.close();
    }

    // Stored hashed: neither token appears in the table, their SHA-256 does.
    const rows = await api.deps.db.oAuthRecord.findMany({ where: { clientId: cimdUrl } });
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(tokens.access_token);
    expect(dump).not.toContain(tokens.refresh_token);
    expect(rows.map((r) => r.keyHash)).toEqual(expect.arrayContaining([sha256Hex(tokens.access_token), sha256Hex(tokens.refresh_token)]));
  });

  it('a dynamically registered client (RFC 7591): the same flow; PKCE is required and checked', async () => {
    const clientId = await registerClient();
    const { tokens } = await authorize(clientId, { scope: 'jobs:read' });
    expect(tokens.scope).toBe('jobs:read');
    expect((await rest(tokens.access_token, '/v1/usage')).status).toBe(200);

    // No code_challenge: refused before any consent.
    const jar = new Jar(owner.cookie);
    const noPkce = await jar.fetch(
      `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: 'jobs:read', state: 'x' })}`,
    );
    expect(noPkce.status).toBe(303);
    expect(new URL(noPkce.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    // "plain" is not offered: S256 only.
    const plain = await jar.fetch(
      `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: CALLBACK,
        scope: 'jobs:read',
        state: 'x',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'plain',
      })}`,
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('a wrong code_verifier gets no token; a denied consent returns access_denied', async () => {
    const clientId = await registerClient();
    const jar = new Jar(owner.cookie);
    const { consentPath } = await startAuthorization(jar, clientId, { scope: 'jobs:read' });
    const html = await (await jar.fetch(consentPath)).text();
    const csrf = /name="csrf" value="([^"]*)"/.exec(html)![1]!;
    let res = await jar.fetch(consentPath, form({ csrf, decision: 'allow', scope: 'jobs:read' }));
    res = await jar.fetch(res.headers.get('location')!);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const bad = await fetch(
      `${base}/oauth/token`,
      form({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: clientId, code_verifier: pkce().verifier }),
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_grant');

    await expect(authorize(clientId, { scope: 'jobs:read', decision: 'deny' })).rejects.toThrow('access_denied');
  });

  it('the consent page needs the signed-in owner: without a session it asks to sign in; a forged consent is refused', async () => {
    const clientId = await registerClient();
    const jar = new Jar('');
    const { consentPath } = await startAuthorization(jar, clientId, { scope: 'jobs:read' });
    const page = await (await jar.fetch(consentPath)).text();
    expect(page).toContain('Sign in as the workspace owner');
    const forged = await jar.fetch(consentPath, form({ csrf: 'x', decision: 'allow', scope: 'jobs:read' }));
    expect(forged.status).toBe(403);
    // The page's own sign-in form (the dashboard's, no script) brings the owner back to the consent.
    const next = /name="next" value="([^"]+)"/.exec(page)?.[1];
    expect(next).toBe(consentPath);
    const signedIn = await jar.fetch('/app/sign-in', form({ email: ws.email, password: ws.password, next: next! }));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(consentPath);
    expect(await (await jar.fetch(consentPath)).text()).toContain('What it may do');
    // Anywhere else than a page of this service is not a place to go next.
    const elsewhere = await new Jar('').fetch(
      '/app/sign-in',
      form({ email: ws.email, password: ws.password, next: 'https://evil.example/' }),
    );
    expect(elsewhere.headers.get('location')).toBe('/dashboard/usage');
  });

  it('a client_id URL the SSRF guard refuses (not loopback on the test stack) is an invalid client; nothing is fetched', async () => {
    const { res } = await startAuthorization(new Jar(owner.cookie), 'https://10.0.0.1/oauth/client.json', { scope: 'jobs:read' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid_client');
  });
});

describe('OAuth tokens', () => {
  it('refresh rotates the refresh token; presenting the old one again is refused and revokes the whole authorization', async () => {
    const { tokens } = await authorize(cimdUrl, { scope: 'jobs:read' });
    const r1 = await refresh(cimdUrl, tokens.refresh_token);
    const t1 = (await r1.json()) as Tokens;
    expect(r1.status).toBe(200);
    expect(t1.refresh_token).not.toBe(tokens.refresh_token);
    expect(t1.access_token).not.toBe(tokens.access_token);
    expect((await rest(t1.access_token, '/v1/jobs')).status).toBe(200);

    const reuse = await refresh(cimdUrl, tokens.refresh_token);
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant');
    // Reuse detection revoked the grant: the rotated refresh token is dead too, and so is a never-used access token of it.
    const after = await refresh(cimdUrl, t1.refresh_token);
    expect(after.status).toBe(400);
    const r2Tokens = await authorize(cimdUrl, { scope: 'jobs:read' });
    const grantRows = await api.deps.db.oAuthRecord.count({ where: { keyHash: sha256Hex(t1.access_token) } });
    expect(grantRows).toBe(0);
    expect((await rest(r2Tokens.tokens.access_token, '/v1/jobs')).status).toBe(200);
  });

  it('RFC 7009 revocation of an access token and of a refresh token', async () => {
    const { tokens } = await authorize(cimdUrl, { scope: 'jobs:read' });
    const revoke = await fetch(`${base}/oauth/revoke`, form({ token: tokens.access_token, client_id: cimdUrl }));
    expect(revoke.status).toBe(200);
    const refused = await rest(tokens.access_token, '/v1/jobs');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);

    const revokeRefresh = await fetch(
      `${base}/oauth/revoke`,
      form({ token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: cimdUrl }),
    );
    expect(revokeRefresh.status).toBe(200);
    expect((await refresh(cimdUrl, tokens.refresh_token)).status).toBe(400);
  });

  it('an expired access token is refused with 401 invalid_token on REST and on /mcp', async () => {
    const { tokens } = await authorize(cimdUrl, { scope: 'jobs:read' });
    // Ten minutes later, without waiting them: the stored expiry moved into the past.
    const past = new Date(Date.now() - 1000);
    const row = await api.deps.db.oAuthRecord.findFirstOrThrow({
      where: { model: 'AccessToken', keyHash: sha256Hex(tokens.access_token) },
    });
    await api.deps.db.oAuthRecord.update({
      where: { model_keyHash: { model: 'AccessToken', keyHash: row.keyHash } },
      data: { expiresAt: past, payload: { ...(row.payload as object), exp: Math.floor(past.getTime() / 1000) } },
    });
    const r = await rest(tokens.access_token, '/v1/jobs');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const m = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(m.status).toBe(401);
    expect(m.headers.get('www-authenticate')).toMatch(/resource_metadata=.*error="invalid_token"/);
    // The refresh token still gets a fresh access token.
    expect((await refresh(cimdUrl, tokens.refresh_token)).status).toBe(200);
  });

  it('the owner lists the authorised agents and revokes one: its tokens stop at once on this instance', async () => {
    const { tokens } = await authorize(cimdUrl, { scope: 'jobs:read transcripts:read' });
    expect((await rest(tokens.access_token, '/v1/jobs')).status).toBe(200); // now in this process's 5 s cache
    const list = await fetch(`${base}/app/oauth/authorizations`, { headers: { cookie: owner.cookie } });
    expect(list.status).toBe(200);
    const { authorizations } = (await list.json()) as {
      authorizations: { id: string; client_id: string; scopes: string[]; active_access_tokens: number; active_refresh_tokens: number }[];
    };
    const mine = authorizations.find((a) => a.active_access_tokens > 0 && a.scopes.join(' ') === 'jobs:read transcripts:read')!;
    expect(mine).toMatchObject({ client_id: cimdUrl, active_refresh_tokens: 1 });
    expect(JSON.stringify(authorizations)).not.toContain(tokens.access_token);

    // Owner session only (with CSRF); an access token cannot revoke.
    expect((await rest(tokens.access_token, `/app/oauth/authorizations/${mine.id}`, { method: 'DELETE' })).status).toBe(403);
    const del = await fetch(`${base}/app/oauth/authorizations/${mine.id}`, {
      method: 'DELETE',
      headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrf },
    });
    expect(del.status).toBe(204);
    expect((await rest(tokens.access_token, '/v1/jobs')).status).toBe(401);
    expect((await refresh(cimdUrl, tokens.refresh_token)).status).toBe(400);
    const again = await fetch(`${base}/app/oauth/authorizations/${mine.id}`, {
      method: 'DELETE',
      headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrf },
    });
    expect(again.status).toBe(404);
  });

  it('a workspace disabled on this instance refuses its cached tokens at once, as its keys (one principal cache)', async () => {
    const other = await createWorkspace(api.deps, { plan: 'pro' });
    const otherSession = await signInSession(api.app, other.email, other.password);
    const { tokens } = await authorize(cimdUrl, { scope: 'jobs:read', session: otherSession.cookie });
    expect((await rest(tokens.access_token, '/v1/jobs')).status).toBe(200); // now in this process's 5 s cache
    expect((await rest(other.apiKey, '/v1/jobs')).status).toBe(200);
    await disableWorkspace(api.deps.db, other.workspaceId);
    expect((await rest(tokens.access_token, '/v1/jobs')).status).toBe(403);
    expect((await rest(other.apiKey, '/v1/jobs')).status).toBe(403);
  });

  it("another workspace's token sees only its own workspace; another workspace cannot revoke this one's authorization", async () => {
    const other = await createWorkspace(api.deps, { plan: 'pro' });
    const otherSession = await signInSession(api.app, other.email, other.password);
    const { tokens } = await authorize(cimdUrl, { scope: 'jobs:read', session: otherSession.cookie });
    const usage = (await (await rest(tokens.access_token, '/app/profile')).json()) as { workspace_id?: string };
    expect(JSON.stringify(usage)).not.toContain(ws.workspaceId);
    const mine = (await (await fetch(`${base}/app/oauth/authorizations`, { headers: { cookie: owner.cookie } })).json()) as {
      authorizations: { id: string }[];
    };
    const theirs = (await (await fetch(`${base}/app/oauth/authorizations`, { headers: { cookie: otherSession.cookie } })).json()) as {
      authorizations: { id: string }[];
    };
    expect(theirs.authorizations).toHaveLength(1);
    expect(mine.authorizations.map((a) => a.id)).not.toContain(theirs.authorizations[0]!.id);
    const cross = await fetch(`${base}/app/oauth/authorizations/${theirs.authorizations[0]!.id}`, {
      method: 'DELETE',
      headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrf },
    });
    expect(cross.status).toBe(404);
  });
});

/** The SDK client's side of OAuth: what a desktop assistant or coding agent keeps between runs. */
class AgentAuth implements OAuthClientProvider {
  info: any;
  saved: any;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly clientMetadataUrl?: string) {}
  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata() {
    return {
      client_name: 'SDK agent (DCR)',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: unknown) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: unknown) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  discovery: any;
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

describe('OAuth 2.1 to the letter (issue 23)', () => {
  const registration = (extra: Record<string, unknown>) =>
    fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Strict',
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        ...extra,
      }),
    });

  it('registration takes https or loopback http redirect URIs only, and the code response type only', async () => {
    for (const uri of ['http://evil.example/cb', 'http://10.0.0.5/cb', 'com.example.agent:/cb', 'javascript:alert(1)']) {
      const res = await registration({ redirect_uris: [uri] });
      expect({ uri, status: res.status }).toEqual({ uri, status: 400 });
      expect(((await res.json()) as { error: string }).error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
    }
    for (const uri of ['https://agent.example/cb', 'http://127.0.0.1:8976/cb', 'http://localhost/cb', 'http://[::1]:9/cb']) {
      expect({ uri, status: (await registration({ redirect_uris: [uri] })).status }).toEqual({ uri, status: 201 });
    }
    for (const response_types of [['code id_token'], ['id_token'], ['code', 'code id_token']]) {
      const res = await registration({ response_types });
      expect({ response_types, status: res.status }).toEqual({ response_types, status: 400 });
    }
  });

  it('the metadata advertises the code flow only, with every endpoint on PUBLIC_BASE_URL whatever Host and X-Forwarded-* say', async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`, {
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.response_types_supported).toEqual(['code']);
    expect(meta.grant_types_supported).not.toContain('implicit');
    expect(meta.issuer).toBe(base);
    const urls = Object.entries(meta).filter(
      ([k, v]) => k.endsWith('_endpoint') || k === 'jwks_uri' || (typeof v === 'string' && /^https?:/.test(v)),
    );
    expect(urls.length).toBeGreaterThan(3);
    for (const [key, url] of urls) expect({ key, url: String(url).startsWith(`${base}/`) || url === base }).toEqual({ key, url: true });
    expect(JSON.stringify(meta)).not.toContain('evil.example');
  });

  it('NUL or an unpaired surrogate in registration or authorization parameters is a 400 OAuth error, never a server_error', async () => {
    for (const client_name of ['a\u0000b', 'a\ud800b']) {
      const res = await registration({ client_name });
      expect({ client_name, status: res.status }).toEqual({ client_name, status: 400 });
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client_metadata');
    }
    // The raw JSON escape of a lone surrogate (JSON.stringify above already sends it escaped; this is the wire form).
    const raw = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"client_name":"x\\udc00","redirect_uris":["${CALLBACK}"],"token_endpoint_auth_method":"none"}`,
    });
    expect(raw.status).toBe(400);
    const clientId = await registerClient();
    for (const [name, value] of [
      ['state', 'a\u0000b'],
      ['login_hint', 'x\u0000'],
    ]) {
      const { verifier: _v, challenge } = pkce();
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: CALLBACK,
        scope: 'jobs:read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'fine',
        [name!]: value!,
      });
      const res = await fetch(`${base}/oauth/authorize?${q}`, { redirect: 'manual' });
      expect({ name, status: res.status }).toEqual({ name, status: 400 });
      expect(await res.text()).toContain('invalid_request');
    }
    // A token request with NUL in client_id: an OAuth error, not a database fault.
    const token = await fetch(
      `${base}/oauth/token`,
      form({ grant_type: 'authorization_code', client_id: 'a\u0000', code: 'x', code_verifier: 'y' }),
    );
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('every server_error is logged (the client sees only server_error)', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    // A database fault where oidc-provider reads a client: the one kind of failure that is the server's.
    const db = new Proxy(api.deps.db, {
      get(target, prop, receiver) {
        if (prop !== 'oAuthRecord') return Reflect.get(target, prop, receiver);
        return new Proxy(target.oAuthRecord, {
          get: (records, method, r) =>
            method === 'findUnique' ? () => Promise.reject(new Error('simulated database fault')) : Reflect.get(records, method, r),
        });
      },
    });
    const faulty = await startTestApi({}, { baseUrl: base, logger, db });
    try {
      const res = await request(faulty.app)
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'authorization_code', client_id: 'some-client', code: 'x', code_verifier: 'y'.repeat(43) });
      expect(res.status).toBe(500);
      expect(res.body.error).toBe('server_error');
      expect(JSON.stringify(res.body)).not.toContain('simulated');
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'oauth server_error');
      expect(logged).toMatchObject({ level: 50, path: '/oauth/token', err: { message: 'simulated database fault' } });
    } finally {
      await faulty.close();
    }
  });

  it('the consent page, the error page and /docs send the dashboard headers and carry no inline script or style', async () => {
    const clientId = await registerClient();
    const { consentPath } = await startAuthorization(new Jar(owner.cookie), clientId, { scope: 'jobs:read' });
    const pages = [
      await new Jar(owner.cookie).fetch(consentPath),
      await fetch(`${base}/oauth/authorize?client_id=unknown&response_type=code`, { redirect: 'manual' }),
      await fetch(`${base}/oauth/consent/unknown-interaction`),
      await fetch(`${base}/docs`),
    ];
    for (const page of pages) {
      const text = await page.text();
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
      expect(text).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    }
    // /docs loads Swagger UI from this origin.
    expect((await fetch(`${base}/docs/swagger-ui-bundle.js`)).status).toBe(200);
    expect((await fetch(`${base}/docs/static/docs-init.js`)).status).toBe(200);
  });

  it('/mcp accepts only tokens issued for its own resource; a token for the REST API is refused there and works on REST', async () => {
    const { tokens } = await authorize(cimdUrl, { scope: 'jobs:read', resource: base });
    expect((await rest(tokens.access_token, '/v1/jobs')).status).toBe(200);
    const m = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(m.status).toBe(401);
    expect(m.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    // A token for the tool server itself works there.
    const mcpTokens = (await authorize(cimdUrl, { scope: 'jobs:read', resource: `${base}/mcp` })).tokens;
    const ok = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mcpTokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect([401, 403]).not.toContain(ok.status);
  });
});

describe("the MCP SDK client's own OAuth flow", () => {
  it.each([
    ['Client ID Metadata Document', true],
    ['dynamic registration', false],
  ])('%s: discovery from /mcp, PKCE, consent, tokens; then the tools with the SDK transport', async (_name, useCimd) => {
    const agent = new AgentAuth(useCimd ? cimdUrl : undefined);
    const serverUrl = `${base}/mcp`;
    expect(await auth(agent, { serverUrl, scope: 'jobs:read transcripts:read' })).toBe('REDIRECT');
    const url = agent.authorizationUrl!;
    expect(`${url.origin}${url.pathname}`).toBe(`${base}/oauth/authorize`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(serverUrl);
    expect(url.searchParams.get('client_id')).toBe(useCimd ? cimdUrl : agent.info.client_id);

    // The browser part: the signed-in owner allows it on the consent page.
    const jar = new Jar(owner.cookie);
    let res = await jar.fetch(url.toString());
    const consentPath = res.headers.get('location')!;
    const html = await (await jar.fetch(consentPath)).text();
    expect(html).toContain(useCimd ? 'Test Agent (CIMD)' : 'SDK agent (DCR)');
    const csrf = /name="csrf" value="([^"]*)"/.exec(html)![1]!;
    res = await jar.fetch(consentPath, form({ csrf, decision: 'allow', scope: ['jobs:read', 'transcripts:read'] }));
    res = await jar.fetch(res.headers.get('location')!);
    const back = new URL(res.headers.get('location')!);
    expect(
      await auth(agent, {
        serverUrl,
        authorizationCode: back.searchParams.get('code')!,
        iss: back.searchParams.get('iss') ?? undefined,
      }),
    ).toBe('AUTHORIZED');
    expect(agent.saved.refresh_token).toBeTruthy();

    const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: agent }));
    const listed = (await client.callTool({ name: 'list_jobs', arguments: {} })) as { isError?: boolean };
    expect(listed.isError).toBeFalsy();
    await client.close();
  });
});

describe('registered client lifetime', () => {
  const DAY_MS = 24 * 3600 * 1000;
  const clientRow = (clientId: string) =>
    api.deps.db.oAuthRecord.findUniqueOrThrow({ where: { model_keyHash: { model: 'Client', keyHash: sha256Hex(clientId) } } });
  const daysFromNow = (d: Date | null) => (d!.getTime() - Date.now()) / DAY_MS;

  it('an unused registration expires 30 days after it is made; a grant keeps the client 30 days past the grant', async () => {
    const clientId = await registerClient();
    expect(daysFromNow((await clientRow(clientId)).expiresAt)).toBeCloseTo(UNUSED_CLIENT_TTL_S / 86_400, 1);
    await authorize(clientId, { scope: 'jobs:read' });
    const grant = await api.deps.db.oAuthRecord.findFirstOrThrow({ where: { model: 'Grant', clientId }, orderBy: { createdAt: 'desc' } });
    const client = await clientRow(clientId);
    expect(client.expiresAt!.getTime() - grant.expiresAt!.getTime()).toBe(UNUSED_CLIENT_TTL_S * 1000);
    expect(daysFromNow(client.expiresAt)).toBeGreaterThan(UNUSED_CLIENT_TTL_S / 86_400 + 30);
  });

  it('an expired client is an unknown client: no authorization starts; the purge removes its row', async () => {
    const clientId = await registerClient();
    const key = { model_keyHash: { model: 'Client', keyHash: sha256Hex(clientId) } };
    await api.deps.db.oAuthRecord.update({ where: key, data: { expiresAt: new Date(Date.now() - 2 * DAY_MS) } });
    const start = await startAuthorization(new Jar(owner.cookie), clientId, { scope: 'jobs:read', resource: `${base}/mcp` });
    expect(start.res.status).toBe(400);
    expect(await start.res.text()).toContain('invalid_client');
    await purgeExpired(api.deps.db);
    expect(await api.deps.db.oAuthRecord.findUnique({ where: key })).toBeNull();
  });
});

describe('dynamic client registration limit', () => {
  const registration = {
    client_name: 'Test Agent (DCR limit)',
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };
  // An address of TEST-NET-3 (RFC 5737) of its own per call, so runs never share a counter.
  const someAddress = () => `203.0.113.${1 + Math.floor(Math.random() * 254)}`;
  const register = (app: TestApi, forwardedFor: string) =>
    request(app.app).post('/oauth/register').set('X-Forwarded-For', forwardedFor).send(registration);

  it('counts per client address; X-Forwarded-For does not change the address (by default no proxy is trusted)', async () => {
    const limited = await startTestApi({ OAUTH_REGISTRATIONS_PER_HOUR: '2' });
    try {
      expect((await register(limited, someAddress())).status).toBe(201);
      expect((await register(limited, someAddress())).status).toBe(201);
      // A third address claimed in the header: still the same peer, over the limit, nothing stored.
      const clients = await limited.deps.db.oAuthRecord.count({ where: { model: 'Client' } });
      const refused = await register(limited, someAddress());
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: { code: 'RATE_LIMITED', retryable: true, details: { detail: 'oauth_registrations_per_hour=2' } },
        request_id: expect.any(String),
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await limited.deps.db.oAuthRecord.count({ where: { model: 'Client' } })).toBe(clients);
    } finally {
      await limited.close();
    }
  });

  it('behind a proxy TRUST_PROXY names (here the loopback test client) each forwarded address has its own count', async () => {
    const limited = await startTestApi({ OAUTH_REGISTRATIONS_PER_HOUR: '3', TRUST_PROXY: 'loopback' });
    try {
      const agent = someAddress();
      for (let i = 0; i < 3; i++) expect((await register(limited, agent)).status).toBe(201);
      expect((await register(limited, agent)).status).toBe(429);
      let other = someAddress();
      while (other === agent) other = someAddress();
      expect((await register(limited, other)).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});
