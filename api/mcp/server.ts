import type { Express, NextFunction, Request, Response } from 'express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, SUPPORTED_PROTOCOL_VERSIONS, type AuthInfo } from '@modelcontextprotocol/server';
import { JOB_BODY_LIMIT_BYTES } from '../../domain/schemas/jobs';
import type { Principal } from '../../domain/accounts/principal';
import { ServiceError } from '../../core/errors';
import type { AppDeps } from '../http/context';
import { sendError } from '../http/envelope';
import { toServiceError } from '../http/middleware';
import { authenticate } from '../http/auth';
import { bearerChallenge, oauthResources } from '../oauth/resources';
import { jsonBodyParser } from '../http/json-body';
import { registerToolDefinitions, toolDefinitions } from './tools';
import { registerTranscriptApp } from './app/transcript-app';

// The agent tool server (issue 14, spec "Agent tool server"): the official MCP
// TypeScript SDK's stateless Streamable HTTP entry at /mcp. A fresh McpServer
// per request (createMcpHandler's factory), nothing held between requests, so
// it scales out with the API. 2026-07-28 clients and 2025-era clients (the
// SDK's stateless legacy fallback) are served by the same factory.
//
// Authentication: the principal comes from the same authenticate() the REST
// routes use (api/http/auth.ts): an API key or an OAuth access token
// (api/oauth/provider.ts), both as `Authorization: Bearer …`. A 401 carries
// `WWW-Authenticate: Bearer … resource_metadata=…/.well-known/oauth-protected-resource/mcp`
// (RFC 9728) so an MCP client can discover the authorization server. Each tool
// checks the scope its REST twin needs (api/mcp/tools/).

export const MCP_PATH = '/mcp';
export const MCP_SERVER_INFO = { name: 'transcript-service', version: '1.0.0' };

/** The principal travels to the per-request server as the SDK's pass-through AuthInfo. */
interface McpAuthInfo extends AuthInfo {
  extra: { principal: Principal };
}

/** A JSON-RPC error answer of the transport (no request id is known yet). */
function sendJsonRpcError(res: Response, status: number, code: number, message: string, data?: Record<string, unknown>): void {
  // The request id in `data` (a JSON-RPC response has no other top-level members), and in X-Request-Id.
  res
    .status(status)
    .json({ jsonrpc: '2.0', id: null, error: { code, message, data: { ...data, request_id: String(res.locals.requestId ?? '') } } });
}

/** JSON-RPC error codes the transport answers with before the SDK sees a request. */
export const JSON_RPC = { parseError: -32700, invalidRequest: -32600, invalidParams: -32602, forbidden: -32000 } as const;

/**
 * The protocol revisions the SDK serves: the 2025-era ones it negotiates (SUPPORTED_PROTOCOL_VERSIONS) and the
 * 2026-07-28 revision of its modern entry (not exported by the package).
 */
export const KNOWN_PROTOCOL_VERSIONS: readonly string[] = [...SUPPORTED_PROTOCOL_VERSIONS, '2026-07-28'];

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * The MCP transport's DNS-rebinding rule: a request naming a foreign Host, or
 * sent by a page of a foreign Origin, is refused (403) before anything else,
 * credentials or not. Allowed: the service's own origin (PUBLIC_BASE_URL) and
 * MCP_ALLOWED_ORIGINS; hosts: PUBLIC_BASE_URL's, loopback names and MCP_ALLOWED_HOSTS.
 */
export function originPolicy(baseUrl: string, cfg: { MCP_ALLOWED_ORIGINS: string; MCP_ALLOWED_HOSTS: string }) {
  const list = (v: string) =>
    v
      .split(',')
      .map((x) => x.trim().toLowerCase())
      .filter(Boolean);
  const own = new URL(baseUrl);
  const origins = new Set([own.origin.toLowerCase(), ...list(cfg.MCP_ALLOWED_ORIGINS).map((o) => o.replace(/\/+$/, ''))]);
  const hosts = new Set([own.hostname.toLowerCase(), ...LOOPBACK_HOSTNAMES, ...list(cfg.MCP_ALLOWED_HOSTS)]);
  // A server on loopback is reached by pages of this machine under any loopback name (`localhost` for a server
  // whose URL says 127.0.0.1): those origins cannot be a rebinding attack, which needs a foreign name.
  const ownIsLoopback = LOOPBACK_HOSTNAMES.has(own.hostname.toLowerCase());
  const allowedOrigin = (origin: string) => {
    if (origins.has(origin.toLowerCase())) return true;
    const url = URL.parse(origin);
    return ownIsLoopback && url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTNAMES.has(url.hostname);
  };
  return (req: Request): string | null => {
    const host = (req.get('host') ?? '').toLowerCase();
    const hostname = URL.parse(`http://${host}`)?.hostname ?? '';
    if (!host || !hosts.has(hostname)) return `Host ${JSON.stringify(host.slice(0, 100))} is not this server.`;
    const origin = req.get('origin');
    if (origin !== undefined && !allowedOrigin(origin)) return `Origin ${JSON.stringify(origin.slice(0, 100))} is not allowed.`;
    return null;
  };
}

