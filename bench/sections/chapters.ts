import fs from 'node:fs';
import path from 'node:path';
import {
  computeChapters,
  type EmbedTexts,
  MIN_CHAPTER_SECONDS,
  TILING,
  timeBlocks,
  type TextBlock,
  type TilingSettings,
  type TimedText,
} from '../../domain/transcripts/chapters';
import { e5Embedder } from '../../integrations/embeddings/e5';
import { bootstrapInterval, type Score } from '../../test/support/asr-eval';
import { seededRandom } from '../../test/support/seeded-random';
import type { BenchContext, BenchSection } from '../harness';

// Computed chapters (issue 53, item 1): boundary F1 within ±15 s on recordings composed of unrelated talks, beside
// four baselines on the same compositions: the service's partition by the sentences' meanings alone (as it was before
// the chapters' words joined it); TextTiling (Hearst 1997) on word counts, its classic form; TextTiling
// with the service's sentence embeddings in place of word counts; and the recording cut into as many equal parts
// as it has talks (which knows the true count, a thing the service never does).
//
// Two sets of talks, each excerpt spoken at 150 words a minute, cut into segments as the recognizer cuts them (a
// sentence, or about 12 words of a longer one), with a pause of 0.4 s between sentences:
// - talks on one subject each (bench/sets/chapters/wiki-excerpts.json): excerpts of Wikipedia articles as WikiText-2
//   holds them (a hurricane, a song, a battleship, a road), unrelated to each other, as the issue asks;
// - addresses of one genre (sotu-excerpts.json): excerpts of State of the Union addresses of 1934 and after, each a
//   different president's year. An address runs through a list of topics (the economy, defence, farms), and the next
//   address often through the same ones, so a join can be weaker than an address's own changes of topic.
// The bench also chapters excerpts alone: the chapter penalty is relative to a transcript's own spread, so one talk
// is still cut at its strongest changes, and a composition's join is found when it is stronger than those.
// The settings were chosen on compositions of the addresses (another seed); the one-subject set was not used to
// choose anything.

const SETS_DIR = path.resolve(__dirname, '../sets/chapters');
const TOLERANCE_SECONDS = 15;
const WORDS_PER_SECOND = 2.5;
const SENTENCE_PAUSE = 0.4;
const SEGMENT_WORDS = 12;

export interface Excerpt {
  /** The address's year (the addresses' set only). */
  year?: number;
  name: string;
  sentences: string[];
}

/** A set of talks the bench composes recordings from. */
export interface TalkSet {
  file: string;
  /** Whether these are the issue's unrelated talks, the set the goal is read on. */
  unrelated: boolean;
  heading: string;
  description: string;
}

export const TALK_SETS: TalkSet[] = [
  {
    file: 'wiki-excerpts.json',
    unrelated: true,
    heading: 'Talks on one subject each',
    description:
      'Excerpts of about 800 words of {n} Wikipedia articles on unrelated subjects (WikiText-2, CC BY-SA 3.0: bench/sets/chapters/build_wiki.py)',
  },
  {
    file: 'sotu-excerpts.json',
    unrelated: false,
    heading: 'Addresses of one genre',
    description:
      'Excerpts of about 800 words of {n} State of the Union addresses of 1934 and after (public domain: bench/sets/chapters/build.py), each a different year',
  },
];

export interface Composition {
  segments: TimedText[];
  /** Where each talk after the first starts (seconds). */
  boundaries: number[];
  talks: string[];
}

/** `count` compositions of 3–6 talks of 2–5 minutes each, drawn with a fixed seed from the excerpts. */
export function composeTalks(excerpts: Excerpt[], count: number, seed = 53): Composition[] {
  const random = seededRandom(seed);
  const pick = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const compositions: Composition[] = [];
  for (let c = 0; c < count; c++) {
    const talks = pick(3, 6);
    const used = new Set<number>();
    const segments: TimedText[] = [];
    const boundaries: number[] = [];
    const names: string[] = [];
    let t = 0;
    for (let k = 0; k < talks; k++) {
      let i = pick(0, excerpts.length - 1);
      while (used.has(i)) i = (i + 1) % excerpts.length;
      used.add(i);
      const excerpt = excerpts[i]!;
      names.push(talkLabel(excerpt));
      if (k > 0) boundaries.push(t);
      t = spokenTalk(excerpt, t, t + pick(120, 300), segments);
    }
    compositions.push({ segments, boundaries, talks: names });
  }
  return compositions;
}

const talkLabel = (excerpt: Excerpt) => (excerpt.year === undefined ? excerpt.name : `${excerpt.year} ${excerpt.name}`);

