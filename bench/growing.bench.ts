// Growing transcripts (issue 54, item 1): how soon the first words of a long upload are readable, beside the
// floors measured in the same run. On a private stack (bench/asr-stack.ts: PostgreSQL, Temporal, the Python
// recognition worker, the API and a job worker), as a client does it: upload, POST /v1/jobs, then long polls of
// GET /v1/jobs/{id}/segments until the first segment arrives.
// Run: npx tsx bench/growing.bench.ts [--minutes 119]   (npm run bench -- --only=growing runs it too)
//
//  1. A long upload (default 119 min, under the 2-hour limit) of real speech: the English clips of
//     ../shared/asr-eval with 1.5 s pauses, looped, as 32 kb/s mono MP3. Time from POST /v1/jobs to the first
//     segment, with the job's stages on the way (measuring, converting and cutting the audio before any
//     recognition). The stack is stopped once the first words are read (the rest would take the better part of
//     an hour on 2 cores).
//  2. The same for a 10-minute upload, run to its end: the first segment against the job's end, which is when the
//     first words were readable before this (the transcript was the only answer).

import { loadavg } from 'node:os';
import path from 'node:path';
import { evalClips } from '../test/support/asr-eval';
import { audioDir, concatWithPauses, ffmpeg } from '../test/support/speech';
import { startAsrStack } from './asr-stack';
import { writeBlock } from './results-file';

const argIdx = process.argv.indexOf('--minutes');
const LONG_MINUTES = argIdx > 0 ? Number(process.argv[argIdx + 1]) : 119;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main() {
  const dir = await audioDir();
  const talk = await concatWithPauses(
    evalClips()
      .filter((c) => c.lang === 'en')
      .map((c) => c.audio),
    path.join(dir.dir, 'talk.wav'),
    1.5,
  );
  const loop = async (minutes: number) => {
    const out = path.join(dir.dir, `talk-${minutes}min.mp3`);
    await ffmpeg(['-stream_loop', '-1', '-i', talk, '-t', String(minutes * 60), '-ac', '1', '-ar', '16000', '-b:a', '32k', out]);
    return out;
  };
  const long = await loop(LONG_MINUTES);
  const ten = await loop(10);
  const stack = await startAsrStack({ name: 'growing', pgPort: 54389, temporalPort: 7323 });
  try {
    /** Submits `file`, follows its stages and segments; the time of each from POST /v1/jobs. */
    async function firstWords(file: string, opts: { toEnd: boolean; waitForCut?: boolean }) {
      const { id, postedAt } = await stack.submit(file, { language: 'en' });
      const stages = new Map<string, number>();
      let watching = true;
      const watch = (async () => {
        while (watching) {
          const s = await stack.jobStage(id);
          const key = s.stage ?? s.status;
          if (!stages.has(key)) stages.set(key, performance.now() - postedAt);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      let first: { ms: number; text: string } | null = null;
      let after = 0;
      let endMs: number | null = null;
      while (!first || (opts.toEnd && endMs === null)) {
        const page = await stack.readSegments(id, after, 25);
        if (!first && page.segments.length > 0) first = { ms: performance.now() - postedAt, text: page.segments[0]!.text };
        after = page.next_after;
        if (['succeeded', 'failed', 'cancelled'].includes(page.status)) {
          if (page.status !== 'succeeded') throw new Error(`the job ended ${page.status}`);
          endMs = performance.now() - postedAt;
          if (!first) throw new Error('the job ended before any segment was read');
        }
      }
      // The long upload: on until the whole recording is converted and cut (stage wait_asr), which is when its
      // first piece could go to a recognizer before the leading piece (at most 10 minutes).
      const until = performance.now() + 600_000;
      while (opts.waitForCut && !stages.has('wait_asr') && performance.now() < until) await new Promise((r) => setTimeout(r, 500));
      watching = false;
      await watch;
      return { first: first!, endMs, stages: Object.fromEntries(stages) };
    }

    const tenRun = await firstWords(ten, { toEnd: true });
    const longRun = await firstWords(long, { toEnd: false, waitForCut: true });
    const md = [
      `## Growing transcripts (issue 54)`,
      '',
      `Command: \`npx tsx bench/growing.bench.ts\` (or \`npm run bench -- --only=growing\`) · ${new Date().toISOString()} · load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}.`,
      '',
      `Real English speech (the clips of ../shared/asr-eval with 1.5 s pauses, looped) uploaded as 32 kb/s mono MP3, language given, Whisper base on one recognition worker; times from POST /v1/jobs, read by long polls of \`GET /v1/jobs/{id}/segments\`.`,
      '',
      `| Upload | First segment readable | Whole recording converted and cut (stage \`wait_asr\`): the earliest the first piece could start without the leading piece | Job succeeded: the first words before growing transcripts |`,
      `|---|---|---|---|`,
      `| ${LONG_MINUTES} min | **${sec(longRun.first.ms)}** | ${longRun.stages['wait_asr'] === undefined ? 'over 10 min' : sec(longRun.stages['wait_asr'])} | not waited for (about an hour) |`,
      `| 10 min | **${sec(tenRun.first.ms)}** | ${sec(tenRun.stages['wait_asr'] ?? NaN)} | ${sec(tenRun.endMs!)} |`,
      '',
      `Goal: the first words of a two-hour upload within 15 s. The baseline is in the same run: before growing transcripts the first words were readable when the job succeeded, and the first piece could not start before the whole recording was converted and cut.`,
      '',
      `First words read: “${longRun.first.text.slice(0, 120)}”.`,
    ];
    console.log(md.join('\n'));
    writeBlock('growing', md.join('\n'));
  } finally {
    await stack.close();
    await dir.cleanup();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
