// Chapters (`chapters: true`): the platform's own where the video has them, else computed from what is said.
//
// Computed chapters: the transcript's segments pooled into blocks of a few seconds, and the blocks partitioned into
// chapters of at least MIN_CHAPTER_SECONDS by an exact dynamic programme over the block boundaries that weighs two
// signals, each chapter costing a penalty:
// - meaning: each block's text embedded (the search's sentence embeddings, multilingual), and the spread of the
//   chapter's blocks around their mean (scatterCost);
// - words: how unlikely the chapter's words are under a word distribution of the chapter's own (Utiyama and
//   Isahara 2001), which rewards chapters that keep to their own vocabulary: the names, places and things a talk
//   is about, which short embedded blocks blur.
// On composed talks the two together beat either alone, TextTiling's local dips of similarity (Hearst 1997) with
// the same embeddings, and TextTiling on word counts (bench/RESULTS.md). A chapter's title is its most central
// block: the one nearest the chapter's mean meaning.

export const CHAPTER_ORIGINS = ['platform', 'computed'] as const;

export interface Chapter {
  start: number;
  end: number;
  title: string;
  /** `platform`: the video's own chapters, as the platform lists them. `computed`: found by the service. */
  origin: (typeof CHAPTER_ORIGINS)[number];
}
/** Shorter transcripts get no computed chapters (an empty list). */
export const CHAPTERS_MIN_DURATION_SECONDS = 180;
/** No computed chapter is shorter than this. */
export const MIN_CHAPTER_SECONDS = 60;
/**
 * Read on talks on one subject each, which chose nothing (bench/RESULTS.md, 2026-12-02): boundary F1 0.94 against 0.83
 * for the meanings alone and 0.87 for TextTiling on the same embeddings; on the addresses it was chosen on, 0.66.
 *
 * The boundary search's settings: segments pooled into blocks of about `blockSeconds` (each embedded with
 * `contextBlocks` blocks either side), each chapter costing `penalty` (scatterCost), and the chapters' words
 * weighed in with `words` (null: meaning alone). Chosen on 40 compositions of another seed (7) than the one the bench
 * reports (bench/sections/chapters.ts), boundary F1 there:
 * - meaning alone: 5 s blocks embedded alone with penalty 0.25, 0.62; penalty 0.15, 0.36; 0.35, 0.57; 0.5, 0.31.
 *   Blocks' vectors averaged with their neighbours', 0.21 to 0.52; neighbouring chapters whose mean meanings are
 *   alike merged afterwards, at most 0.63. On 20 compositions before that: 10 s blocks, 0.36 to 0.56; each block
 *   embedded with a block of context either side, 0.41 to 0.51, with two, 0.38 to 0.41; TextTiling's dips on the
 *   same embeddings, 0.41 to 0.51.
 * - words alone: 0.59 to 0.67 (prior 6, words cut to 5 or 6 letters); weighed as the spread of their counts'
 *   vectors (tf-idf) instead of by likelihood: at most 0.38.
 * - both: weight 0.01 (0.005 and 0.015 within 0.03 of it), prior 6 (5: 0.71, 7: 0.68), penalty 0.25 (0.1: 0.62;
 *   0: 0.54), words in more than 10 % of blocks left out (15 %: 0.69; a list of English function words instead:
 *   0.72, but that needs a list for every language): 0.71. The words weighed by a Dirichlet-multinomial's marginal
 *   likelihood instead of Laplace's estimate (as BayesSeg, Eisenstein and Barzilay 2008), concentration 0.02 to 1,
 *   prior 6 to 40, weight 0.01 or 0.02: at most 0.70 (0.2, 10, 0.01; on the bench's seed 0.66 against 0.66).
 *   Smoothed towards the transcript's own word frequencies instead (a Dirichlet-multinomial whose base is the
 *   transcript's distribution, concentration 20 to 5000, prior 4 to 24, weight 0.01 to 1, common words kept or
 *   not): at most 0.69 (1000, prior 6, weight 0.1), its wrong boundaries mostly 15 to 60 s from a true one.
 * - neither helped (2026-12-02, seed 7, then the bench's seed 53): chapters of at least 90 s, 0.69 and 0.66 (120 s:
 *   0.64 and 0.65); each boundary moved within 20 or 30 s to where the mean meanings of 40 or 60 s either side differ
 *   most, 0.53 to 0.64. Read by kind of join (the service, both seeds): a true boundary is found at 0.75 to 0.84
 *   between addresses more than 12 years apart, 0.54 to 0.75 between nearer years or one president's.
 */
