import { searchContext } from '../wiring';
import { searchMoments } from '../../domain/search/query';
import { SearchQuery, SearchResultSchema } from '../../domain/schemas/search';
import { defineRoute, type AnyRoute } from '../http/route';

const search = defineRoute({
  method: 'get',
  path: '/v1/search',
  operationId: 'searchTranscripts',
  summary: 'Search transcripts',
  tags: ['Transcripts'],
  description:
    "Moments where something was said, across this workspace's visible transcripts (published, not deleted, inside their retention window), best first. A moment is a window of consecutive segments of one speaker and language, about 10–30 s. Free of credits; rate-limited as a read. A GET with a query string: every filter fits one, and a search is a safe, repeatable read a link can hold.",
  auth: { kind: 'required', scope: 'transcripts:read' },
  rateLimit: 'read',
  query: SearchQuery,
  responses: { 200: { description: 'A page of moments (empty when nothing matches).', schema: SearchResultSchema } },
  errors: ['CAPABILITY_UNAVAILABLE'],
  handler: async ({ deps, principal, query }) => ({
    status: 200,
    body: await searchMoments(deps.db, searchContext(deps), principal.workspaceId, query),
  }),
});

export const searchRoutes: AnyRoute[] = [search];
