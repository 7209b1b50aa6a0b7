import { ServiceError } from '../../../core/errors';
import { SEARCH_MODES, SearchQuery } from '../../../domain/schemas/search';
import { searchContext } from '../../wiring';
import { searchMoments } from '../../../domain/search/query';
import { parseInput } from '../../http/parse-input';
import { nonEmpty, send, str, type Pages } from '../kit';
import { page } from '../layout';
import { pageSession } from '../session';
import { searchBody } from '../views-search';

/** Search: GET /v1/search's moments for the signed-in workspace, each opening its transcript at its second. */
export function mountSearchPages(pages: Pages): void {
  const { deps } = pages;
  pages.get('/dashboard/search', async (req, res) => {
    const s = await pageSession(req, deps);
    const q = str(req.query.q) ?? '';
    const cursor = nonEmpty(req.query.cursor);
    const mode = nonEmpty(req.query.mode);
    let result: Awaited<ReturnType<typeof searchMoments>> | null = null;
    let refusal: string | null = null;
    if (q.trim() !== '') {
      try {
        const query = parseInput(SearchQuery, { q, ...(cursor ? { cursor } : {}), ...(mode ? { mode } : {}) }, 'query');
        result = await searchMoments(deps.db, searchContext(deps), s.principal.workspaceId, query);
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status >= 500) throw err;
        refusal = `${err.message}${err.detail ? ` (${err.detail})` : ''}`;
      }
    }
    send(
      res,
      refusal ? 422 : 200,
      page({
        title: 'Search transcripts',
        session: pages.shell(s, 'search', await pages.emailOf(s)),
        body: searchBody(q, result, refusal, {
          mode: result?.mode ?? SEARCH_MODES.find((m) => m === mode) ?? null,
          byMeaning: deps.embedder !== null,
        }),
      }),
    );
  });
}
