import { Pool } from 'pg';
import { SEARCH_INDEX_VERSION } from '../../domain/search/index';
import { ACCENTED_CONFIG, searchConfigOf } from '../../domain/search/moments';
import { searchMoments } from '../../domain/search/query';
import type { SearchRequest } from '../../domain/schemas/search';
import { allEvalClips } from '../../test/support/asr-eval';
import { type BenchContext, type BenchSection, ms, pct, ratio } from '../harness';

// Keyword search at scale (issue 52, item 6): a workspace of TRANSCRIPTS transcripts of MOMENTS_EACH moments,
// built from real speech (the reference sentences of the eval sets, two of one language a moment), searched 16
// at a time through the domain function GET /v1/search calls, beside the bare SQL of the same mode.

const TRANSCRIPTS = Number(process.env.SEARCH_BENCH_TRANSCRIPTS ?? 20_000);
const MOMENTS_EACH = 50;
const CONCURRENCY = 16;
const ROUNDS = 25;
const SPACED = new Set(['en', 'es', 'fr', 'de', 'pt', 'it']);

/** The reference texts of the eval sets (allEvalClips) in languages written with spaces, one sentence each. */
function sentences(): { lang: string; text: string }[] {
  return allEvalClips()
    .filter((c) => SPACED.has(c.lang))
    .map((c) => ({ lang: c.lang, text: c.reference.replace(/\s+/g, ' ').trim() }))
    .filter((s) => s.text.split(' ').length >= 5);
}

/** Queries from the corpus itself: its longest words, three-word phrases in quotes, prefixes. */
function queries(pool: { lang: string; text: string }[]): { q: string; kind: string }[] {
  const words = (t: string) => t.split(/[^\p{L}]+/u).filter((w) => w.length > 0);
  const picked = pool.filter((_, i) => i % Math.max(1, Math.floor(pool.length / 20)) === 0).slice(0, 20);
  return [
    ...picked.map((s) => ({ q: [...words(s.text)].sort((a, b) => b.length - a.length)[0]!, kind: 'word' })),
    ...picked.slice(0, 10).map((s) => ({ q: `"${words(s.text).slice(1, 4).join(' ')}"`, kind: 'phrase' })),
    ...picked
      .slice(0, 10)
      .map((s) => ({ q: `${[...words(s.text)].sort((a, b) => b.length - a.length)[0]!.slice(0, 5)}*`, kind: 'prefix' })),
  ];
}

async function concurrently(count: number, run: (i: number) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t0 = performance.now();
        await run(i);
        times.push(performance.now() - t0);
      }
    }),
  );
  return times;
}

