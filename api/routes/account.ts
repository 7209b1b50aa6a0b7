import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  SESSION_TTL_MS,
  signIn,
  signOut,
  requestSignUp,
  verifyEmail,
} from '../../domain/accounts/accounts';
import { disableWorkspace, getProfile, updateProfile } from '../../domain/accounts/profile';
import { clientAddress } from '../http/rate-limit';
import { assertSameOrigin } from '../http/same-origin';
import { SESSION_COOKIE } from '../http/auth';
import { defineRoute, type AnyRoute } from '../http/route';
import { z } from '../../domain/schemas/zod';
import {
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  CreateApiKeyRequest,
  DeleteAccountRequest,
  ProfileSchema,
  SessionSchema,
  SignInRequest,
  SignUpRequest,
  UpdateProfileRequest,
  VerifyEmailRequest,
} from '../../domain/schemas/account';
import { IdParams } from '../../domain/schemas/common';
import { page } from '../dashboard/layout';
import { PAGE_HEADERS } from '../dashboard/headers';
import { verifiedBody } from '../dashboard/views-account';

const tags = ['Account'];

export const signUpRoute = defineRoute({
  method: 'post',
  path: '/app/sign-up',
  operationId: 'signUp',
  summary: 'Create a trial workspace and its owner',
  tags,
  description:
    'Sends a verification e-mail (in development it lands in the dev outbox); most calls answer 403 EMAIL_UNVERIFIED until the address is verified. ' +
    'The answer is the same whether or not the address already has an account, so it cannot be used to learn which addresses do: ' +
    'an existing account is left unchanged and its owner is told by mail that someone tried to sign up with the address. ' +
    'A request from a page of another site (Origin, Sec-Fetch-Site) answers 403 FORBIDDEN.',
  auth: { kind: 'public' },
  body: SignUpRequest,
  responses: {
    202: {
      description:
        'A verification mail is on its way to the address (or, when it has an account, a notice to its owner); sign in once verified.',
      schema: z.object({ email_verification: z.literal('sent') }),
    },
  },
  errors: ['FORBIDDEN', 'RATE_LIMITED'],
  handler: async ({ body, deps, req }) => {
    assertSameOrigin(req, deps.baseUrl);
    await deps.signUpLimit.consume(clientAddress(req));
    await requestSignUp(deps.db, body, { baseUrl: deps.baseUrl });
    return { status: 202, body: { email_verification: 'sent' } };
  },
});

const verifyRoute = defineRoute({
  method: 'post',
  path: '/app/verify-email',
  operationId: 'verifyEmail',
  summary: 'Verify the account e-mail with the mailed token',
  tags,
  auth: { kind: 'public' },
  body: VerifyEmailRequest,
  responses: { 204: { description: 'Verified.' } },
  errors: [],
  handler: async ({ body, deps }) => {
    await verifyEmail(deps.db, body.token);
    return { status: 204 };
  },
});

const verifyPageRoute = defineRoute({
  method: 'get',
  path: '/app/verify-email',
  operationId: 'verifyEmailPage',
  summary: 'The verification link from the mail (a browser page)',
  tags,
  auth: { kind: 'public' },
  query: VerifyEmailRequest,
  responses: { 200: { description: 'An HTML page saying the address is verified.', contentTypes: ['text/html'] } },
  errors: [],
  handler: async ({ query, deps }) => {
    await verifyEmail(deps.db, query.token);
    return {
      status: 200,
      headers: PAGE_HEADERS,
      raw: { contentType: 'text/html; charset=utf-8', body: page({ title: 'E-mail verified', body: verifiedBody() }) },
    };
  },
});

export const signInRoute = defineRoute({
  method: 'post',
  path: '/app/session',
  operationId: 'signIn',
  summary: 'Sign in with e-mail and password (creates the browser session)',
  tags,
  description: `Sets the \`${SESSION_COOKIE}\` cookie (HttpOnly, SameSite=Lax, Secure outside local development). Cookie-authenticated writes must send the returned csrf_token as X-CSRF-Token. A request from a page of another site (Origin, Sec-Fetch-Site) answers 403 FORBIDDEN.`,
  auth: { kind: 'public' },
  body: SignInRequest,
  responses: { 200: { description: 'Signed in.', schema: SessionSchema } },
  errors: ['UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED'],
  handler: async ({ body, deps, req, res }) => {
    assertSameOrigin(req, deps.baseUrl);
    const { sessionToken, csrfToken, session, user } = await deps.signInThrottle.attempt(clientAddress(req), body.email, () =>
      signIn(deps.db, body.email, body.password),
    );
    res.cookie(SESSION_COOKIE, sessionToken, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.config.APP_ENV === 'production',
      path: '/',
      maxAge: SESSION_TTL_MS,
    });
    return {
      status: 200,
      body: {
        user: { id: user.id, email: user.email, display_name: user.displayName, email_verified: Boolean(user.emailVerifiedAt) },
        workspace_id: user.workspaceId,
        csrf_token: csrfToken,
        expires_at: session.expiresAt.toISOString(),
      },
    };
  },
});

