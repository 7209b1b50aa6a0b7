import { listAuthorizations, revokeAuthorization } from '../../domain/oauth/tokens';
import { AuthorizationIdParams, OAuthAuthorizationListSchema } from '../../domain/schemas/oauth';
import { defineRoute, type AnyRoute } from '../http/route';

// The owner's account endpoints for agents authorised through OAuth (api/oauth/provider.ts).

const tags = ['Account'];

const listAuthorizationsRoute = defineRoute({
  method: 'get',
  path: '/app/oauth/authorizations',
  operationId: 'listOAuthAuthorizations',
  summary: 'List the agents authorised through OAuth, newest first (tokens never returned)',
  description:
    'One entry per consent: the client, the scopes the owner granted, and how many access and refresh tokens are still usable. Tokens are stored only as SHA-256 hashes.',
  tags,
  auth: { kind: 'required', scope: 'jobs:read' },
  responses: { 200: { description: 'Authorizations.', schema: OAuthAuthorizationListSchema } },
  errors: [],
  handler: async ({ principal, deps }) => ({
    status: 200,
    body: { authorizations: await listAuthorizations(deps.db, principal.workspaceId) },
  }),
});

const revokeAuthorizationRoute = defineRoute({
  method: 'delete',
  path: '/app/oauth/authorizations/:id',
  operationId: 'revokeOAuthAuthorization',
  summary: 'Revoke an agent: its authorization and every access and refresh token issued under it',
  description:
    'Refused at once on the API instance that revoked it and within 5 seconds on every other (the same bound as a revoked API key).',
  tags,
  auth: { kind: 'required', scope: null, sessionOnly: true },
  params: AuthorizationIdParams,
  responses: { 204: { description: 'Revoked.' } },
  errors: ['NOT_FOUND'],
  handler: async ({ principal, deps, params }) => {
    await revokeAuthorization(deps.db, principal.workspaceId, params.id);
    return { status: 204 };
  },
});

export const oauthRoutes: AnyRoute[] = [listAuthorizationsRoute, revokeAuthorizationRoute];
