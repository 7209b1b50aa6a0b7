import { createHash } from 'node:crypto';
import { Prisma } from '../../prisma/generated/client';
import { ServiceError } from '../../core/errors';
import { escapeHtml } from '../../core/text';
import { signPayload, verifyPayload } from '../accounts/secrets';
import type { Db } from '../db';
import { signedMediaLink } from '../transcripts/media';
import { videositeCanonicalUrl } from '../../integrations/platforms/links';
import { MAX_RANKED_MATCHES, MAX_SEARCH_DEPTH, MEANING_DEPTH, type SearchRequest, type SearchResultView } from '../schemas/search';
import { ACCENTED_CONFIG, SEARCH_CONFIGS } from './moments';
import { vectorLiteral, type TextEmbedder } from '../../integrations/embeddings/e5';

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
  search_config: string;
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

/** What a search needs besides the database: the keys of its cursors and links, and the query's embedder. */
export interface SearchContext {
  secretsKey: string;
  baseUrl: string;
  /** Null where the model is not installed: semantic and hybrid are then unavailable. */
  embedder: TextEmbedder | null;
  /** How many of a keyword query's matches are ranked; MAX_RANKED_MATCHES unless a test asks for fewer. */
  rankedMatches?: number;
}

/** A ranked moment, before its text and source are read. */
interface Pick {
  transcript_id: string;
  seq: number;
  score: number;
}

/** Reciprocal rank fusion's constant: a moment's fused score is the sum over the rankings of 1 / (RRF_K + rank). */
const RRF_K = 60;

/**
 * GET /v1/search: the workspace's visible transcripts' moments that match, best first. `keyword`: each moment's
 * words matched with its own language's configuration (the query read once per configuration), the languages
 * written without spaces by their characters (trigram-indexed ILIKE). `semantic`: the moments nearest the query's
 * embedding (any language). `hybrid` (the default where the model is installed): both rankings fused by
 * reciprocal rank.
 */
export async function searchMoments(db: Db, ctx: SearchContext, workspaceId: string, req: SearchRequest): Promise<SearchResultView> {
  const mode = req.mode ?? (ctx.embedder ? 'hybrid' : 'keyword');
  const embedder = ctx.embedder;
  if (mode !== 'keyword' && !embedder)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', 'mode', {
      message: `Search by meaning (${mode}) needs the embedding model, which this deployment has not installed; use mode keyword.`,
    });
  const { cursor, limit, ...asked } = req;
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([workspaceId, { ...asked, mode }]))
    .digest('base64url')
    .slice(0, 16);
  // Semantic and hybrid read each ranking MEANING_DEPTH deep (for hybrid, reciprocal rank fusion needs both lists
  // to the same depth, so that every page is cut from the same fused list).
  const depth = mode === 'keyword' ? MAX_SEARCH_DEPTH : MEANING_DEPTH;
  let offset = 0;
  if (cursor) {
    const c = verifyPayload<Cursor>(cursor, ctx.secretsKey);
    if (!c || c.h !== fingerprint || !Number.isInteger(c.o) || c.o < 0 || c.o > depth)
      throw new ServiceError('INVALID_REQUEST', 'cursor', {
        message: 'The cursor is malformed, was altered or belongs to another query; start from the first page.',
      });
    offset = c.o;
  }
  const parsed = parseSearchQuery(req.q);
  const where = visibleMoments(workspaceId, req);
  let picks: Pick[];
  let rows: Row[] | null = null;
  const ranked = ctx.rankedMatches ?? MAX_RANKED_MATCHES;
  // Keyword mode ranks and reads its page in one statement; the other modes rank first and read the page after.
  if (mode === 'keyword') picks = rows = await keywordRanking<Row>(db, where, parsed, ranked, limit + 1, offset, true);
  else {
    const vector = await embedder!.embedQuery(req.q);
    if (mode === 'semantic') picks = await semanticRanking(db, where, vector, limit + 1, offset);
    else {
      const [byWords, byMeaning] = await Promise.all([
        keywordRanking<Pick>(db, where, parsed, ranked, MEANING_DEPTH, 0, false),
        semanticRanking(db, where, vector, MEANING_DEPTH, 0),
      ]);
      picks = fuseByRank([byWords, byMeaning]).slice(offset, offset + limit + 1);
    }
  }
  rows ??= await readMoments(db, picks, parsed);
  const page = rows.slice(0, limit);
  const next = offset + limit;
  return {
    mode,
    moments: page.map((r) => {
      const marked = r.search_config === 'search_trigram' ? markTerms(r.text, parsed.plain) : r.marked;
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
        link: momentLink(r, ctx, workspaceId),
      };
    }),
    next_cursor: picks.length > limit && next < depth ? signPayload({ o: next, h: fingerprint } satisfies Cursor, ctx.secretsKey) : null,
  };
}