/** The excerpt spoken from `t` into `segments`, whole sentences until `until`; answers where it ends. */
function spokenTalk(excerpt: Excerpt, from: number, until: number, segments: TimedText[]): number {
  let t = from;
  for (const sentence of excerpt.sentences) {
    const words = sentence.split(/\s+/).filter(Boolean);
    for (let w = 0; w < words.length; w += SEGMENT_WORDS) {
      const piece = words.slice(w, w + SEGMENT_WORDS);
      const end = t + piece.length / WORDS_PER_SECOND;
      segments.push({ start: round(t), end: round(end), text: piece.join(' ') });
      t = end;
    }
    t += SENTENCE_PAUSE;
    if (t >= until) break;
  }
  return t;
}

const round = (s: number) => Math.round(s * 1000) / 1000;

/** Boundaries found within the tolerance of a true one, each true one matched once (nearest first). */
export function matchedBoundaries(found: number[], truth: number[], tolerance = TOLERANCE_SECONDS): number {
  const pairs = found
    .flatMap((f, i) => truth.map((r, j) => ({ i, j, d: Math.abs(f - r) })))
    .filter((p) => p.d <= tolerance)
    .sort((a, b) => a.d - b.d);
  const usedFound = new Set<number>();
  const usedTruth = new Set<number>();
  for (const p of pairs) {
    if (usedFound.has(p.i) || usedTruth.has(p.j)) continue;
    usedFound.add(p.i);
    usedTruth.add(p.j);
  }
  return usedFound.size;
}

/** Word counts as vectors over the texts' vocabulary (lower case, words of 3 letters or more). */
function wordCountVectors(texts: string[]): number[][] {
  const tokens = texts.map((t) => t.toLowerCase().match(/\p{L}{3,}/gu) ?? []);
  const vocabulary = new Map<string, number>();
  for (const ts of tokens) for (const t of ts) if (!vocabulary.has(t)) vocabulary.set(t, vocabulary.size);
  return tokens.map((ts) => {
    const v = new Array<number>(vocabulary.size).fill(0);
    for (const t of ts) v[vocabulary.get(t)!]! += 1;
    return v;
  });
}

/** TextTiling's settings (Hearst 1997): 10 s blocks compared over a minute each side, dips deeper than mean + 1 sd. */
const TEXT_TILING = { blockSeconds: 10, windowBlocks: 6, cutoffStds: 1 };

/**
 * TextTiling: at each gap between blocks, the similarity of the window before with the window after; a boundary
 * where that similarity dips deeper than the mean dip by `cutoffStds` standard deviations, deepest first, no two
 * closer than MIN_CHAPTER_SECONDS (as the service's chapters).
 */
function textTiling(blocks: TextBlock[], vectors: number[][], end: number): number[] {
  const { windowBlocks, cutoffStds } = TEXT_TILING;
  const sum = (vs: number[][]) => vs.reduce((acc, v) => acc.map((x, i) => x + v[i]!), new Array<number>(vs[0]!.length).fill(0));
  const cosine = (a: number[], b: number[]) => {
    const dot = a.reduce((acc, x, i) => acc + x * b[i]!, 0);
    const norm = Math.sqrt(a.reduce((acc, x) => acc + x * x, 0) * b.reduce((acc, x) => acc + x * x, 0));
    return norm === 0 ? 0 : dot / norm;
  };
  const similarity = blocks
    .slice(0, -1)
    .map((_, gap) =>
      cosine(sum(vectors.slice(Math.max(0, gap - windowBlocks + 1), gap + 1)), sum(vectors.slice(gap + 1, gap + 1 + windowBlocks))),
    );
  const depth = similarity.map((s, gap) => {
    let left = s;
    for (let i = gap - 1; i >= 0 && similarity[i]! >= left; i--) left = similarity[i]!;
    let right = s;
    for (let i = gap + 1; i < similarity.length && similarity[i]! >= right; i++) right = similarity[i]!;
    return left - s + (right - s);
  });
  const dips = depth.filter((d) => d > 0);
  if (dips.length === 0) return [];
  const m = dips.reduce((a, b) => a + b, 0) / dips.length;
  const sd = Math.sqrt(dips.reduce((a, d) => a + (d - m) ** 2, 0) / dips.length);
  const first = blocks[0]!.start;
  const chosen: number[] = [];
  for (const { d, gap } of depth.map((d, gap) => ({ d, gap })).sort((a, b) => b.d - a.d)) {
    if (d <= m + cutoffStds * sd) break;
    const at = blocks[gap + 1]!.start;
    if (at - first < MIN_CHAPTER_SECONDS || end - at < MIN_CHAPTER_SECONDS) continue;
    if (chosen.some((c) => Math.abs(c - at) < MIN_CHAPTER_SECONDS)) continue;
    chosen.push(at);
  }
  return chosen.sort((a, b) => a - b);
}

