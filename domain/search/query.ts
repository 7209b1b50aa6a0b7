import { createHash } from 'node:crypto';
import { Prisma } from '../../prisma/generated/client';
import { ServiceError } from '../../core/errors';
import { escapeHtml } from '../../core/text';
import { signPayload, verifyPayload } from '../accounts/secrets';
import type { Db } from '../db';
import { signedMediaLink } from '../transcripts/media';
import { videositeCanonicalUrl } from '../../integrations/platforms/links';
import { MAX_SEARCH_DEPTH, type SearchRequest, type SearchResultView } from '../schemas/search';
import { ACCENTED_CONFIG, SEARCH_CONFIGS } from './moments';

/** The marks ts_headline puts around a matched word: private-use characters no transcript holds. */
const MARK_START = '\uE000';
const MARK_END = '\uE001';

/**
 * The query as text search reads it: the words, phrases, `or` and `-word` for websearch_to_tsquery, and the
 * `word*` prefixes apart (websearch_to_tsquery has no prefix syntax), each reduced to its letters and digits so
 * it is a plain lexeme in to_tsquery. `plain`: the words alone, for the languages matched by characters.
 */
export function parseSearchQuery(q: string): { websearch: string; prefixes: string[]; plain: string[] } {
  const prefixes: string[] = [];
  const websearch = q
    .replace(/(^|\s)([\p{L}\p{N}][\p{L}\p{N}'’-]*)\*(?=\s|$)/gu, (_m, lead: string, word: string) => {
      const lexeme = word.replace(/[^\p{L}\p{N}]/gu, '');
      if (lexeme) prefixes.push(lexeme);
      return lead;
    })
    .trim();
  const plain = q
    .replace(/(^|\s)-\S+/g, ' ')
    .split(/[\s"*]+/)
    .filter((w) => w && w.toLowerCase() !== 'or');
  return { websearch, prefixes, plain };
}

interface Row {
  transcript_id: string;
  seq: number;
  job_id: string;
  platform: SearchResultView['moments'][number]['source']['platform'];
  media_id: string;
  title: string | null;
  canonical_url: string | null;
  start: number;
  end: number;
  text: string;
  marked: string;
  speaker: string | null;
  language: string | null;
  score: number;
}

interface Cursor {
  o: number; // offset
  h: string; // the query it belongs to
}

/** `marked` (text with MARK_START/MARK_END around matches) as an HTML fragment with <mark>. */
function highlighted(marked: string): string {
  return escapeHtml(marked).replaceAll(MARK_START, '<mark>').replaceAll(MARK_END, '</mark>');
}

/** The words of `terms` marked in `text`, case-insensitively (the languages matched by characters). */
function markTerms(text: string, terms: string[]): string {
  if (terms.length === 0) return text;
  const pattern = new RegExp(terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'giu');
  return text.replace(pattern, (m) => `${MARK_START}${m}${MARK_END}`);
}

/**
 * GET /v1/search, mode keyword: the workspace's visible transcripts' moments that match, best first. Each
 * moment's words are matched with its own language's configuration (the query read once per configuration),
 * the languages written without spaces by their characters (trigram-indexed ILIKE).
 */
export async function searchMoments(
  db: Db,
  keys: { secretsKey: string; baseUrl: string },
  workspaceId: string,
  req: SearchRequest,
): Promise<SearchResultView> {
  if (req.mode !== 'keyword')
    throw new ServiceError('CAPABILITY_UNAVAILABLE', 'mode', {
      message: 'Search by meaning (semantic, hybrid) is not in service yet; use mode keyword.',
    });
  const { cursor, limit, ...asked } = req;
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([workspaceId, asked]))
    .digest('base64url')
    .slice(0, 16);
  let offset = 0;
  if (cursor) {
    const c = verifyPayload<Cursor>(cursor, keys.secretsKey);
    if (!c || c.h !== fingerprint || !Number.isInteger(c.o) || c.o < 0 || c.o > MAX_SEARCH_DEPTH)
      throw new ServiceError('INVALID_REQUEST', 'cursor', {
        message: 'The cursor is malformed, was altered or belongs to another query; start from the first page.',
      });
    offset = c.o;
  }
  const { websearch, prefixes, plain } = parseSearchQuery(req.q);
  const prefixQuery = prefixes.map((p) => `'${p}':*`).join(' & ');

  const filters: Prisma.Sql[] = [
    Prisma.sql`m.workspace_id = ${workspaceId}::uuid`,
    Prisma.sql`t.workspace_id = ${workspaceId}::uuid`,
    Prisma.sql`t.published_at IS NOT NULL AND t.deleted_at IS NULL AND t.expires_at > now()`,
  ];
  if (req.language)
    filters.push(Prisma.sql`(lower(m.language) = lower(${req.language}) OR lower(m.language) LIKE lower(${req.language}) || '-%')`);
  if (req.platform) filters.push(Prisma.sql`t.platform = ${req.platform}::"Platform"`);
  if (req.source_id) filters.push(Prisma.sql`t.media_id = ${req.source_id}`);
  if (req.speaker) filters.push(Prisma.sql`m.speaker = ${req.speaker}`);
  if (req.created_after) filters.push(Prisma.sql`t.created_at >= ${new Date(req.created_after)}`);
  if (req.created_before) filters.push(Prisma.sql`t.created_at < ${new Date(req.created_before)}`);
  const where = Prisma.join(filters, ' AND ');
  const trigramTerms = plain.map((t) => Prisma.sql`m.text ILIKE ${`%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);

  // The query as each configuration reads it, with accents and with them folded (as the moments' words are), its
  // configurations written out so the planner sees a constant it can look up in the GIN index (a query of stop
  // words only is empty and matches nothing).
  const tsquery = (cfg: (typeof SEARCH_CONFIGS)[number]) => {
    const folded = Prisma.raw(`'${cfg}'::regconfig`);
    const accented = Prisma.raw(`'${ACCENTED_CONFIG[cfg]}'::regconfig`);
    const words = Prisma.sql`(websearch_to_tsquery(${accented}, ${websearch}) || websearch_to_tsquery(${folded}, ${websearch}))`;
    const starts = Prisma.sql`(to_tsquery(${accented}, ${prefixQuery}) || to_tsquery(${folded}, ${prefixQuery}))`;
    if (websearch && prefixQuery) return Prisma.sql`(${words} && ${starts})`;
    return websearch ? words : starts;
  };
  if (!websearch && !prefixQuery && plain.length === 0) return { moments: [], next_cursor: null };
  // The query of each configuration made once (a one-row CTE: made per row, as a generic plan of the prepared
  // statement would, it cost seconds on a million moments), then one scan of the words index for all of them at
  // once; each moment is kept and ranked by the query of its own configuration.
  const column = (cfg: string) => Prisma.raw(`q.${cfg}`);
  const byConfig = (expr: (cfg: (typeof SEARCH_CONFIGS)[number]) => Prisma.Sql) =>
    Prisma.join(
      SEARCH_CONFIGS.map((cfg) => Prisma.sql`WHEN ${cfg} THEN ${expr(cfg)}`),
      ' ',
    );
  const queries = Prisma.sql`
    SELECT x.*, ${Prisma.join(
      SEARCH_CONFIGS.map((cfg) => Prisma.raw(`x.${cfg}`)),
      ' || ',
    )} AS any_config
    FROM (SELECT ${Prisma.join(
      SEARCH_CONFIGS.map((cfg) => Prisma.sql`${tsquery(cfg)} AS ${Prisma.raw(cfg)}`),
      ', ',
    )}) AS x`;
  const keyword = Prisma.sql`
      SELECT m.transcript_id, m.seq, m.search_config,
        (CASE m.search_config ${byConfig((cfg) => Prisma.sql`ts_rank_cd(m.words, ${column(cfg)})`)} END)::float8 AS score
      FROM q CROSS JOIN transcript_moments m JOIN transcripts t ON t.id = m.transcript_id
      WHERE m.words @@ q.any_config
        AND (CASE m.search_config ${byConfig((cfg) => Prisma.sql`m.words @@ ${column(cfg)}`)} ELSE false END)
        AND ${where}`;
  const headline = byConfig(
    (cfg) => Prisma.sql`ts_headline(${Prisma.raw(`'${cfg}'::regconfig`)}, m.text, ${column(cfg)},
          'HighlightAll=true, StartSel=' || chr(57344) || ', StopSel=' || chr(57345))`,
  );
  const statement = Prisma.sql`
    WITH q AS MATERIALIZED (${queries}),
    ranked AS (
      ${websearch || prefixQuery ? keyword : Prisma.sql`SELECT NULL::uuid AS transcript_id, 0 AS seq, '' AS search_config, 0::float8 AS score WHERE false`}
      UNION ALL
      SELECT m.transcript_id, m.seq, m.search_config, similarity(m.text, ${plain.join(' ')})::float8 AS score
      FROM transcript_moments m JOIN transcripts t ON t.id = m.transcript_id
      WHERE m.search_config = 'search_trigram' AND ${plain.length > 0 ? Prisma.join(trigramTerms, ' AND ') : Prisma.sql`false`} AND ${where}
      ORDER BY score DESC, transcript_id, seq
      LIMIT ${limit + 1} OFFSET ${offset}
    )
    SELECT r.transcript_id::text, r.seq, t.job_id::text, t.platform::text AS platform, t.media_id, t.title, t.canonical_url,
      m.start, m."end", m.text, m.speaker, m.language, r.score,
      CASE r.search_config ${headline} ELSE m.text END AS marked
    FROM ranked r CROSS JOIN q
    JOIN transcript_moments m ON m.transcript_id = r.transcript_id AND m.seq = r.seq
    JOIN transcripts t ON t.id = r.transcript_id
    ORDER BY r.score DESC, r.transcript_id, r.seq`;
  const rows = await db.$queryRaw<Row[]>(statement);
  const page = rows.slice(0, limit);
  const next = offset + limit;
  return {
    moments: page.map((r) => {
      const marked = r.marked === r.text && plain.length > 0 ? markTerms(r.text, plain) : r.marked;
      return {
        transcript_id: r.transcript_id,
        job_id: r.job_id,
        source: { platform: r.platform, media_id: r.media_id, title: r.title, canonical_url: r.canonical_url },
        start: r.start,
        end: r.end,
        text: r.text,
        highlighted_text: highlighted(marked),
        speaker: r.speaker,
        language: r.language,
        score: Math.round(r.score * 1e6) / 1e6,
        link: momentLink(r, keys, workspaceId),
      };
    }),
    next_cursor:
      rows.length > limit && next < MAX_SEARCH_DEPTH ? signPayload({ o: next, h: fingerprint } satisfies Cursor, keys.secretsKey) : null,
  };
}

/** Where the moment plays: the video at its second, the uploaded file at its second, or the source page. */
function momentLink(r: Row, keys: { secretsKey: string; baseUrl: string }, workspaceId: string): string | null {
  const second = Math.floor(r.start);
  if (r.platform === 'videosite') return `${videositeCanonicalUrl(r.media_id)}&t=${second}`;
  if (r.platform === 'upload') return `${signedMediaLink(keys.secretsKey, keys.baseUrl, workspaceId, r.transcript_id).url}#t=${second}`;
  if (r.platform === 'direct') return null;
  return r.canonical_url;
}

/** A moment with the words around it: the text of the moments just before and after it in its transcript. */
export type MomentInContext = SearchResultView['moments'][number] & { before: string | null; after: string | null };

/**
 * The moments of a page with their neighbours (one statement), for a reader that sees the moment alone, such as
 * an agent: enough of what was said around it to tell whether it is the one it looks for.
 */
export async function withNeighbours(db: Db, page: SearchResultView): Promise<MomentInContext[]> {
  if (page.moments.length === 0) return [];
  const keyed = await db.$queryRaw<{ transcript_id: string; start: number; before: string | null; after: string | null }[]>`
    SELECT m.transcript_id::text, m.start,
      (SELECT p.text FROM transcript_moments p WHERE p.transcript_id = m.transcript_id AND p.seq = m.seq - 1) AS before,
      (SELECT n.text FROM transcript_moments n WHERE n.transcript_id = m.transcript_id AND n.seq = m.seq + 1) AS after
    FROM transcript_moments m
    WHERE (m.transcript_id, m.start) IN (SELECT * FROM unnest(${page.moments.map((m) => m.transcript_id)}::uuid[], ${page.moments.map((m) => m.start)}::float8[]))`;
  const around = new Map(keyed.map((k) => [`${k.transcript_id}/${k.start}`, k]));
  return page.moments.map((m) => {
    const k = around.get(`${m.transcript_id}/${m.start}`);
    return { ...m, before: k?.before ?? null, after: k?.after ?? null };
  });
}
