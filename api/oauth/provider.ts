import { createHmac, createPrivateKey } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import Provider, { errors as oidcErrors, interactionPolicy } from 'oidc-provider';
import { principalFromSession } from '../../domain/accounts/accounts';
import { safeEqual } from '../../domain/accounts/secrets';
import { SCOPES, type Scope } from '../../domain/accounts/principal';
import { guardedFetch } from '../../integrations/fetch';
import { oauthAdapterFactory } from '../../domain/oauth/records';
import type { AppDeps } from '../http/context';
import { clientAddress } from '../http/rate-limit';
import { SESSION_COOKIE } from '../http/auth';
import { PAGE_HEADERS } from '../dashboard/headers';
import { JSON_MEDIA_TYPES, jsonBodyParser } from '../http/json-body';
import { toServiceError } from '../http/middleware';
import { requestTargetProblem } from '../http/request-target';
import { assertStorableText } from '../http/storable-text';
import { consentPage, errorPage } from './pages';
import { OAUTH_PATHS, oauthResources } from './resources';

// OAuth 2.1 for agents (issue 14): the service is the authorization server of
// its own API and tool server, built on oidc-provider (panva/node-oidc-provider,
// OpenID-certified), which implements the protocol: authorization code with
// PKCE (S256 only), RFC 8414 metadata, Client ID Metadata Documents, dynamic
// client registration (RFC 7591), resource indicators (RFC 8707), refresh
// token rotation with reuse detection, revocation (RFC 7009). What is ours:
// storage (domain/oauth/records.ts, hashed), the consent page (the signed-in
// owner's cookie session), the outbound fetch (the SSRF guard), the protected
// resource metadata (RFC 9728) and the token principal on the API
// (domain/oauth/tokens.ts).

/** Access tokens live 10 minutes; refresh tokens 30 days, each use rotating them; an authorization (grant) 90 days. */
export const ACCESS_TOKEN_TTL_S = 600;
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
export const GRANT_TTL_S = 90 * 24 * 3600;

/** An Ed25519 signing key derived from SECRETS_KEY, so every API instance signs alike (ID tokens only; access tokens are opaque). */
function signingJwk(secretsKey: string) {
  const seed = createHmac('sha256', secretsKey).update('oauth-signing-key-v1').digest();
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const jwk = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  return {
    ...jwk,
    alg: 'EdDSA',
    use: 'sig',
    kid: createHmac('sha256', secretsKey).update('oauth-kid-v1').digest('base64url').slice(0, 16),
  };
}

function consentToken(secretsKey: string, uid: string, sessionId: string): string {
  return createHmac('sha256', secretsKey).update(`oauth-consent:${uid}:${sessionId}`).digest('base64url');
}