export interface TilingSettings {
  blockSeconds: number;
  contextBlocks: number;
  penalty: number;
  words: WordSettings | null;
}
/**
 * The words' part: each chapter adds `weight` times the negative log-likelihood of its words under its own
 * Laplace-smoothed word distribution, plus `prior` times the log of the transcript's word count (the cost of saying
 * where a chapter starts). Words are cut to `stemLetters` letters (a crude stemmer that serves every alphabet), and
 * words in more than `commonShare` of the blocks are left out: a transcript's own function words, in any language.
 */
export interface WordSettings {
  weight: number;
  prior: number;
  stemLetters: number;
  commonShare: number;
}
export const TILING: TilingSettings = {
  blockSeconds: 5,
  contextBlocks: 0,
  penalty: 0.25,
  words: { weight: 0.01, prior: 6, stemLetters: 6, commonShare: 0.1 },
};
const MAX_TITLE_CHARS = 70;

export interface TimedText {
  start: number;
  end: number;
  text: string;
}

/** Vectors of texts, in order, each L2-normalised (the e5 embedder's passages). */
export type EmbedTexts = (texts: string[]) => Promise<number[][]>;

/**
 * The platform's chapter starts (seconds, title) as chapters: each ends where the next starts, the last at the
 * transcript's end. Markers out of order, repeated or past the end are dropped.
 */
export function platformChapters(markers: Array<{ start: number; title: string }>, durationSeconds: number | null): Chapter[] {
  const sorted = markers
    .filter((m) => Number.isFinite(m.start) && m.start >= 0 && m.title.trim() !== '')
    .filter((m) => durationSeconds === null || m.start < durationSeconds)
    .sort((a, b) => a.start - b.start)
    .filter((m, i, all) => i === 0 || m.start > all[i - 1]!.start);
  return sorted.map((m, i) => ({
    start: m.start,
    end: sorted[i + 1]?.start ?? durationSeconds ?? m.start,
    title: m.title.trim(),
    origin: 'platform' as const,
  }));
}

/** Computed chapters of a transcript's segments ([] when it is shorter than CHAPTERS_MIN_DURATION_SECONDS). */
export async function computeChapters(
  segments: TimedText[],
  durationSeconds: number | null,
  embed: EmbedTexts,
  tiling: TilingSettings = TILING,
): Promise<Chapter[]> {
  const spoken = segments.filter((s) => s.text.trim() !== '');
  if (spoken.length === 0) return [];
  const end = Math.max(durationSeconds ?? 0, spoken[spoken.length - 1]!.end);
  if (end - spoken[0]!.start < CHAPTERS_MIN_DURATION_SECONDS) return [];
  const blocks = timeBlocks(spoken, tiling.blockSeconds);
  const vectors = await embed(contextTexts(blocks, tiling.contextBlocks));
  const starts = topicBoundaries(blocks, vectors, end, tiling);
  const edges = [0, ...starts, blocks.length];
  return edges.slice(0, -1).map((first, i) => ({
    start: i === 0 ? 0 : blocks[first]!.start,
    end: i === edges.length - 2 ? end : blocks[edges[i + 1]!]!.start,
    title: titleOf(blocks.slice(first, edges[i + 1]!), vectors.slice(first, edges[i + 1]!)),
    origin: 'computed' as const,
  }));
}

/** Consecutive segments in blocks of about `seconds` each. */
export interface TextBlock {
  start: number;
  end: number;
  text: string;
}