/**
 * The filters every ranking applies, in two parts: what the moment itself holds (its workspace, language, speaker),
 * and what only its transcript says (visible: published, not deleted, inside retention; the request's platform,
 * source and creation time).
 */
interface MomentFilters {
  workspaceId: string;
  moments: Prisma.Sql;
  transcripts: Prisma.Sql;
}

function visibleMoments(workspaceId: string, req: SearchRequest): MomentFilters {
  const moments: Prisma.Sql[] = [Prisma.sql`m.workspace_id = ${workspaceId}::uuid`];
  const transcripts: Prisma.Sql[] = [
    Prisma.sql`t.workspace_id = ${workspaceId}::uuid`,
    Prisma.sql`t.published_at IS NOT NULL AND t.deleted_at IS NULL AND t.expires_at > now()`,
  ];
  if (req.language)
    moments.push(Prisma.sql`(lower(m.language) = lower(${req.language}) OR lower(m.language) LIKE lower(${req.language}) || '-%')`);
  if (req.speaker) moments.push(Prisma.sql`m.speaker = ${req.speaker}`);
  if (req.platform) transcripts.push(Prisma.sql`t.platform = ${req.platform}::"Platform"`);
  if (req.source_id) transcripts.push(Prisma.sql`t.media_id = ${req.source_id}`);
  if (req.created_after) transcripts.push(Prisma.sql`t.created_at >= ${new Date(req.created_after)}`);
  if (req.created_before) transcripts.push(Prisma.sql`t.created_at < ${new Date(req.created_before)}`);
  return { workspaceId, moments: Prisma.join(moments, ' AND '), transcripts: Prisma.join(transcripts, ' AND ') };
}

type ParsedQuery = ReturnType<typeof parseSearchQuery>;

/**
 * The query as each configuration reads it, with accents and with them folded (as the moments' words are), its
 * configurations written out so the planner sees a constant it can look up in the GIN index (a query of stop
 * words only is empty and matches nothing). Null when the query has no words for text search.
 */