export function createOAuthProvider(deps: AppDeps) {
  const resources = oauthResources(deps.baseUrl);
  const policy = interactionPolicy.base();
  // The owner sees the consent page on every authorization (no silent re-use of an earlier grant).
  policy
    .get('consent')
    .checks.add(
      new interactionPolicy.Check('consent_every_time', 'the owner confirms every authorization', (ctx: any) =>
        ctx.oidc.result?.consent ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
      ),
    );
  const provider = new Provider(resources.api, {
    adapter: oauthAdapterFactory(deps.db),
    clients: [],
    // OAuth 2.1: the authorization code flow only (no implicit or hybrid response types), advertised as such.
    responseTypes: ['code'],
    // Redirect URIs: https, or http on a loopback address (a native agent's local listener); checked for
    // registered and for Client ID Metadata Document clients alike.
    extraClientMetadata: {
      properties: ['redirect_uris'],
      validator: (_ctx: unknown, key: string, value: unknown) => {
        if (key === 'redirect_uris') assertRedirectUris(value);
      },
    },
    // Public clients with PKCE only: no client secret exists, so none is stored.
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'EdDSA',
    },
    cookies: {
      keys: [createHmac('sha256', deps.secretsKey).update('oauth-cookies-v1').digest('base64url')],
    },
    jwks: { keys: [signingJwk(deps.secretsKey)] },
    // The API's scopes: what the resource server grants (getResourceServerInfo below), and what a
    // dynamically registered client may name in its `scope` metadata.
    scopes: ['openid', ...SCOPES],
    claims: { openid: ['sub'] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // A client revokes only its own tokens (all clients are public: the client_id names the caller).
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId: string }) =>
          token.clientId === client.clientId,
      },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', cacheDuration: { min: 30, max: 3600 } },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resources.mcp,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (!resources.accepted.includes(indicator)) throw new oidcErrors.InvalidTarget();
          return { scope: SCOPES.join(' '), audience: indicator, accessTokenTTL: ACCESS_TOKEN_TTL_S, accessTokenFormat: 'opaque' };
        },
      },
    },
    // Client ID Metadata Documents (and any other URL the library fetches) through the SSRF guard.
    fetch: guardedFetch({ policy: deps.addressPolicy, caForTests: deps.caForTests }),
    pkce: { required: () => true },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: GRANT_TTL_S,
      Interaction: 600,
      Session: 3600,
      IdToken: 600,
    },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // Only the grant the owner just made on the consent page: an earlier consent is never reused silently.
    loadExistingGrant: async (ctx: any) => {
      const grantId: string | undefined = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: async (_ctx: unknown, id: string) => {
      const user = await deps.db.user.findUnique({ where: { id }, select: { id: true } }).catch(() => null);
      return user ? { accountId: user.id, claims: async () => ({ sub: user.id }) } : undefined;
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${OAUTH_PATHS.consent}/${interaction.uid}`, policy },
    routes: {
      authorization: OAUTH_PATHS.authorization,
      token: OAUTH_PATHS.token,
      registration: OAUTH_PATHS.registration,
      revocation: OAUTH_PATHS.revocation,
      jwks: OAUTH_PATHS.jwks,
      pushed_authorization_request: '/oauth/par',
      end_session: '/oauth/end-session',
      introspection: '/oauth/introspect',
      userinfo: '/oauth/userinfo',
      code_verification: '/oauth/device',
      device_authorization: '/oauth/device/auth',
      backchannel_authentication: '/oauth/backchannel',
      challenge: '/oauth/challenge',
      credential: '/oauth/credential',
    },
    renderError: async (ctx: any, out: Record<string, string>) => {
      ctx.set(PAGE_HEADERS);
      ctx.type = 'html';
      ctx.body = errorPage(out.error ?? 'error', out.error_description ?? 'The authorization request failed.');
    },
  });
  // Koa reads the protocol, host and client address from X-Forwarded-* headers; oauthEdge() below sets
  // them itself on every request (PUBLIC_BASE_URL's protocol and host, the address TRUST_PROXY allows),
  // so no peer chooses the issuer's endpoints or its own address.
  provider.proxy = true;
  // Every server_error is logged (the client sees only "server_error"); the library swallows them otherwise.
  provider.on('server_error', (ctx: { path?: string; method?: string } | undefined, err: unknown) => {
    deps.logger.error({ err, path: ctx?.path, method: ctx?.method }, 'oauth server_error');
  });
  return { provider, resources };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** RFC 7591 redirect URIs as OAuth 2.1 allows them for our public clients: https, or http on a loopback address. */
export function assertRedirectUris(value: unknown): void {
  for (const uri of Array.isArray(value) ? value : []) {
    const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
    if (!parsed) continue; // the library's own checks name a malformed URI
    if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname))) continue;
    throw new oidcErrors.InvalidClientMetadata('redirect_uris must use https, or http on a loopback address (127.0.0.1, [::1], localhost)');
  }
}

/**
 * Mounts the authorization server, the metadata documents and the consent
 * page. Before the JSON body parser: the token, revocation and consent
 * endpoints take form bodies.
 */
export function mountOAuth(app: Express, deps: AppDeps): void {
  const { provider, resources } = createOAuthProvider(deps);
  const callback: (req: Request, res: Response) => void = provider.callback();
  const edge = oauthEdge(deps);
  app.use((req, res, next) => (isOAuthPath(req.path) ? edge(req, res, next) : next()));

  // RFC 9728: the protected-resource metadata of the API (root) and of the tool server (/mcp-suffixed path).
  const prm = (resource: string) => ({
    resource,
    authorization_servers: [resources.api],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: resource.endsWith('/mcp') ? 'Transcript Service tool server' : 'Transcript Service API',
    resource_documentation: `${resources.api}/docs`,
  });
  app.get(OAUTH_PATHS.prm, (_req, res) => void res.json(prm(resources.api)));
  app.get(`${OAUTH_PATHS.prm}/mcp`, (_req, res) => void res.json(prm(resources.mcp)));

  // RFC 8414: the same document the library serves as OpenID discovery, at the OAuth path
  // (also in the path-inserted form a client derives for an issuer with a path).
  app.get([OAUTH_PATHS.asMetadata, `${OAUTH_PATHS.asMetadata}/mcp`], (req, res) => {
    req.url = OAUTH_PATHS.oidcMetadata;
    callback(req, res);
  });

  app.get(`${OAUTH_PATHS.consent}/:uid`, (req, res) => void showConsent(provider, deps, req, res));
  app.post(`${OAUTH_PATHS.consent}/:uid`, express.urlencoded({ extended: false, limit: '16kb' }), (req, res) => {
    void decideConsent(provider, deps, resources.mcp, req, res);
  });

  // Dynamic client registration (RFC 7591) is open to anyone, as the MCP authorization spec expects, and each
  // registration stores a client: limited per client address (AppDeps.oauthRegistrationLimit).
  app.post(
    OAUTH_PATHS.registration,
    (req, _res, next) => void deps.oauthRegistrationLimit.consume(clientAddress(req)).then(() => next(), next),
  );

  app.use((req, res, next) => {
    if (req.path === OAUTH_PATHS.oidcMetadata || (req.path.startsWith('/oauth/') && !req.path.startsWith(`${OAUTH_PATHS.consent}/`))) {
      return callback(req, res);
    }
    next();
  });
}

const OAUTH_BODY_LIMIT_BYTES = 56 * 1024; // oidc-provider's own limit

/** The authorization server's paths: its endpoints, the consent page and its metadata documents. */
function isOAuthPath(p: string): boolean {
  return p.startsWith('/oauth/') || p.startsWith(OAUTH_PATHS.asMetadata) || p === OAUTH_PATHS.oidcMetadata;
}

/**
 * What every OAuth request passes first: the request target and the body are
 * read and checked here (valid UTF-8, no NUL or unpaired surrogate, nesting,
 * size), and a refusal is an OAuth error (`invalid_client_metadata` for a
 * registration, `invalid_request` otherwise; a page where a browser is
 * sent), before oidc-provider or the database sees a value it cannot handle.
 * The forwarded headers Koa reads are set here, never taken from the peer:
 * the protocol and host of PUBLIC_BASE_URL (so the issuer's endpoints are
 * always its own) and the client address TRUST_PROXY allows.
 */
function oauthEdge(deps: AppDeps) {
  const base = new URL(deps.baseUrl);
  const json = jsonBodyParser(OAUTH_BODY_LIMIT_BYTES);
  const form = express.urlencoded({ extended: false, limit: OAUTH_BODY_LIMIT_BYTES, parameterLimit: 100 });
  return (req: Request, res: Response, next: NextFunction) => {
    req.headers['x-forwarded-proto'] = base.protocol.slice(0, -1);
    req.headers['x-forwarded-host'] = base.host;
    req.headers['x-forwarded-for'] = clientAddress(req);
    const refuse = (err: unknown) => sendOAuthInputError(req, res, err, deps);
    const target = requestTargetProblem(req);
    if (target) return refuse(target);
    const parser = req.is(JSON_MEDIA_TYPES) ? json : req.is('application/x-www-form-urlencoded') ? form : null;
    if (!parser) return next();
    parser(req, res, (err?: unknown) => {
      if (err) return refuse(err);
      try {
        assertStorableText(req.body, 'body');
      } catch (e) {
        return refuse(e);
      }
      next();
    });
  };
}

function sendOAuthInputError(req: Request, res: Response, err: unknown, deps: AppDeps): void {
  const e = toServiceError(err, deps.logger, String(res.locals.requestId ?? ''));
  const status = e.status >= 500 ? 500 : e.code === 'PAYLOAD_TOO_LARGE' ? 413 : 400;
  const error = status === 500 ? 'server_error' : req.path === OAUTH_PATHS.registration ? 'invalid_client_metadata' : 'invalid_request';
  const description = status === 500 ? 'Something went wrong.' : `${e.detail ? `${e.detail}: ` : ''}${e.message}`;
  res.status(status).set('Cache-Control', 'no-store');
  // A browser is sent to the authorization endpoint and the consent page: it gets a page, an agent gets JSON.
  if (req.path === OAUTH_PATHS.authorization || req.path.startsWith(`${OAUTH_PATHS.consent}/`)) {
    res.set(PAGE_HEADERS).type('html').send(errorPage(error, description));
  } else {
    res.json({ error, error_description: description });
  }
}

interface InteractionDetails {
  uid: string;
  params: { client_id: string; scope?: string; resource?: string | string[]; redirect_uri?: string };
  prompt: { name: string };
}

async function signedInOwner(deps: AppDeps, req: Request) {
  const cookie = (req as Request & { cookies?: Record<string, string> }).cookies?.[SESSION_COOKIE];
  const principal = cookie ? await principalFromSession(deps.db, cookie) : null;
  if (!principal?.userId) return null;
  const user = await deps.db.user.findUnique({ where: { id: principal.userId }, select: { role: true, email: true } });
  return user ? { principal, role: user.role as string, email: user.email } : null;
}

function requested(details: InteractionDetails): Scope[] {
  const asked = (details.params.scope ?? '').split(' ').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
  return asked.length ? asked : [...SCOPES];
}

async function showConsent(provider: any, deps: AppDeps, req: Request, res: Response): Promise<void> {
  try {
    const details: InteractionDetails = await provider.interactionDetails(req, res);
    const client = await provider.Client.find(details.params.client_id);
    const owner = await signedInOwner(deps, req);
    res.set(PAGE_HEADERS);
    res.type('html').send(
      consentPage({
        action: `${OAUTH_PATHS.consent}/${details.uid}`,
        clientId: details.params.client_id,
        clientName: client?.clientName ?? null,
        redirectUri: details.params.redirect_uri ?? '',
        // The scopes the agent asked for (all when it named none), each ticked; the owner unticks what it must not get.
        scopes: requested(details),
        checked: requested(details),
        signedIn: owner ? { email: owner.email, isOwner: owner.role === 'owner' } : null,
        csrf: owner?.principal.sessionId ? consentToken(deps.secretsKey, details.uid, owner.principal.sessionId) : '',
      }),
    );
  } catch (err) {
    sendOAuthPageError(res, err);
  }
}

async function decideConsent(provider: any, deps: AppDeps, defaultResource: string, req: Request, res: Response): Promise<void> {
  try {
    const details: InteractionDetails = await provider.interactionDetails(req, res);
    const owner = await signedInOwner(deps, req);
    const body = (req.body ?? {}) as Record<string, string | string[] | undefined>;
    const sent = typeof body.csrf === 'string' ? body.csrf : '';
    if (!owner || !owner.principal.sessionId || !safeEqual(sent, consentToken(deps.secretsKey, details.uid, owner.principal.sessionId))) {
      res
        .status(403)
        .set(PAGE_HEADERS)
        .type('html')
        .send(errorPage('forbidden', 'Sign in as the workspace owner and confirm on this page.'));
      return;
    }
    if (owner.role !== 'owner') {
      res.status(403).set(PAGE_HEADERS).type('html').send(errorPage('forbidden', 'Only the workspace owner can authorise an agent.'));
      return;
    }
    if (body.decision !== 'allow') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The owner declined the authorization.' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const picked = ([] as string[]).concat(body.scope ?? []).filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
    if (picked.length === 0) {
      res.status(400).set(PAGE_HEADERS).type('html').send(errorPage('invalid_request', 'Pick at least one scope, or deny.'));
      return;
    }
    const asked = (details.params.scope ?? '').split(' ').filter(Boolean);
    const accountId = owner.principal.userId!;
    const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
    const declined = asked.filter((s) => s !== 'openid' && !picked.includes(s as Scope));
    const indicators = details.params.resource ? ([] as string[]).concat(details.params.resource) : [defaultResource];
    for (const indicator of indicators) {
      grant.addResourceScope(indicator, picked.join(' '));
      if (declined.length) grant.rejectResourceScope(indicator, declined.join(' '));
    }
    // The same choice at the authorization server level (the scopes are also its own, see `scopes`).
    grant.addOIDCScope([...(asked.includes('openid') ? ['openid'] : []), ...picked].join(' '));
    if (declined.length) grant.rejectOIDCScope(declined.join(' '));
    const grantId: string = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  } catch (err) {
    sendOAuthPageError(res, err);
  }
}

function sendOAuthPageError(res: Response, err: unknown): void {
  if (res.headersSent) return void res.end();
  const e = err as { status?: number; error?: string; error_description?: string; message?: string };
  res
    .status(e.status && e.status >= 400 && e.status < 500 ? e.status : 500)
    .set(PAGE_HEADERS)
    .type('html')
    .send(
      errorPage(
        e.error ?? 'server_error',
        e.status && e.status < 500 ? (e.error_description ?? e.message ?? 'Invalid request.') : 'Something went wrong.',
      ),
    );
}