export const searchSection: BenchSection = {
  name: 'search',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const { out } = ctx;
    const pool = sentences();
    const [ws] = await ctx.makeWorkspaces(1);
    const api = await ctx.startTestApi({}, {}, CONCURRENCY);
    const db = api.deps.db;
    const bare = new Pool({ connectionString: process.env.DATABASE_URL, max: CONCURRENCY });
    try {
      const built0 = performance.now();
      await db.$executeRaw`
        INSERT INTO transcripts (id, workspace_id, job_id, reuse_key, platform, media_id, title, source_origin, language, text,
          segments, timing_granularity, extraction_version, published_at, expires_at, search_index_version)
        SELECT gen_random_uuid(), ${ws!.workspaceId}::uuid, gen_random_uuid(), 'bench-search-' || g, 'upload', gen_random_uuid()::text,
          'Bench ' || g, 'speech_recognition', 'en', '', '[]'::jsonb, 'segment', 'bench', now(), now() + interval '30 days', ${SEARCH_INDEX_VERSION}
        FROM generate_series(1, ${TRANSCRIPTS}) g`;
      // A bulk load as an operator would make it: the indexes built after the rows.
      await db.$executeRawUnsafe('DROP INDEX transcript_moments_words_idx, transcript_moments_trigram_idx');
      const langs = pool.map((s) => s.lang);
      const cfgs = pool.map((s) => searchConfigOf(s.lang));
      await db.$executeRaw`
        WITH s AS (SELECT * FROM unnest(${pool.map((p) => p.text)}::text[], ${langs}::text[], ${cfgs}::text[],
            ${cfgs.map((c) => ACCENTED_CONFIG[c as keyof typeof ACCENTED_CONFIG])}::text[]) WITH ORDINALITY AS s(text, lang, cfg, accented, n)),
        t AS (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM transcripts WHERE workspace_id = ${ws!.workspaceId}::uuid),
        picks AS (
          SELECT t.id, k.seq, 1 + ((t.rn * ${MOMENTS_EACH} + k.seq) * 7919) % ${pool.length} AS a,
            1 + ((t.rn * ${MOMENTS_EACH} + k.seq) * 104729) % ${pool.length} AS b
          FROM t CROSS JOIN generate_series(0, ${MOMENTS_EACH - 1}) AS k(seq))
        INSERT INTO transcript_moments (transcript_id, seq, workspace_id, start, "end", text, speaker, language, search_config, words)
        SELECT p.id, p.seq, ${ws!.workspaceId}::uuid, p.seq * 15, p.seq * 15 + 15, x.text, NULL, x.lang, x.cfg,
          to_tsvector(x.accented::regconfig, x.text) || to_tsvector(x.cfg::regconfig, x.text)
        FROM picks p JOIN s sa ON sa.n = p.a JOIN s sb ON sb.n = p.b,
          LATERAL (SELECT sa.lang, sa.cfg, sa.accented, CASE WHEN sb.lang = sa.lang THEN sa.text || ' ' || sb.text ELSE sa.text END AS text) x`;
      await db.$executeRawUnsafe('CREATE INDEX transcript_moments_words_idx ON transcript_moments USING GIN (words)');
      await db.$executeRawUnsafe(
        "CREATE INDEX transcript_moments_trigram_idx ON transcript_moments USING GIN (text gin_trgm_ops) WHERE search_config = 'search_trigram'",
      );
      await db.$executeRawUnsafe('ANALYZE transcript_moments');
      await db.$executeRawUnsafe('ANALYZE transcripts');
      const buildSeconds = (performance.now() - built0) / 1000;
      const [sizes] = await db.$queryRaw<{ table: bigint; words: bigint; trigram: bigint; rows: bigint }[]>`
        SELECT pg_table_size('transcript_moments') AS table, pg_relation_size('transcript_moments_words_idx') AS words,
          pg_relation_size('transcript_moments_trigram_idx') AS trigram, (SELECT count(*) FROM transcript_moments WHERE workspace_id = ${ws!.workspaceId}::uuid) AS rows`;

      const qs = queries(pool);
      const keys = { secretsKey: api.deps.secretsKey, baseUrl: api.deps.baseUrl };
      const request = (q: string): SearchRequest => ({ q, mode: 'keyword', limit: 10 });
      // Warm both paths once per query (plans, caches), then measure.
      for (const { q } of qs) await searchMoments(db, keys, ws!.workspaceId, request(q));
      const total = qs.length * ROUNDS;
      const hits: number[] = [];
      const service = await concurrently(total, async (i) => {
        const r = await searchMoments(db, keys, ws!.workspaceId, request(qs[i % qs.length]!.q));
        hits.push(r.moments.length);
      });
      // The bare SQL of keyword mode: one configuration's query, matched, ranked and cut to a page.
      const bareSql = `SELECT transcript_id, seq, ts_rank_cd(words, q) AS score
        FROM transcript_moments, websearch_to_tsquery('search_en', $2) AS q
        WHERE workspace_id = $1 AND search_config = 'search_en' AND words @@ q ORDER BY score DESC LIMIT 11`;
      for (const { q } of qs) await bare.query(bareSql, [ws!.workspaceId, q]);
      const baseline = await concurrently(total, async (i) => {
        await bare.query(bareSql, [ws!.workspaceId, qs[i % qs.length]!.q]);
      });

      const rows = Number(sizes!.rows);
      const hours = (rows * 15) / 3600;
      const mb = (b: bigint) => Number(b) / 1048576;
      out(`## Keyword search at scale (issue 52)`);
      out();
      out(
        `One workspace of ${TRANSCRIPTS.toLocaleString('en')} transcripts × ${MOMENTS_EACH} moments = ${rows.toLocaleString('en')} moments (${hours.toFixed(0)} h of speech at 15 s a moment), each two real sentences of one language from the eval sets' references (${pool.length} sentences in en, es, fr, de, pt, it: a small vocabulary, so a word matches far more moments than in real speech, the hard case for ranking). ${qs.length} queries from the corpus (single words, three-word phrases in quotes, prefixes), ${ROUNDS} rounds, ${CONCURRENCY} at once. "Service" is searchMoments, what GET /v1/search runs after authentication (every configuration's query, visibility join, headline, links); the baseline is the bare SQL of one configuration's match, rank and page. Built in ${buildSeconds.toFixed(0)} s (rows, then the GIN indexes).`,
      );
      out();
      out(`| ${CONCURRENCY} searches at once | p50 | p99 | vs bare SQL p50 | goal |`);
      out(`|---|---|---|---|---|`);
      out(`| bare SQL, keyword (baseline) | ${ms(pct(baseline, 50))} | ${ms(pct(baseline, 99))} | 1.00× | |`);
      out(
        `| service keyword search | ${ms(pct(service, 50))} | ${ms(pct(service, 99))} | ${ratio(pct(service, 50), pct(baseline, 50))} | p50 ≤ 15 ms, p99 ≤ 60 ms: ${pct(service, 50) <= 15 && pct(service, 99) <= 60 ? 'met' : 'not met'} |`,
      );
      out();
      out(
        `Moments found per search: median ${pct(hits, 50)} of 10. Index size: table ${mb(sizes!.table).toFixed(0)} MB, words (GIN) ${mb(sizes!.words).toFixed(0)} MB, trigrams (GIN) ${mb(sizes!.trigram).toFixed(0)} MB: ${((mb(sizes!.table) + mb(sizes!.words) + mb(sizes!.trigram)) / hours).toFixed(2)} MB per hour of speech.`,
      );
      out();
    } finally {
      await db.transcript.deleteMany({ where: { workspaceId: ws!.workspaceId } });
      await bare.end();
      await api.close();
    }
  },
};
