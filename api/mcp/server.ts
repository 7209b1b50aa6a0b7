import type { Express, NextFunction, Request, Response } from 'express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, type AuthInfo } from '@modelcontextprotocol/server';
import type { Principal } from '../../domain/accounts/principal';
import { ServiceError } from '../../domain/errors';
import type { AppDeps } from '../http/context';
import { sendError } from '../http/envelope';
import { toServiceError } from '../http/middleware';
import { authenticate } from '../http/route';
import { bearerChallenge } from '../oauth/resources';
import { registerToolDefinitions, toolDefinitions } from './tools';

// The agent tool server (issue 14, spec "Agent tool server"): the official MCP
// TypeScript SDK's stateless Streamable HTTP entry at /mcp. A fresh McpServer
// per request (createMcpHandler's factory), nothing held between requests, so
// it scales out with the API. 2026-07-28 clients and 2025-era clients (the
// SDK's stateless legacy fallback) are served by the same factory.
//
// Authentication: the principal comes from the same authenticate() the REST
// routes use (api/http/route.ts): an API key or an OAuth access token
// (api/oauth/provider.ts), both as `Authorization: Bearer …`. A 401 carries
// `WWW-Authenticate: Bearer … resource_metadata=…/.well-known/oauth-protected-resource/mcp`
// (RFC 9728) so an MCP client can discover the authorization server. Each tool
// checks the scope its REST twin needs (api/mcp/tools.ts).

export const MCP_PATH = '/mcp';
export const MCP_SERVER_INFO = { name: 'transcript-service', version: '1.0.0' };

/** The principal travels to the per-request server as the SDK's pass-through AuthInfo. */
interface McpAuthInfo extends AuthInfo {
  extra: { principal: Principal };
}

export function mountMcp(app: Express, deps: AppDeps): void {
  // The tools and their schemas once per process; a fresh McpServer per request only registers them.
  const tools = toolDefinitions(deps);
  const handler = createMcpHandler(
    () => {
      const server = new McpServer(MCP_SERVER_INFO, {
        instructions:
          'Transcripts of videos and media links. Start with get_video_transcript (captions, 1 credit; repeats free). ' +
          'Long work comes back with a job id: call wait_for_job, then get_transcript (paged by offset). ' +
          'AI transcription costs 2 credits per started minute: a tool never spends more than 2 without max_credits covering the quote it returns. ' +
          'Every failure carries error.code, error.message and error.retryable.',
      });
      // Each tool call reads its caller from the request's AuthInfo (api/mcp/tools.ts guarded()).
      registerToolDefinitions(server, tools);
      return server;
    },
    { onerror: (err) => deps.logger.warn({ err }, 'mcp transport error') },
  );
  const node = toNodeHandler(handler, { onerror: (err) => deps.logger.error({ err }, 'mcp adapter error') });

  const serve = async (req: Request, res: Response, next: NextFunction) => {
    let principal: Principal | null;
    try {
      // Bearer credentials only: a browser session cookie is not an agent credential.
      principal = req.get('authorization') ? await authenticate(req, deps) : null;
    } catch (err) {
      const e = toServiceError(err, deps.logger, String(res.locals.requestId ?? ''));
      if (e.code === 'UNAUTHENTICATED') res.set('WWW-Authenticate', bearerChallenge(deps.baseUrl, 'mcp', 'invalid_token'));
      return sendError(res, e);
    }
    if (!principal) {
      res.set('WWW-Authenticate', bearerChallenge(deps.baseUrl, 'mcp'));
      return sendError(
        res,
        new ServiceError('UNAUTHENTICATED', 'Authorization', {
          message: 'Send Authorization: Bearer <API_KEY>, or an OAuth access token (see the resource_metadata of WWW-Authenticate).',
        }),
      );
    }
    const auth: McpAuthInfo = {
      token: principal.apiKeyId ?? principal.oauthGrantId ?? principal.sessionId ?? '',
      clientId: principal.apiKeyId ?? principal.oauthClientId ?? principal.workspaceId,
      scopes: [...principal.scopes],
      extra: { principal },
    };
    (req as Request & { auth?: AuthInfo }).auth = auth;
    try {
      await node(req, res, req.body);
    } catch (err) {
      next(err);
    }
  };
  app.all(MCP_PATH, (req, res, next) => void serve(req, res, next));
}
