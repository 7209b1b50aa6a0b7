// Where the OAuth server and the protected-resource metadata live, and the
// 401 challenge that points to them: light, so the request pipeline
// (api/http/auth.ts) and the tool server use it without loading the OAuth
// server (api/oauth/provider.ts).

export const OAUTH_PATHS = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  consent: '/oauth/consent',
  asMetadata: '/.well-known/oauth-authorization-server',
  oidcMetadata: '/.well-known/openid-configuration',
  prm: '/.well-known/oauth-protected-resource',
} as const;

/**
 * The resources (RFC 8707) tokens are issued for: the whole API, and its tool
 * server. The REST API accepts tokens for either (the tool server is a front
 * of the same API, with the same scopes); the tool server (/mcp) accepts only
 * tokens issued for its own canonical URL, as the MCP authorization
 * specification requires (api/mcp/server.ts).
 */
export function oauthResources(baseUrl: string): { api: string; mcp: string; accepted: string[] } {
  const api = baseUrl.replace(/\/+$/, '');
  return { api, mcp: `${api}/mcp`, accepted: [api, `${api}/mcp`] };
}

/** `WWW-Authenticate` of a 401: RFC 6750 plus the RFC 9728 pointer to the protected-resource metadata. */
export function bearerChallenge(baseUrl: string, where: 'api' | 'mcp', error?: 'invalid_token'): string {
  const { api } = oauthResources(baseUrl);
  const metadata = `${api}${OAUTH_PATHS.prm}${where === 'mcp' ? '/mcp' : ''}`;
  return `Bearer realm="${where}", resource_metadata="${metadata}"${error ? `, error="${error}"` : ''}`;
}
