import { SCOPES } from '../accounts/principal';
import { DateTime } from './common';
import { z } from './zod';

// The owner's view of the agents authorised through OAuth (api/routes/oauth.ts).

export const OAuthAuthorizationSchema = z
  .object({
    id: z.string().openapi({ description: 'The authorization (grant) id; DELETE it to revoke the agent.' }),
    client_id: z
      .string()
      .openapi({ description: 'The OAuth client: an https URL (Client ID Metadata Document) or a registered client id.' }),
    client_name: z.string().nullable(),
    scopes: z.array(z.enum(SCOPES)),
    resources: z
      .array(z.string())
      .openapi({ description: 'Resource indicators (RFC 8707) the tokens are for: the API and/or its tool server.' }),
    created_at: DateTime,
    expires_at: DateTime.nullable(),
    active_access_tokens: z.number().int(),
    active_refresh_tokens: z.number().int(),
    last_token_issued_at: DateTime.nullable(),
  })
  .openapi('OAuthAuthorization');

export const OAuthAuthorizationListSchema = z
  .object({ authorizations: z.array(OAuthAuthorizationSchema) })
  .openapi('OAuthAuthorizationList');

export const AuthorizationIdParams = z.strictObject({ id: z.string().regex(/^[A-Za-z0-9_-]{10,128}$/, 'not an authorization id') });