export const signOutRoute = defineRoute({
  method: 'delete',
  path: '/app/session',
  operationId: 'signOut',
  summary: 'Sign out',
  tags,
  auth: { kind: 'required', scope: null, sessionOnly: true, allowUnverified: true },
  responses: { 204: { description: 'Signed out.' } },
  errors: [],
  handler: async ({ principal, deps, res }) => {
    await signOut(deps.db, principal.sessionId!);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    return { status: 204 };
  },
});

const listKeys = defineRoute({
  method: 'get',
  path: '/app/keys',
  operationId: 'listApiKeys',
  summary: 'List API keys, newest first (hashes never returned)',
  tags,
  auth: { kind: 'required', scope: 'jobs:read' },
  responses: { 200: { description: 'Keys.', schema: ApiKeyListSchema } },
  errors: [],
  handler: async ({ principal, deps }) => ({ status: 200, body: { keys: await listApiKeys(deps.db, principal.workspaceId) } }),
});

export const createKeyRoute = defineRoute({
  method: 'post',
  path: '/app/keys',
  operationId: 'createApiKey',
  summary: 'Create an API key (secret shown once)',
  tags,
  description: 'At most 10 active keys per workspace (409 CONFLICT naming `api_keys` beyond that).',
  auth: { kind: 'required', scope: null, sessionOnly: true },
  body: CreateApiKeyRequest,
  responses: { 201: { description: 'Key with its one-time secret.', schema: ApiKeyCreatedSchema } },
  errors: ['CONFLICT'],
  handler: async ({ principal, deps, body }) => ({ status: 201, body: await createApiKey(deps.db, principal.workspaceId, body) }),
});

export const revokeKeyRoute = defineRoute({
  method: 'delete',
  path: '/app/keys/:id',
  operationId: 'revokeApiKey',
  summary: 'Revoke an API key',
  tags,
  auth: { kind: 'required', scope: null, sessionOnly: true },
  params: IdParams,
  responses: { 204: { description: 'Revoked.' } },
  errors: ['NOT_FOUND'],
  handler: async ({ principal, deps, params }) => {
    await revokeApiKey(deps.db, principal.workspaceId, params.id);
    return { status: 204 };
  },
});

const profileGet = defineRoute({
  method: 'get',
  path: '/app/profile',
  operationId: 'getProfile',
  summary: 'Display name, plan and retention window',
  tags,
  auth: { kind: 'required', scope: null, allowUnverified: true },
  responses: { 200: { description: 'Profile.', schema: ProfileSchema } },
  errors: [],
  handler: async ({ principal, deps }) => ({ status: 200, body: await getProfile(deps.db, principal.workspaceId, principal.userId) }),
});

export const updateProfileRoute = defineRoute({
  method: 'patch',
  path: '/app/profile',
  operationId: 'updateProfile',
  summary: 'Update display name or retention window',
  tags,
  auth: { kind: 'required', scope: null, sessionOnly: true },
  body: UpdateProfileRequest,
  responses: { 200: { description: 'Updated profile.', schema: ProfileSchema } },
  errors: [],
  handler: async ({ principal, deps, body }) => ({
    status: 200,
    body: await updateProfile(deps.db, principal.workspaceId, principal.userId!, body),
  }),
});

export const deleteAccountRoute = defineRoute({
  method: 'delete',
  path: '/app/account',
  operationId: 'deleteAccount',
  summary: 'Disable the workspace and schedule its purge',
  tags,
  description:
    'Body `{"confirm":"DELETE"}`. Afterwards every request of the workspace fails with 403 FORBIDDEN; data is purged after 30 days.',
  auth: { kind: 'required', scope: null, sessionOnly: true, allowUnverified: true },
  body: DeleteAccountRequest,
  responses: { 204: { description: 'Workspace disabled; purge scheduled.' } },
  errors: [],
  handler: async ({ principal, deps, res }) => {
    await disableWorkspace(deps.db, principal.workspaceId);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    return { status: 204 };
  },
});

// Billing (quote, checkout, portal): api/routes/billing.ts.

export const accountRoutes: AnyRoute[] = [
  signUpRoute,
  verifyRoute,
  verifyPageRoute,
  signInRoute,
  signOutRoute,
  listKeys,
  createKeyRoute,
  revokeKeyRoute,
  profileGet,
  updateProfileRoute,
  deleteAccountRoute,
];