function equalParts(c: Composition): number[] {
  const start = c.segments[0]!.start;
  const end = c.segments.at(-1)!.end;
  const parts = c.boundaries.length + 1;
  return Array.from({ length: parts - 1 }, (_, i) => start + ((i + 1) * (end - start)) / parts);
}

export interface ChapterScores {
  method: string;
  scores: Score[];
  found: number;
  matched: number;
  truth: number;
}

/** Every method's boundaries on every composition, scored. */
export async function scoreChapters(
  compositions: Composition[],
  embed: EmbedTexts,
  tiling: TilingSettings = TILING,
): Promise<{ results: ChapterScores[]; seconds: number; speechSeconds: number }> {
  const methods: Record<string, (c: Composition) => Promise<number[]>> = {
    "sentence embeddings and the chapters' words (the service)": async (c) => {
      const chapters = await computeChapters(c.segments, null, embed, tiling);
      return chapters.slice(1).map((ch) => ch.start);
    },
    'sentence embeddings alone (the service before 2026-12-01)': async (c) => {
      const chapters = await computeChapters(c.segments, null, embed, { ...tiling, words: null });
      return chapters.slice(1).map((ch) => ch.start);
    },
    'TextTiling on sentence embeddings (baseline)': async (c) => {
      const blocks = timeBlocks(c.segments, TEXT_TILING.blockSeconds);
      return textTiling(blocks, await embed(blocks.map((b) => b.text)), c.segments.at(-1)!.end);
    },
    'TextTiling on word counts (baseline)': async (c) => {
      const blocks = timeBlocks(c.segments, TEXT_TILING.blockSeconds);
      return textTiling(blocks, wordCountVectors(blocks.map((b) => b.text)), c.segments.at(-1)!.end);
    },
    'equal parts, true count (baseline)': async (c) => equalParts(c),
  };
  const results: ChapterScores[] = [];
  let seconds = 0;
  for (const [method, run] of Object.entries(methods)) {
    const scores: Score[] = [];
    let found = 0;
    let matched = 0;
    let truth = 0;
    const t0 = performance.now();
    for (const c of compositions) {
      const boundaries = await run(c);
      const m = matchedBoundaries(boundaries, c.boundaries);
      // F1 pooled over compositions is 2·matched / (found + true): a pooled rate, so the bootstrap of the ASR
      // evaluation gives its interval.
      const units = boundaries.length + c.boundaries.length;
      scores.push({ edits: 2 * m, units, rate: units === 0 ? 0 : (2 * m) / units });
      found += boundaries.length;
      matched += m;
      truth += c.boundaries.length;
    }
    if (method.endsWith('(the service)')) seconds = (performance.now() - t0) / 1000;
    results.push({ method, scores, found, matched, truth });
  }
  const speechSeconds = compositions.reduce((s, c) => s + c.segments.at(-1)!.end, 0);
  return { results, seconds, speechSeconds };
}

export function loadExcerpts(file: string): Excerpt[] {
  return (JSON.parse(fs.readFileSync(path.join(SETS_DIR, file), 'utf8')) as { excerpts: Excerpt[] }).excerpts;
}

/** Compositions the bench scores per set. */
export const COMPOSITIONS = 40;
/** Every how many excerpts one is also chaptered alone. */
const ALONE_EVERY = 3;

/** A boundary the service found inside one talk alone, with the words either side of it. */
interface BoundaryInside {
  talk: string;
  at: number;
  before: string;
  after: string;
}

/** The service's boundaries in every ALONE_EVERY-th excerpt spoken whole, alone: a talk's own topic changes. */
async function boundariesInsideTalks(
  excerpts: Excerpt[],
  embed: EmbedTexts,
): Promise<{ talks: number; minutes: number; found: BoundaryInside[] }> {
  const found: BoundaryInside[] = [];
  let talks = 0;
  let seconds = 0;
  for (let i = 0; i < excerpts.length; i += ALONE_EVERY) {
    const excerpt = excerpts[i]!;
    const segments: TimedText[] = [];
    seconds += spokenTalk(excerpt, 0, Infinity, segments);
    talks++;
    for (const chapter of (await computeChapters(segments, null, embed)).slice(1)) {
      const words = (texts: TimedText[]) => texts.map((s) => s.text).join(' ');
      found.push({
        talk: talkLabel(excerpt),
        at: chapter.start,
        before: words(segments.filter((s) => s.end <= chapter.start).slice(-2)),
        after: words(segments.filter((s) => s.start >= chapter.start).slice(0, 2)),
      });
    }
  }
  return { talks, minutes: seconds / 60, found };
}

/** The embedder's vectors, each text embedded once per run: the methods share blocks, and only the first pays. */
function memoised(embed: EmbedTexts): EmbedTexts {
  const known = new Map<string, number[]>();
  return async (texts) => {
    const missing = [...new Set(texts.filter((t) => !known.has(t)))];
    if (missing.length > 0) (await embed(missing)).forEach((v, k) => known.set(missing[k]!, v));
    return texts.map((t) => known.get(t)!);
  };
}

