import { searchContext } from '../../wiring';
import { searchMoments, withNeighbours } from '../../../domain/search/query';
import { MAX_SEARCH_PAGE, MomentSchema, SEARCH_MODES, SearchQuery } from '../../../domain/schemas/search';
import { PLATFORMS } from '../../../domain/schemas/jobs';
import { ServiceError } from '../../../core/errors';
import type { AppDeps } from '../../http/context';
import { parseInput } from '../../http/parse-input';
import { countedRead, guarded, ok, requireScopes, z, type ToolRegistrar } from './kit';

// search_transcripts: where something was said across the workspace's transcripts (GET /v1/search), each
// moment with the words around it, so an agent finds the sentence without reading whole transcripts.

/** GET /v1/search's moment, with the text of the moments before and after it. */
const MomentOut = MomentSchema.extend({ before: z.string().nullable(), after: z.string().nullable() });

/** The tool's arguments as GET /v1/search reads them; a refusal names the tool's own argument (`query`, not `q`). */
function searchRequest(query: string, filters: Record<string, unknown>) {
  try {
    return parseInput(SearchQuery, { q: query, ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)) }, 'body');
  } catch (err) {
    if (err instanceof ServiceError && err.detail === 'q') throw new ServiceError(err.code, 'query', { message: err.message });
    throw err;
  }
}

export function registerSearchTools(server: ToolRegistrar, deps: AppDeps): void {
  server.registerTool(
    'search_transcripts',
    {
      title: 'Search transcripts',
      description:
        "Finds where something was said across this workspace's transcripts (free), as GET /v1/search: moments of about 10–30 s, best first, each with the text before and after it, its start and end seconds, speaker, language and a link that opens the media at that second. " +
        'By default it matches both the words and their meaning (a question in one language finds a moment said in another); mode keyword for the words only, semantic for meaning only. ' +
        'Keyword syntax: words match in any form ("talks" finds "talking"), accents folded; "a phrase" in double quotes; word* for a prefix; -word to exclude; or between alternatives. ' +
        'Then get_transcript with transcript_id for the whole transcript. Pass next_cursor as cursor for more. Needs transcripts:read.',
      inputSchema: z.object({
        query: z.string().describe('What was said, or what it was about (at most 500 characters).'),
        mode: z
          .enum(SEARCH_MODES)
          .optional()
          .describe('hybrid (words and meaning; the default where the deployment has the embedding model), keyword, or semantic.'),
        language: z.string().optional().describe('Only moments in this language (BCP 47; pt also matches pt-BR).'),
        platform: z.enum(PLATFORMS).optional(),
        source_id: z.string().optional().describe("Only this video or upload (a transcript's source.media_id)."),
        speaker: z.string().optional().describe('Only this speaker (A, B, …) of transcripts with speaker labels.'),
        limit: z.number().int().min(1).max(MAX_SEARCH_PAGE).optional().describe(`Moments per page, 1 to ${MAX_SEARCH_PAGE} (default 10).`),
        cursor: z.string().optional().describe('next_cursor of the previous page (same query).'),
      }),
      outputSchema: z.object({ mode: z.enum(SEARCH_MODES), moments: z.array(MomentOut), next_cursor: z.string().nullable() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(deps, async (args, _ctx, caller) => {
      const p = requireScopes(caller, 'transcripts:read');
      const { query, ...filters } = args;
      const req = searchRequest(query, filters);
      const result = await countedRead(deps, p, async () => {
        const page = await searchMoments(deps.db, searchContext(deps), p.workspaceId, req);
        return { mode: page.mode, moments: await withNeighbours(deps.db, page), next_cursor: page.next_cursor };
      });
      const lines = result.moments.map(
        (m) =>
          `[${m.source.title ?? m.source.media_id} ${Math.floor(m.start)}–${Math.ceil(m.end)} s${m.speaker ? `, ${m.speaker}` : ''}; transcript ${m.transcript_id}] …${m.before ? `${m.before} ` : ''}«${m.text}»${m.after ? ` ${m.after}` : ''}…`,
      );
      return ok(
        result,
        `${result.moments.length} moment(s)${result.next_cursor ? '; more with cursor = next_cursor' : ''}.${lines.length ? `\n${lines.join('\n')}` : ''}`,
      );
    }),
  );
}