export function timeBlocks(segments: TimedText[], seconds: number): TextBlock[] {
  const blocks: TextBlock[] = [];
  let open: TextBlock | null = null;
  for (const s of segments) {
    if (open === null) open = { start: s.start, end: s.end, text: s.text.trim() };
    else {
      open.end = s.end;
      open.text += ` ${s.text.trim()}`;
    }
    if (open.end - open.start >= seconds) {
      blocks.push(open);
      open = null;
    }
  }
  if (open !== null) blocks.push(open);
  return blocks;
}

/** Each block's text with `context` blocks either side: what is embedded for it (a few words alone say little). */
export function contextTexts(blocks: TextBlock[], context: number): string[] {
  return blocks.map((_, i) =>
    blocks
      .slice(Math.max(0, i - context), i + context + 1)
      .map((b) => b.text)
      .join(' '),
  );
}

/** The indexes of the blocks that start a new topic, in order. */
export function topicBoundaries(blocks: TextBlock[], raw: number[][], end: number, tiling: TilingSettings = TILING): number[] {
  if (blocks.length < 2) return [];
  // Centred on the transcript's own mean: what every block shares (the genre, the speaker's register) says
  // nothing about where the topic changes, and it dominates the raw cosines of texts of one kind.
  const centre = mean(raw);
  const vectors = raw.map((v) => v.map((x, i) => x - centre[i]!));
  const meaning = scatterCost(blocks, vectors, end, tiling.penalty);
  const words = tiling.words === null ? null : wordCost(blocks, tiling.words);
  return cheapestPartition(blocks, end, (i) => {
    // The words' cost of a chapter grows one block at a time (a running tally), so the partition walks the
    // chapters' ends forward from each start.
    const tally = words?.(i);
    return (j) => meaning(i, j) + (tally?.(j) ?? 0);
  });
}

/** A chapter's cost from its first block `i` to its end `j` (exclusive), for ends asked in increasing order. */
type ChapterCost = (i: number) => (j: number) => number;

/**
 * The partition of the blocks into chapters of at least MIN_CHAPTER_SECONDS (but a whole transcript's one) whose
 * costs sum least: exact, by dynamic programming forward over the block boundaries.
 */
function cheapestPartition(blocks: TextBlock[], end: number, costFrom: ChapterCost): number[] {
  const n = blocks.length;
  const startOf = (i: number) => (i === n ? end : blocks[i]!.start);
  const best = new Array<number>(n + 1).fill(Infinity);
  const from = new Array<number>(n + 1).fill(-1);
  best[0] = 0;
  for (let i = 0; i < n; i++) {
    if (best[i] === Infinity) continue;
    const cost = costFrom(i);
    for (let j = i + 1; j <= n; j++) {
      if (!(i === 0 && j === n) && startOf(j) - startOf(i) < MIN_CHAPTER_SECONDS) continue;
      const c = cost(j);
      if (best[i]! + c < best[j]!) {
        best[j] = best[i]! + c;
        from[j] = i;
      }
    }
  }
  const cuts: number[] = [];
  for (let j = n; j > 0 && from[j]! > 0; j = from[j]!) cuts.push(from[j]!);
  return cuts.sort((a, b) => a - b);
}

/**
 * The meaning's cost of a chapter: its blocks' spread around the chapter's mean (the sum of squared distances), plus
 * `penalty` times the spread of an average block around the whole transcript's mean, scaled by the blocks of the
 * shortest chapter.
 */