export const chaptersSection: BenchSection = {
  name: 'chapters',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const { out } = ctx;
    const embedder = e5Embedder();
    if (!embedder) throw new Error('the e5 model is not installed (stack/search-setup.sh)');
    const embed = memoised((texts) => embedder.embedPassages(texts));
    const f1Of = (r: ChapterScores) => (2 * r.matched) / Math.max(1, r.found + r.truth);
    const f1 = (r: ChapterScores) => {
      const { low, high } = bootstrapInterval(r.scores);
      return `${f1Of(r).toFixed(2)} (${low.toFixed(2)}–${high.toFixed(2)})`;
    };
    out(`## Chapters (issue 53)`);
    out();
    out(
      `Boundary F1 within ±${TOLERANCE_SECONDS} s on ${COMPOSITIONS} recordings per set, each composed of 3–6 talks of 2–5 minutes, with its 95 % bootstrap interval over recordings (seeded). Each talk is an excerpt timed at ${WORDS_PER_SECOND * 60} words a minute and cut into recognizer-sized segments. Computed chapters are at least ${MIN_CHAPTER_SECONDS} s long. The service's settings were chosen on compositions of the addresses drawn with another seed; nothing was chosen on the one-subject talks. "Inside one talk": the boundaries the service finds in every ${ALONE_EVERY === 3 ? 'third' : `${ALONE_EVERY}th`} excerpt chaptered alone. The chapter penalty is relative to a transcript's own spread, so a talk alone is still cut where it changes most; in a composition a join is found where it is a stronger change than the talks' own, which between unrelated subjects it nearly always is, and between addresses of one genre (each a list of topics, often the same ones) often not.`,
    );
    out();
    const serviceF1 = new Map<boolean, number>();
    for (const set of TALK_SETS) {
      const excerpts = loadExcerpts(set.file);
      const compositions = composeTalks(excerpts, COMPOSITIONS);
      const { results, seconds, speechSeconds } = await scoreChapters(compositions, embed);
      const inside = await boundariesInsideTalks(excerpts, embed);
      out(`### ${set.heading}`);
      out();
      out(
        `${set.description.replace('{n}', String(excerpts.length))}: ${results[0]!.truth} true boundaries, ${(speechSeconds / 3600).toFixed(1)} h in all.`,
      );
      out();
      out(`| method | F1 | precision | recall | boundaries found / true |`);
      out(`|---|---|---|---|---|`);
      for (const r of results)
        out(
          `| ${r.method} | ${f1(r)} | ${(r.matched / Math.max(1, r.found)).toFixed(2)} | ${(r.matched / Math.max(1, r.truth)).toFixed(2)} | ${r.found} / ${r.truth} |`,
        );
      out();
      out(
        `Inside one talk: ${inside.found.length} boundaries in ${inside.talks} excerpts alone (${(inside.found.length / inside.talks).toFixed(1)} a talk of ${(inside.minutes / inside.talks).toFixed(1)} min on average). Cost: ${seconds.toFixed(1)} s for ${(speechSeconds / 60).toFixed(0)} min of speech (real-time factor ${(seconds / speechSeconds).toFixed(4)}), nearly all of it the embedding of every block.`,
      );
      const examples = inside.found.filter((_, k) => k % Math.max(1, Math.floor(inside.found.length / 3)) === 0).slice(0, 3);
      if (examples.length > 0)
        out(
          `For example: ${examples.map((e) => `${e.talk}, at ${Math.round(e.at)} s: “…${e.before.split(' ').slice(-10).join(' ')}” | “${e.after.split(' ').slice(0, 12).join(' ')}…”`).join('; ')}.`,
        );
      out();
      serviceF1.set(set.unrelated, f1Of(results[0]!));
    }
    const unrelated = serviceF1.get(true)!;
    const oneGenre = serviceF1.get(false)!;
    const verdict = (f1: number) => (f1 >= 0.8 ? 'met' : 'not met');
    out(
      `Goal F1 ≥ 0.8 on unrelated talks: ${verdict(unrelated)} on the talks on one subject each (${unrelated.toFixed(2)}); on the addresses of one genre ${oneGenre.toFixed(2)}, the goal ${verdict(oneGenre)} there. The texts are written articles and prepared addresses, timed at a steady pace rather than recorded: no long recordings of unrelated talks with a licence to keep them are at hand. Against the platform's own chapters: the one recorded video with chapters (rCAS2eD-mcw, 4 automatic chapters) has no recorded caption text, so that comparison waits for a recording of its captions.`,
    );
    out();
  },
};