function configQueries({ websearch, prefixes }: ParsedQuery): Prisma.Sql | null {
  const prefixQuery = prefixes.map((p) => `'${p}':*`).join(' & ');
  if (!websearch && !prefixQuery) return null;
  const tsquery = (cfg: (typeof SEARCH_CONFIGS)[number]) => {
    const folded = Prisma.raw(`'${cfg}'::regconfig`);
    const accented = Prisma.raw(`'${ACCENTED_CONFIG[cfg]}'::regconfig`);
    const words = Prisma.sql`(websearch_to_tsquery(${accented}, ${websearch}) || websearch_to_tsquery(${folded}, ${websearch}))`;
    const starts = Prisma.sql`(to_tsquery(${accented}, ${prefixQuery}) || to_tsquery(${folded}, ${prefixQuery}))`;
    if (websearch && prefixQuery) return Prisma.sql`(${words} && ${starts})`;
    return websearch ? words : starts;
  };
  // Made once (a one-row CTE: made per row, as a generic plan of the prepared statement would, it cost seconds on
  // a million moments). any_config, the query the words index is scanned with, holds each distinct reading once:
  // most configurations read most words alike, and every match is checked against the whole of it.
  return Prisma.sql`
    SELECT x.*, (SELECT string_agg(DISTINCT '(' || v::text || ')', ' | ')::tsquery
      FROM unnest(ARRAY[${Prisma.join(
        SEARCH_CONFIGS.map((cfg) => Prisma.raw(`x.${cfg}`)),
        ', ',
      )}]) AS v WHERE v::text <> '') AS any_config
    FROM (SELECT ${Prisma.join(
      SEARCH_CONFIGS.map((cfg) => Prisma.sql`${tsquery(cfg)} AS ${Prisma.raw(cfg)}`),
      ', ',
    )}) AS x`;
}

const column = (cfg: string) => Prisma.raw(`q.${cfg}`);
const byConfig = (expr: (cfg: (typeof SEARCH_CONFIGS)[number]) => Prisma.Sql) =>
  Prisma.join(
    SEARCH_CONFIGS.map((cfg) => Prisma.sql`WHEN ${cfg} THEN ${expr(cfg)}`),
    ' ',
  );

/**
 * The keyword ranking: one scan of the words index for every configuration's query at once, each moment kept and
 * ranked by the query of its own configuration; and the moments of the languages matched by characters. `read`:
 * the page's moments come with their text, source and marked words (Row) from the same statement, so a keyword
 * search is one statement (reading the page in a second one cost its planning and round trip, a fifth of a search).
 */
async function keywordRanking<T extends Pick>(
  db: Db,
  where: MomentFilters,
  parsed: ParsedQuery,
  ranked: number,
  limit: number,
  offset: number,
  read: T extends Row ? true : false,
): Promise<T[]> {
  const run = async (statement: Prisma.Sql | null) =>
    statement ? (await db.$queryRaw<T[]>(statement)).map((r) => ({ ...r, transcript_id: String(r.transcript_id) })) : [];
  // First the best moments by their own words alone, their transcripts looked up only for those: ranking every
  // match with its transcript's visibility cost a lookup per match (most of a search for a common word). The
  // candidates are a prefix of the full ranking, so the visible ones among them are a prefix of the answer: a
  // full page from them is the page. Short of one (many hidden moments, or the last page), the full ranking.
  const page = await run(keywordRankingSql(where, parsed, ranked, limit, offset, read, (limit + offset) * 2 + 50));
  if (page.length >= limit) return page;
  return run(keywordRankingSql(where, parsed, ranked, limit, offset, read));
}

/**
 * The keyword ranking's statement; null when the query has nothing to match. With `candidates`, the moments are
 * ranked by their own filters first and cut to that many before their transcripts are checked.
 */
