import type { Express, NextFunction, Request, Response } from 'express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, type AuthInfo } from '@modelcontextprotocol/server';
import type { Principal } from '../../domain/accounts/principal';
import { ServiceError } from '../../domain/errors';
import type { AppDeps } from '../http/context';
import { sendError } from '../http/envelope';
import { toServiceError } from '../http/middleware';
import { authenticate } from '../http/route';
import { registerTools } from './tools';

// The agent tool server (issue 14, spec "Agent tool server"): the official MCP
// TypeScript SDK's stateless Streamable HTTP entry at /mcp. A fresh McpServer
// per request (createMcpHandler's factory), nothing held between requests, so
// it scales out with the API. 2026-07-28 clients and 2025-era clients (the
// SDK's stateless legacy fallback) are served by the same factory.
//
// Authentication: the principal comes from the same authenticate() the REST
// routes use (api/http/route.ts). Today that is an API key sent as
// `Authorization: Bearer <API_KEY>`; when authenticate() learns OAuth access
// tokens, /mcp accepts them unchanged, and `challenge()` below is the one place
// that adds `resource_metadata` to the 401 challenge. Each tool checks the
// scope its REST twin needs (api/mcp/tools.ts).

export const MCP_PATH = '/mcp';
export const MCP_SERVER_INFO = { name: 'transcript-service', version: '1.0.0' };

/** The principal travels to the per-request server as the SDK's pass-through AuthInfo. */
interface McpAuthInfo extends AuthInfo {
  extra: { principal: Principal };
}

/** `WWW-Authenticate` of a 401 from /mcp (RFC 6750); OAuth adds `resource_metadata` here. */
function challenge(error?: 'invalid_token'): string {
  return error ? `Bearer realm="mcp", error="${error}"` : 'Bearer realm="mcp"';
}

export function mountMcp(app: Express, deps: AppDeps): void {
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const server = new McpServer(MCP_SERVER_INFO, {
        instructions:
          'Transcripts of videos and media links. Start with get_video_transcript (captions, 1 credit; repeats free). ' +
          'Long work comes back with a job id: call wait_for_job, then get_transcript (paged by offset). ' +
          'AI transcription costs 2 credits per started minute: a tool never spends more than 2 without max_credits covering the quote it returns. ' +
          'Every failure carries error.code, error.message and error.retryable.',
      });
      const principal = (authInfo as McpAuthInfo | undefined)?.extra?.principal ?? null;
      registerTools(server, deps, principal);
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
      if (e.code === 'UNAUTHENTICATED') res.set('WWW-Authenticate', challenge('invalid_token'));
      return sendError(res, e);
    }
    if (!principal) {
      res.set('WWW-Authenticate', challenge());
      return sendError(
        res,
        new ServiceError('UNAUTHENTICATED', 'Authorization', { message: 'Send Authorization: Bearer <API_KEY> to use the tool server.' }),
      );
    }
    const auth: McpAuthInfo = {
      token: principal.apiKeyId ?? principal.sessionId ?? '',
      clientId: principal.apiKeyId ?? principal.workspaceId,
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