export function mountMcp(app: Express, deps: AppDeps): void {
  // The tools and their schemas once per process; a fresh McpServer per request only registers them.
  const tools = toolDefinitions(deps);
  const { mcp: ownResource } = oauthResources(deps.baseUrl);
  const foreign = originPolicy(deps.baseUrl, deps.config);
  const handler = createMcpHandler(
    () => {
      const server = new McpServer(MCP_SERVER_INFO, {
        instructions:
          'Transcripts of videos and media links. Start with get_video_transcript (captions, 1 credit; repeats free). ' +
          'Long work comes back with a job id: call wait_for_job, then get_transcript (paged by offset). ' +
          'AI transcription costs 2 credits per started minute: a tool never spends more than 2 without max_credits covering the quote it returns. ' +
          'Every failure carries error.code, error.message and error.retryable.',
      });
      // Each tool call reads its caller from the request's AuthInfo (api/mcp/tools/kit.ts guarded()).
      registerToolDefinitions(server, tools);
      // The transcript tools' MCP App (io.modelcontextprotocol/ui), for hosts that render apps.
      registerTranscriptApp(server, deps);
      return server;
    },
    { onerror: (err) => deps.logger.warn({ err }, 'mcp transport error') },
  );
  const node = toNodeHandler(handler, { onerror: (err) => deps.logger.error({ err }, 'mcp adapter error') });
  // The transcribe tool takes the same align_text as POST /v1/jobs, so /mcp reads bodies as large as that route does.
  const json = jsonBodyParser(Math.max(JOB_BODY_LIMIT_BYTES, deps.config.BODY_LIMIT_BYTES));

  /** The body as JSON-RPC expects it: a body that is not JSON is a parse error (-32700), one nested too deep too (422 naming the limit). */
  const parseBody = (req: Request, res: Response, next: NextFunction) => {
    json(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = toServiceError(err, deps.logger, String(res.locals.requestId ?? ''));
      // Text that is not JSON: 400 (the transport's answer to unreadable input); nesting past the limit: 422 naming it.
      if (e.code === 'INVALID_REQUEST' && e.detail === 'body') {
        return sendJsonRpcError(res, 400, JSON_RPC.parseError, 'Parse error: the body is not valid JSON.', {
          code: 'BAD_REQUEST',
          detail: 'body',
        });
      }
      if (e.code === 'INVALID_REQUEST' || e.code === 'BAD_REQUEST') {
        return sendJsonRpcError(res, e.status, JSON_RPC.parseError, `Parse error: ${e.message}`, { code: e.code, detail: e.detail });
      }
      // Too large, or an encoding that is not accepted: the HTTP status of REST, in JSON-RPC.
      sendJsonRpcError(res, e.status, JSON_RPC.invalidRequest, `Invalid request: ${e.message}`, { code: e.code, detail: e.detail });
    });
  };

  /**
   * What the SDK would refuse in words of its own, refused here in the catalogue's: a protocol version it does not
   * speak (it answered "_meta missing"), and a tools/call whose `arguments` is not an object (a multi-line dump).
   */
  const screen = (req: Request, res: Response, next: NextFunction) => {
    const version = req.get('mcp-protocol-version');
    if (version !== undefined && !KNOWN_PROTOCOL_VERSIONS.includes(version)) {
      return sendJsonRpcError(
        res,
        400,
        JSON_RPC.invalidRequest,
        `Unsupported protocol version ${JSON.stringify(version.slice(0, 40))}: this server speaks ${KNOWN_PROTOCOL_VERSIONS.join(', ')}.`,
        { code: 'INVALID_REQUEST', detail: 'MCP-Protocol-Version' },
      );
    }
    for (const message of Array.isArray(req.body) ? req.body : [req.body]) {
      const call = message as { method?: unknown; id?: unknown; params?: { arguments?: unknown } } | null;
      if (call?.method !== 'tools/call' || !call.params || typeof call.params !== 'object') continue;
      const args = call.params.arguments;
      if (args === undefined || (args !== null && typeof args === 'object' && !Array.isArray(args))) continue;
      const id = typeof call.id === 'string' || typeof call.id === 'number' ? call.id : null;
      return res.status(200).json({
        jsonrpc: '2.0',
        id,
        error: {
          code: JSON_RPC.invalidParams,
          message: "Invalid params: arguments must be an object of the tool's arguments.",
          data: { code: 'INVALID_REQUEST', detail: 'arguments', request_id: String(res.locals.requestId ?? '') },
        },
      });
    }
    next();
  };

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
    // An OAuth access token must have been issued for this tool server (RFC 8707 audience), not only for the REST API.
    if (principal.kind === 'oauth' && !principal.oauthAudiences?.includes(ownResource)) {
      res.set('WWW-Authenticate', bearerChallenge(deps.baseUrl, 'mcp', 'invalid_token'));
      return sendError(
        res,
        new ServiceError('UNAUTHENTICATED', 'Authorization', {
          message: `The access token was not issued for this tool server: request it with resource=${ownResource}.`,
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
    keepingTheClientsConnectionChoice(req, res);
    try {
      await node(req, res, req.body);
    } catch (err) {
      next(err);
    }
  };
  app.all(
    MCP_PATH,
    (req, res, next) => {
      const refusal = foreign(req);
      if (refusal) return sendJsonRpcError(res, 403, JSON_RPC.forbidden, `Forbidden: ${refusal}`);
      next();
    },
    parseBody,
    screen,
    (req, res, next) => void serve(req, res, next),
  );
}

/**
 * The SDK's 2025-era transport writes `Connection: keep-alive` on its event-stream answers, and Node then keeps the
 * socket open for its keep-alive timeout (about 6 s) even when the request said `Connection: close`. The client's
 * choice wins: that header is dropped from the SDK's answer to such a request, so Node closes once it is sent.
 */
function keepingTheClientsConnectionChoice(req: Request, res: Response): void {
  if (!/(^|,)\s*close\s*(,|$)/i.test(req.get('connection') ?? '')) return;
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: Parameters<typeof writeHead>) {
    for (const headers of args) {
      if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) continue;
      for (const name of Object.keys(headers)) if (name.toLowerCase() === 'connection') delete (headers as Record<string, unknown>)[name];
    }
    this.setHeader('Connection', 'close');
    return writeHead.apply(this, args);
  } as typeof writeHead;
}