function keywordRankingSql(
  where: MomentFilters,
  parsed: ParsedQuery,
  ranked: number,
  limit: number,
  offset: number,
  read: boolean,
  candidates?: number,
): Prisma.Sql | null {
  const queries = configQueries(parsed);
  const { plain } = parsed;
  if (!queries && plain.length === 0) return null;
  const trigramTerms = plain.map((t) => Prisma.sql`m.text ILIKE ${`%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
  // Joined with transcripts in the ranking itself, or only after the candidates are cut.
  const joined = candidates === undefined;
  const join = joined ? Prisma.sql`JOIN transcripts t ON t.id = c.transcript_id` : Prisma.empty;
  const visible = joined ? where.transcripts : Prisma.sql`true`;
  // Each part ranks at most `ranked` of its matches, the first the index yields for the moments'
  // own filters (the same set in both statements, so a page cut from the candidates is a prefix of the full
  // ranking): a word said in tens of thousands of moments costs a bounded read, not one per match.
  const byWords = queries
    ? Prisma.sql`
      SELECT c.transcript_id, c.seq,
        (CASE c.search_config ${byConfig((cfg) => Prisma.sql`ts_rank_cd(c.words, ${column(cfg)})`)} END)::float8 AS score
      FROM q CROSS JOIN LATERAL (
        SELECT m.transcript_id, m.seq, m.search_config, m.words FROM transcript_moments m
        WHERE m.words @@ q.any_config
          AND (CASE m.search_config ${byConfig((cfg) => Prisma.sql`m.words @@ ${column(cfg)}`)} ELSE false END)
          AND ${where.moments}
        LIMIT ${ranked}) c ${join}
      WHERE ${visible}
      UNION ALL`
    : Prisma.empty;
  const ranking = Prisma.sql`
    ${byWords}
    SELECT c.transcript_id, c.seq, similarity(c.text, ${plain.join(' ')})::float8 AS score
    FROM (
      SELECT m.transcript_id, m.seq, m.text FROM transcript_moments m
      WHERE m.search_config = 'search_trigram' AND ${plain.length > 0 ? Prisma.join(trigramTerms, ' AND ') : Prisma.sql`false`} AND ${where.moments}
      LIMIT ${ranked}) c ${join}
    WHERE ${visible}
    ORDER BY score DESC, transcript_id, seq`;
  const q = Prisma.sql`WITH q AS MATERIALIZED (${queries ?? Prisma.sql`SELECT 1`})`;
  const ctes = joined ? q : Prisma.sql`${q}, c AS (${ranking} LIMIT ${candidates})`;
  const page = joined
    ? Prisma.sql`${ranking} LIMIT ${limit} OFFSET ${offset}`
    : Prisma.sql`
    SELECT c.transcript_id, c.seq, c.score FROM c JOIN transcripts t ON t.id = c.transcript_id
    WHERE ${where.transcripts}
    ORDER BY c.score DESC, c.transcript_id, c.seq
    LIMIT ${limit} OFFSET ${offset}`;
  if (!read) return Prisma.sql`${ctes} ${page}`;
  return Prisma.sql`${ctes}, p AS (${page}) ${pageRows(queries)} ORDER BY p.score DESC, p.transcript_id, p.seq`;
}

/**
 * The semantic ranking: the moments nearest the query's vector by cosine distance, through the HNSW index.
 * As for keyword, the nearest moments of the workspace are found first by their vectors alone, and their moments
 * and transcripts checked for the page only: joined in one statement, the planner reads every vector of the
 * workspace instead of the index. Iterative scans (pgvector 0.8) go on reading the index until the workspace has
 * that many, so a small workspace's moments are found among everyone's; their order is relaxed, so the page is
 * sorted again. Short of a page (filters that leave out most of the nearest), ten times as many, then all.
 */
async function semanticRanking(db: Db, where: MomentFilters, vector: number[], limit: number, offset: number): Promise<Pick[]> {
  const literal = vectorLiteral(vector);
  const nearest = (candidates: number | null) => {
    const cut = candidates === null ? Prisma.empty : Prisma.sql`ORDER BY e.embedding <=> ${literal}::vector LIMIT ${candidates}`;
    return Prisma.sql`
      SELECT c.transcript_id::text, c.seq, (1 - c.distance)::float8 AS score FROM (
        SELECT e.transcript_id, e.seq, e.embedding <=> ${literal}::vector AS distance FROM moment_embeddings e
        WHERE e.workspace_id = ${where.workspaceId}::uuid AND e.embedding IS NOT NULL ${cut}
      ) AS c
      JOIN transcript_moments m ON m.transcript_id = c.transcript_id AND m.seq = c.seq
      JOIN transcripts t ON t.id = c.transcript_id
      WHERE ${where.moments} AND ${where.transcripts}
      ORDER BY c.distance, c.transcript_id, c.seq
      LIMIT ${limit} OFFSET ${offset}`;
  };
  const first = (limit + offset) * 2 + 50;
  for (const candidates of [first, first * 10, null]) {
    const [, , rows] = await db.$transaction([
      db.$executeRawUnsafe(`SET LOCAL hnsw.iterative_scan = relaxed_order`),
      db.$executeRawUnsafe(`SET LOCAL hnsw.ef_search = 100`),
      db.$queryRaw<Pick[]>(nearest(candidates)),
    ]);
    if (rows.length >= limit || candidates === null) return rows;
  }
  return [];
}

/** Reciprocal rank fusion of rankings: each moment scores the sum of 1 / (RRF_K + its rank) over the rankings it is in. */
export function fuseByRank(rankings: Pick[][]): Pick[] {
  const fused = new Map<string, Pick>();
  for (const ranking of rankings)
    ranking.forEach((p, i) => {
      const key = `${p.transcript_id}/${p.seq}`;
      const add = 1 / (RRF_K + i + 1);
      const had = fused.get(key);
      fused.set(key, { transcript_id: p.transcript_id, seq: p.seq, score: (had?.score ?? 0) + add });
    });
  return [...fused.values()].sort((a, b) => b.score - a.score || a.transcript_id.localeCompare(b.transcript_id) || a.seq - b.seq);
}

/**
 * The moments of `p` (transcript_id, seq, score) with their text, source and marked words: the select of a
 * statement whose `q` is the query's configurations (configQueries; `SELECT 1` without them) and `p` the page.
 */
function pageRows(queries: Prisma.Sql | null): Prisma.Sql {
  const headline = queries
    ? Prisma.sql`CASE m.search_config ${byConfig(
        (cfg) => Prisma.sql`ts_headline(${Prisma.raw(`'${cfg}'::regconfig`)}, m.text, ${column(cfg)},
          'HighlightAll=true, StartSel=' || chr(57344) || ', StopSel=' || chr(57345))`,
      )} ELSE m.text END`
    : Prisma.sql`m.text`;
  return Prisma.sql`
    SELECT p.transcript_id::text, p.seq, t.job_id::text, t.platform::text AS platform, t.media_id, t.title, t.canonical_url,
      m.start, m."end", m.text, m.speaker, m.language, m.search_config, p.score, ${headline} AS marked
    FROM p CROSS JOIN q
    JOIN transcript_moments m ON m.transcript_id = p.transcript_id AND m.seq = p.seq
    JOIN transcripts t ON t.id = p.transcript_id`;
}

/** The picked moments with their text, source and marked words, in the picks' order. */
async function readMoments(db: Db, picks: Pick[], parsed: ParsedQuery): Promise<Row[]> {
  if (picks.length === 0) return [];
  const queries = configQueries(parsed);
  return db.$queryRaw<Row[]>`
    WITH q AS MATERIALIZED (${queries ?? Prisma.sql`SELECT 1`}),
    p AS (SELECT * FROM unnest(${picks.map((p) => p.transcript_id)}::uuid[], ${picks.map((p) => p.seq)}::int[],
      ${picks.map((p) => p.score)}::float8[]) WITH ORDINALITY AS p(transcript_id, seq, score, ord))
    ${pageRows(queries)}
    ORDER BY p.ord`;
}

/** Where the moment plays: the video at its second, the uploaded file at its second, or the source page. */
function momentLink(r: Row, keys: { secretsKey: string; baseUrl: string }, workspaceId: string): string | null {
  const second = Math.floor(r.start);
  if (r.platform === 'videosite') return `${videositeCanonicalUrl(r.media_id)}&t=${second}`;
  if (r.platform === 'upload') return `${signedMediaLink(keys.secretsKey, keys.baseUrl, workspaceId, r.transcript_id).url}#t=${second}`;
  if (r.platform === 'direct' || r.platform === 'hls') return null;
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
