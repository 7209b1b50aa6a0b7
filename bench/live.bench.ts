// Live jobs (issue 54, item 2): from audio on air to a readable segment, beside the baselines measured in the
// same run. On a private stack (bench/asr-stack.ts: PostgreSQL, Temporal, the Python recognition worker, the API
// and a job worker). ffmpeg airs real English speech in real time (-re) as HLS with 2 s segments and a sliding
// playlist from a loopback https origin; the client submits the playlist's link and reads the segments by long
// poll. Each segment's latency is when it was first readable minus when its last word aired (ffmpeg's start plus
// the segment's end in the media).
// Run: npx tsx bench/live.bench.ts [--minutes 3]   (npm run bench -- --only=live runs it too)
//
// Baselines, the same recording as a file: uploaded and transcribed by today's pipeline, the time from
// POST /v1/jobs to its first readable segment (the first piece) and to the job's end (the whole recording
// recognised as a file).

import fs from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { airLive, startHlsOrigin } from '../test/support/hls-origin';
import { audioDir, englishTalk, ffmpeg, wordErrorRate } from '../test/support/speech';
import { startAsrStack } from './asr-stack';
import { writeBlock } from './results-file';

const argIdx = process.argv.indexOf('--minutes');
const MINUTES = argIdx > 0 ? Number(process.argv[argIdx + 1]) : 3;
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function main() {
  const dir = await audioDir();
  const once = await englishTalk(dir.dir, { name: 'once' });
  const loops = Math.max(1, Math.round((MINUTES * 60) / once.seconds));
  const { file: talk, reference, seconds } = await englishTalk(dir.dir, { times: loops });
  const mp3 = path.join(dir.dir, 'talk.mp3');
  await ffmpeg(['-i', talk, '-ac', '1', '-b:a', '64k', mp3]);
  const hlsDir = path.join(dir.dir, 'hls');
  fs.mkdirSync(hlsDir);
  const origin = await startHlsOrigin(hlsDir);
  const stack = await startAsrStack({ name: 'live', pgPort: 54391, temporalPort: 7327 });
  try {
    // The baselines first: the same recording as an uploaded file.
    const file = await stack.submit(mp3, { language: 'en' });
    let fileFirstMs: number | null = null;
    let after = 0;
    for (;;) {
      const page = await stack.readSegments(file.id, after, 25);
      if (fileFirstMs === null && page.segments.length > 0) fileFirstMs = performance.now() - file.postedAt;
      after = page.next_after;
      if (['succeeded', 'failed', 'cancelled'].includes(page.status)) break;
    }
    const fileRun = await stack.waitJob(file.id, file.postedAt);
    if (fileRun.status !== 'succeeded') throw new Error(`the file job ended ${fileRun.status}`);

    // The live stream.
    const encoder = await airLive(talk, hlsDir, { name: 'bench', listSize: 10 });
    const live = await stack.submitLink(`${origin.base}/${encoder.playlist}`, { language: 'en' });
    const lags: number[] = [];
    after = 0;
    for (;;) {
      const page = await stack.readSegments(live.id, after, 25);
      const readAt = Date.now();
      if (!['succeeded', 'failed', 'cancelled'].includes(page.status))
        for (const s of page.segments) lags.push(readAt - (encoder.startedAt + s.end * 1000));
      after = page.next_after;
      if (['succeeded', 'failed', 'cancelled'].includes(page.status)) break;
    }
    const airedUntil = encoder.startedAt + seconds * 1000;
    const liveRun = await stack.waitJob(live.id, live.postedAt);
    const transcriptAfterAir = Date.now() - airedUntil;
    if (liveRun.status !== 'succeeded') throw new Error(`the live job ended ${liveRun.status}`);
    const liveWer = wordErrorRate(reference, liveRun.transcript!.text);
    const fileWer = wordErrorRate(reference, fileRun.transcript!.text);
    const md = [
      `## Live jobs (issue 54)`,
      '',
      `Command: \`npx tsx bench/live.bench.ts\` (or \`npm run bench -- --only=live\`) · ${new Date().toISOString()} · load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}.`,
      '',
      `Real English speech (the clips of ../shared/asr-eval with 1 s pauses, ${loops} time(s) over: ${seconds.toFixed(0)} s) aired by ffmpeg in real time as HLS (AAC, 2 s segments, a playlist of the last 10) from a loopback https origin; language given, Whisper base on one recognition worker. Latency of a segment: when a long poll of \`GET /v1/jobs/{id}/segments\` first returned it, minus when its last word aired.`,
      '',
      `| | Segments | Air to readable p50 | p90 | max | Transcript after the stream ended | WER |`,
      `|---|---|---|---|---|---|---|`,
      `| Live job (HLS playlist) | ${lags.length} | **${sec(quantile(lags, 0.5))}** | ${sec(quantile(lags, 0.9))} | ${sec(Math.max(...lags))} | ${sec(transcriptAfterAir)} | ${(liveWer * 100).toFixed(1)} % |`,
      '',
      `| Baseline: the same recording uploaded as a file (MP3) | First segment readable after POST /v1/jobs | Whole recording recognised (job succeeded) | WER |`,
      `|---|---|---|---|`,
      `| ${seconds.toFixed(0)} s | ${sec(fileFirstMs ?? NaN)} | ${sec(fileRun.ms)} | ${(fileWer * 100).toFixed(1)} % |`,
      '',
      `Goal: p50 ≤ 8 s from audio on air to a readable segment with 2 s media segments. A segment waits for its HLS segment to be written (up to 2 s), the playlist read (every 1 s while nothing is new), at least 4 s of audio to cut a piece at a pause, and the recognition of that piece.`,
    ];
    console.log(md.join('\n'));
    writeBlock('live', md.join('\n'));
    await encoder.stop();
  } finally {
    await stack.close();
    await origin.close();
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