function scatterCost(blocks: TextBlock[], vectors: number[][], end: number, penalty: number): (i: number, j: number) => number {
  const n = blocks.length;
  const d = vectors[0]!.length;
  // Prefix sums of the vectors and of their squared norms: the spread of any run of blocks in O(d).
  const sums: Float64Array[] = [new Float64Array(d)];
  const squares = [0];
  for (let i = 0; i < n; i++) {
    const next = Float64Array.from(sums[i]!);
    const v = vectors[i]!;
    let sq = 0;
    for (let k = 0; k < d; k++) {
      next[k]! += v[k]!;
      sq += v[k]! * v[k]!;
    }
    sums.push(next);
    squares.push(squares[i]! + sq);
  }
  const spread = (i: number, j: number) => {
    let norm = 0;
    const a = sums[i]!;
    const b = sums[j]!;
    for (let k = 0; k < d; k++) norm += (b[k]! - a[k]!) ** 2;
    return squares[j]! - squares[i]! - norm / (j - i);
  };
  const blocksPerChapter = Math.max(1, Math.round((MIN_CHAPTER_SECONDS * n) / Math.max(1, end - blocks[0]!.start)));
  const penaltyCost = penalty * (spread(0, n) / n) * blocksPerChapter;
  return (i, j) => spread(i, j) + penaltyCost;
}

/**
 * The words' cost of chapters starting at block `i`, as a running tally over their ends: with c_w the count of word w
 * in the chapter, N their sum and K the transcript's vocabulary, −Σ c_w·log((c_w + 1) / (N + K)), plus the prior.
 */
function wordCost(blocks: TextBlock[], settings: WordSettings): (i: number) => (j: number) => number {
  const perBlock = blockWords(blocks, settings);
  const vocabulary = new Map<string, number>();
  const ids = perBlock.map((ws) => ws.map((w) => vocabulary.get(w) ?? vocabulary.set(w, vocabulary.size).get(w)!));
  const total = ids.reduce((sum, ws) => sum + ws.length, 0);
  const prior = settings.prior * Math.log(Math.max(2, total));
  return (i) => {
    const counts = new Int32Array(vocabulary.size);
    let words = 0;
    let sumCountLog = 0; // Σ c_w·log(c_w + 1)
    let upTo = i;
    return (j) => {
      for (; upTo < j; upTo++)
        for (const w of ids[upTo]!) {
          const c = counts[w]!;
          sumCountLog += (c + 1) * Math.log(c + 2) - c * Math.log(c + 1);
          counts[w] = c + 1;
          words++;
        }
      const logLikelihood = words === 0 ? 0 : sumCountLog - words * Math.log(words + vocabulary.size);
      return settings.weight * (prior - logLikelihood);
    };
  };
}

/**
 * Each block's words for the words' cost: lower case, cut to `stemLetters` letters, written without spaces (Chinese,
 * Japanese) as pairs of characters, and without the words found in more than `commonShare` of the blocks.
 */
export function blockWords(blocks: TextBlock[], settings: Pick<WordSettings, 'stemLetters' | 'commonShare'>): string[][] {
  const words = blocks.map((b) =>
    (b.text.toLowerCase().match(/\p{L}+/gu) ?? []).flatMap((w) => {
      if (!/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(w)) return [w.slice(0, settings.stemLetters)];
      const chars = Array.from(w);
      return chars.length === 1 ? chars : chars.slice(0, -1).map((c, k) => c + chars[k + 1]!);
    }),
  );
  const blocksWith = new Map<string, number>();
  for (const ws of words) for (const w of new Set(ws)) blocksWith.set(w, (blocksWith.get(w) ?? 0) + 1);
  const limit = settings.commonShare * blocks.length;
  return words.map((ws) => ws.filter((w) => blocksWith.get(w)! <= limit));
}

/** The block nearest the chapter's mean meaning, cut at a word boundary to MAX_TITLE_CHARS. */
function titleOf(segments: TextBlock[], vectors: number[][]): string {
  const centre = mean(vectors);
  let best = 0;
  vectors.forEach((v, i) => {
    if (cosine(v, centre) > cosine(vectors[best]!, centre)) best = i;
  });
  return shortTitle(segments[best]!.text);
}

export function shortTitle(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (Array.from(clean).length <= MAX_TITLE_CHARS) return clean;
  const cut = Array.from(clean)
    .slice(0, MAX_TITLE_CHARS - 1)
    .join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

function mean(vectors: number[][]): number[] {
  const out = new Array<number>(vectors[0]!.length).fill(0);
  for (const v of vectors) for (let i = 0; i < v.length; i++) out[i]! += v[i]!;
  return out.map((x) => x / vectors.length);
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
