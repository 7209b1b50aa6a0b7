import type { CallToolResult } from '@modelcontextprotocol/server';
import { toErrorObject } from '../../../core/errors';
import type { Principal } from '../../../domain/accounts/principal';
import { getVideoDiscovery, submitVideoDiscovery, waitForDiscovery } from '../../../domain/discoveries/submit';
import { VideoDiscoveryRequestSchema, type VideoDiscoveryRequest } from '../../../domain/schemas/discoveries';
import type { AppDeps } from '../../http/context';
import { parseInput } from '../../http/parse-input';
import { discoveryDeps } from '../../wiring';
import {
  count,
  Cursor,
  deadlineFor,
  DiscoveryOut,
  failure,
  freshKey,
  guarded,
  Limit,
  Next,
  ok,
  progress,
  requireScopes,
  textOf,
  Timeout,
  WAIT_STEP_SECONDS,
  z,
  type Ctx,
  toolWaitSignal,
  type ToolRegistrar,
} from './kit';

// The listing tools: one page per call, as POST /v1/video-discoveries + GET …?wait,
// and get_video_discovery (GET /v1/video-discoveries/{id}).

const DISCOVERY_OPERATION = 'POST /v1/video-discoveries';

export function registerDiscoveryTools(server: ToolRegistrar, deps: AppDeps): void {
  // Discoveries: one page per call, as POST /v1/video-discoveries + GET …?wait.
  // No key is needed from the caller: each call sends a fresh one, and the
  // discovery short cache (10 minutes, same workspace, same request) makes a
  // repeat free and joins a listing still running.
  const discoveryTool = <S extends z.ZodObject>(
    name: string,
    title: string,
    what: string,
    inputSchema: S,
    toRequest: (args: z.infer<S>) => Record<string, unknown>,
    paged: boolean,
  ) =>
    server.registerTool(
      name,
      {
        title,
        description:
          `${what} Cost: 1 credit per page (held, charged when it succeeds); the same request within 10 minutes is free. ` +
          `Waits up to ${'timeout_seconds' in inputSchema.shape ? 'timeout_seconds (default 20)' : '20 s'} for the page; a listing still running comes back with done false: call get_video_discovery with its id. ` +
          (paged ? 'Next page: call again with cursor = discovery.next_cursor (null on the last page). ' : '') +
          'Needs jobs:write.',
        inputSchema: inputSchema as z.ZodObject,
        outputSchema: z.object({ discovery: DiscoveryOut, done: z.boolean(), next: Next }),
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
      guarded(deps, async (raw: Record<string, unknown>, ctx, caller) => {
        const args = raw as z.infer<S>;
        const startedAt = Date.now();
        const p = requireScopes(caller, 'jobs:write');
        const body = parseInput(VideoDiscoveryRequestSchema, toRequest(args), 'body') as VideoDiscoveryRequest;
        const scope = freshKey(DISCOVERY_OPERATION);
        await count(deps, p, 'submit', scope);
        const { discovery: accepted } = await submitVideoDiscovery(discoveryDeps(deps), p, body, scope);
        const timeout = (args as { timeout_seconds?: number }).timeout_seconds ?? 20;
        return discoveryResult(await waitDiscovery(deps, p, accepted.id, deadlineFor(startedAt, timeout), ctx, startedAt), paged);
      }),
    );

  discoveryTool(
    'search_videosite',
    'Search videosite',
    'One page of videosite search results for query.',
    z.object({ query: z.string().describe('Search text.'), limit: Limit(50, 20), cursor: Cursor, timeout_seconds: Timeout(20) }),
    (a) => ({ kind: 'videosite_search', query: a.query, limit: a.limit, cursor: a.cursor }),
    true,
  );
  discoveryTool(
    'list_channel_videos',
    'List a channel’s videos',
    'One page of a videosite channel’s videos, newest first.',
    z.object({ channel: z.string().describe('@handle, channel id (UC…) or channel URL.'), limit: Limit(50, 20), cursor: Cursor }),
    (a) => ({ kind: 'videosite_channel_videos', channel: a.channel, limit: a.limit, cursor: a.cursor }),
    true,
  );
  discoveryTool(
    'get_channel_latest_videos',
    'A channel’s latest videos',
    'The newest videos of a videosite channel (the first page of list_channel_videos).',
    z.object({ channel: z.string().describe('@handle, channel id (UC…) or channel URL.'), limit: Limit(50, 20) }),
    (a) => ({ kind: 'videosite_channel_videos', channel: a.channel, limit: a.limit }),
    false,
  );
  discoveryTool(
    'search_channel_videos',
    'Search a channel',
    'One page of a videosite channel’s videos matching query.',
    z.object({
      channel: z.string().describe('@handle, channel id (UC…) or channel URL.'),
      query: z.string(),
      limit: Limit(50, 20),
      cursor: Cursor,
    }),
    (a) => ({ kind: 'videosite_channel_search', channel: a.channel, query: a.query, limit: a.limit, cursor: a.cursor }),
    true,
  );
  discoveryTool(
    'list_playlist_videos',
    'List a playlist',
    'One page of a videosite playlist’s videos in playlist order.',
    z.object({ playlist: z.string().describe('Playlist id or URL.'), limit: Limit(50, 20), cursor: Cursor }),
    (a) => ({ kind: 'videosite_playlist_videos', playlist: a.playlist, limit: a.limit, cursor: a.cursor }),
    true,
  );
  discoveryTool(
    'list_shortvideo_user_videos',
    'List a shortvideo profile',
    'A shortvideo profile’s latest videos (one page, no cursor); include_details adds likes, comments, shares, hashtags and caption languages per video.',
    z.object({ user: z.string().describe('@user or profile URL.'), limit: Limit(10, 10), include_details: z.boolean().optional() }),
    (a) => ({ kind: 'shortvideo_user_videos', user: a.user, limit: a.limit, include_details: a.include_details }),
    false,
  );

  server.registerTool(
    'get_video_discovery',
    {
      title: 'Read a video listing',
      description:
        'A video discovery by id (free), as GET /v1/video-discoveries/{id}; waits up to 20 s for one still running. Kept 24 hours. Needs jobs:read.',
      inputSchema: z.object({ id: z.uuid() }),
      outputSchema: z.object({ discovery: DiscoveryOut, done: z.boolean(), next: Next }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(deps, async (args, ctx, caller) => {
      const startedAt = Date.now();
      const p = requireScopes(caller, 'jobs:read');
      await count(deps, p, 'read');
      return discoveryResult(await waitDiscovery(deps, p, args.id, deadlineFor(startedAt, 20), ctx, startedAt), true);
    }),
  );
}

type DiscoveryView = Awaited<ReturnType<typeof getVideoDiscovery>>;

async function waitDiscovery(
  deps: AppDeps,
  p: Principal,
  id: string,
  deadline: number,
  ctx: Ctx,
  startedAt: number,
): Promise<DiscoveryView> {
  const report = progress(ctx, startedAt, Math.round((deadline - startedAt) / 1000));
  const read = () => getVideoDiscovery(deps.db, p.workspaceId, id);
  let d = await read();
  const signal = toolWaitSignal(deps, ctx);
  while (d.status !== 'succeeded' && d.status !== 'failed' && !signal.aborted) {
    const left = (deadline - Date.now()) / 1000;
    if (left < 0.2) break;
    await report(`discovery ${d.status}`);
    d = await waitForDiscovery(deps.wakeups, id, read, Math.min(WAIT_STEP_SECONDS, left), signal);
  }
  return d;
}

function discoveryResult(d: DiscoveryView, paged: boolean): CallToolResult {
  if (d.status === 'failed') return failure(d.error ?? toErrorObject('INTERNAL_ERROR'), { discovery: d });
  const done = d.status === 'succeeded';
  const next = !done
    ? `Still ${d.status}: call get_video_discovery with id ${d.id}.`
    : paged && d.next_cursor
      ? 'More: call the same tool again with cursor = discovery.next_cursor.'
      : null;
  const videos = d.videos.map((v) => ({ video_id: v.video_id, title: v.title, url: v.url, duration_s: v.duration_s }));
  return ok({ discovery: d, done, next }, `Discovery ${d.id} ${d.status}: ${videos.length} videos. ${next ?? ''} ${textOf(videos)}`);
}
