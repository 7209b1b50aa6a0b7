import type { PlanId } from '../plans';

export const SCOPES = ['jobs:read', 'jobs:write', 'transcripts:read', 'uploads:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: an API key (scoped) or a signed-in owner session (all scopes). */
export interface Principal {
  kind: 'api_key' | 'session';
  workspaceId: string;
  plan: PlanId;
  scopes: readonly Scope[];
  emailVerified: boolean;
  apiKeyId?: string;
  userId?: string;
  sessionId?: string;
}
