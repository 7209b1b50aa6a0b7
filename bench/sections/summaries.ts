import fs from 'node:fs';
import path from 'node:path';
import { readModelAnswer, summarizeTranscript, SUMMARY_PROMPT_WORDS } from '../../domain/transcripts/summary';
import { createChatCompletions, type ChatRequest } from '../../integrations/llm/chat-completions';
import { LLM_MODEL_NAME, llmInstalled, startLlmServer } from '../../stack/llm';
import type { BenchContext, BenchSection } from '../harness';

// Summaries (issue 53, item 5): on at least 20 real talks, how many of the names and numbers a summary states occur
// in the transcript, for what the model answered (the baseline: the same model, the same prompt, nothing checked)
// and for what the service publishes (the sentences that name what the transcript does not, dropped). The names and
// numbers are found by a tagger the service's check does not use (compromise's people, places, organisations and
// numbers), so the figure is not the check grading itself. Then the time to summarise a 10-minute talk, beside the
// same model reading the whole talk uncut.
//
// The talks: excerpts of State of the Union addresses (bench/sets/chapters/sotu-excerpts.json, public domain; about
// 800 words each, some 5 minutes spoken), every fourth of the 90, timed as spoken at 150 words a minute.

const SET = path.resolve(__dirname, '../sets/chapters/sotu-excerpts.json');
const TALKS = 22;
const WORDS_PER_SECOND = 2.5;

interface Excerpt {
  year: number;
  name: string;
  sentences: string[];
}

function segmentsOf(sentences: string[]): Array<{ start: number; text: string }> {
  let t = 0;
  return sentences.map((text) => {
    const start = t;
    t += text.split(/\s+/).length / WORDS_PER_SECOND + 0.4;
    return { start, text };
  });
}

const nlp = require('compromise') as typeof import('compromise').default;

/** The names and numbers a text states, by compromise's tagger: each with whether the transcript holds it. */
function statedClaims(text: string, transcript: { words: Set<string>; numbers: Set<number>; lower: string }) {
  const doc = nlp(text);
  const names = [...doc.people().out('array'), ...doc.places().out('array'), ...doc.organizations().out('array')] as string[];
  const claims: Array<{ claim: string; supported: boolean }> = [];
  for (const name of names) {
    const words = (name.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && w !== 's');
    if (words.length > 0) claims.push({ claim: name, supported: words.every((w) => transcript.words.has(w)) });
  }
  for (const n of doc.numbers().json() as Array<{ number?: { num?: number }; text: string }>) {
    const value = n.number?.num;
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    claims.push({ claim: n.text, supported: transcript.numbers.has(value) || transcript.lower.includes(n.text.toLowerCase().trim()) });
  }
  return claims;
}

function transcriptFacts(text: string) {
  const numbers = new Set<number>();
  for (const n of nlp(text).numbers().json() as Array<{ number?: { num?: number } }>)
    if (typeof n.number?.num === 'number') numbers.add(n.number.num);
  return { words: new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []), numbers, lower: text.toLowerCase() };
}

const allText = (s: { text: string; key_points: string[] }) => [s.text, ...s.key_points].join('\n');

