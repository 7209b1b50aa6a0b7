import type { PlanId } from '../../core/plans';

export const SCOPES = ['jobs:read', 'jobs:write', 'transcripts:read', 'uploads:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: an API key (scoped), an OAuth access token (the scopes the owner consented to) or a signed-in owner session (all scopes). */
export interface Principal {
  kind: 'api_key' | 'session' | 'oauth';
  workspaceId: string;
  plan: PlanId;
  scopes: readonly Scope[];
  emailVerified: boolean;
  apiKeyId?: string;
  userId?: string;
  sessionId?: string;
  /** OAuth access tokens: the authorization (grant) and the client they were issued to. */
  oauthGrantId?: string;
  oauthClientId?: string;
  /** OAuth access tokens: the resources (RFC 8707 audiences) the token was issued for; each surface checks its own. */
  oauthAudiences?: readonly string[];
}