export const summariesSection: BenchSection = {
  name: 'summaries',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const { out } = ctx;
    if (!llmInstalled()) throw new Error('the summaries bench needs the embedded model: bash stack/llm-setup.sh');
    const excerpts = (JSON.parse(fs.readFileSync(SET, 'utf8')) as { excerpts: Excerpt[] }).excerpts;
    const talks = excerpts.filter((_, i) => i % 4 === 0).slice(0, TALKS);
    const server = await startLlmServer({ threads: 2, prefix: '' });
    try {
      const client = createChatCompletions({
        baseUrl: server.baseUrl,
        model: LLM_MODEL_NAME,
        apiKey: null,
        timeoutMs: 600_000,
        loopbackOnly: true,
      });
      let lastAnswer = '';
      const recording = {
        model: client.model,
        async complete(req: ChatRequest) {
          const a = await client.complete(req);
          lastAnswer = a.text;
          return a;
        },
      };
      const raw = { claims: 0, supported: 0 };
      const published = { claims: 0, supported: 0 };
      let written = 0;
      let dropped = 0;
      let emptied = 0;
      const seconds: number[] = [];
      const examples: string[] = [];
      const droppedFor: string[] = [];
      for (const talk of talks) {
        const segments = segmentsOf(talk.sentences);
        const facts = transcriptFacts(talk.sentences.join(' '));
        const t0 = Date.now();
        const outcome = await summarizeTranscript({ segments, chapters: [], language: 'en' }, recording);
        seconds.push((Date.now() - t0) / 1000);
        const answer = readModelAnswer(lastAnswer);
        for (const [tally, text] of [
          [raw, allText({ text: answer.summary, key_points: answer.keyPoints })],
          [published, allText(outcome.summary)],
        ] as const) {
          for (const c of statedClaims(text, facts)) {
            tally.claims += 1;
            if (c.supported) tally.supported += 1;
          }
        }
        written += outcome.written;
        dropped += outcome.dropped;
        if (outcome.summary.text === '') emptied += 1;
        if (examples.length < 2) examples.push(`${talk.year} (${talk.name}): ${outcome.summary.text}`);
        droppedFor.push(...outcome.droppedFor);
        console.log(
          `[bench] summary ${talk.year}: ${seconds.at(-1)!.toFixed(1)} s, dropped ${outcome.dropped}/${outcome.written} for ${outcome.droppedFor.join(', ')}`,
        );
      }
      // A 10-minute talk: two excerpts read one after the other (about 1,600 words at 150 a minute).
      const long = segmentsOf([...talks[0]!.sentences, ...talks[1]!.sentences]);
      const longWords = long.reduce((n, s) => n + s.text.split(/\s+/).length, 0);
      const timedRun = async (budget: number) => {
        const t0 = Date.now();
        const o = await summarizeTranscript({ segments: long, chapters: [], language: 'en' }, client, undefined, budget);
        return { seconds: (Date.now() - t0) / 1000, promptWords: o.promptWords };
      };
      const cut = await timedRun(SUMMARY_PROMPT_WORDS);
      const whole = await timedRun(Number.POSITIVE_INFINITY);
      const pctOf = (t: { claims: number; supported: number }) =>
        `${((100 * t.supported) / Math.max(1, t.claims)).toFixed(1)} % (${t.supported}/${t.claims})`;
      const sorted = [...seconds].sort((a, b) => a - b);
      out(`## Summaries (issue 53)`);
      out();
      out(
        `${talks.length} real talks (State of the Union excerpts of about 800 words, bench/sets/chapters; public domain), each summarised by ${LLM_MODEL_NAME} on llama.cpp (xllamacpp, 2 threads) as the summary workers do it. Names (people, places, organisations) and numbers are found in the summary and its key points by compromise's tagger, which the service's own check does not use, and looked up in the transcript. The baseline is the model's answer as it came; the service publishes it with every sentence or point that names a name or number the transcript does not hold left out.`,
      );
      out();
      out(`| | names and numbers found in the transcript | goal |`);
      out(`|---|---|---|`);
      out(`| the model's answer (baseline) | ${pctOf(raw)} | |`);
      out(`| the published summary | ${pctOf(published)} | ≥ 98 % |`);
      out();
      out(
        `Sentences and points left out: ${dropped} of ${written} (${((100 * dropped) / Math.max(1, written)).toFixed(1)} %); summaries left with no sentence: ${emptied} of ${talks.length}. Time per talk: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} s, slowest ${sorted.at(-1)!.toFixed(1)} s.`,
      );
      out();
      out(`| a 10-minute talk (${longWords} words) | words read | seconds | goal |`);
      out(`|---|---|---|---|`);
      out(
        `| the service (each tenth read from its start, ${SUMMARY_PROMPT_WORDS} words in all) | ${cut.promptWords} | ${cut.seconds.toFixed(1)} | ≤ 60 s |`,
      );
      out(`| baseline: the same model reading the whole talk | ${whole.promptWords} | ${whole.seconds.toFixed(1)} | |`);
      out();
      out(`What left sentences out (names and numbers not in the transcript): ${droppedFor.join(', ') || 'nothing'}.`);
      out();
      out(`Examples: ${examples.map((e) => `“${e}”`).join(' ')}`);
      out();
    } finally {
      await server.stop();
    }
  },
};
