import { type BenchContext, type BenchSection, pct, recognizerPython } from '../harness';

// Real-time recognition (issue 54, item 3): the recognizer's stream engine (recognizer/streaming.py) on every eval
// clip, streamed as a real-time client sends audio, beside the same clip recognised as a file (the baseline).

interface ClipRow {
  clip: string;
  language: string;
  seconds: number;
  units: number;
  stream_errors: number;
  file_errors: number;
  partial_latencies: number[];
  final_latencies: number[];
  finals: number;
  busy_seconds: number;
  file_seconds: number;
}

/** bench/sets/streaming.py: every clip streamed, and recognised as a file. */
const streamEval = () =>
  recognizerPython<{ model: string; final_profile: string; threads: number; clips: ClipRow[] }>(['bench/sets/streaming.py'], {
    env: { LOG_LEVEL: 'warn' },
  });

const s = (n: number) => `${n.toFixed(2)} s`;
const rate = (errors: number, units: number) => `${((100 * errors) / Math.max(1, units)).toFixed(1)} %`;

export const streamingSection: BenchSection = {
  name: 'streaming',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const { out } = ctx;
    const t0 = performance.now();
    const result = await streamEval();
    const clips = result.clips;
    const partials = clips.flatMap((c) => c.partial_latencies);
    const finals = clips.flatMap((c) => c.final_latencies);
    const file = clips.map((c) => c.file_seconds);
    const audio = clips.reduce((a, c) => a + c.seconds, 0);
    const busy = clips.reduce((a, c) => a + c.busy_seconds, 0);
    out(`## Real-time recognition (issue 54)`);
    out();
    out(
      `The stream engine (recognizer/streaming.py: Silero VAD cuts utterances at 0.5 s pauses; a partial every 0.5 s of new speech, greedy; the final with the \`${result.final_profile}\` profile; the encoder given the utterance and a margin, not 30 s) on ${clips.length} clips of the eval sets (${audio.toFixed(0)} s of speech, ${new Set(clips.map((c) => c.language)).size} languages, clips under 25 s), ${result.model}, ${result.threads} threads, one stream at a time. Each clip is streamed with 1 s of silence before and 1.5 s after, in 100 ms chunks, as a real-time client sends it, in process: the stream's clock moves with the audio sent and with every decode (the audio a client would have sent meanwhile), so the figures are those of a client that waits for nothing but the engine, without the network and the WebSocket path (not built yet). Latency: when a segment was ready, minus the end of the last word in it. Baseline: the same clip recognised as a file by the job pipeline's engine (same profile), whose words exist only once the file is whole: its latency is the recognition time after the clip ends.`,
    );
    out();
    out(`| latency after the words are spoken | p50 | p90 | segments | goal |`);
    out(`|---|---|---|---|---|`);
    out(
      `| partial segments (stream) | ${s(pct(partials, 50))} | ${s(pct(partials, 90))} | ${partials.length} | p50 ≤ 0.8 s: ${pct(partials, 50) <= 0.8 ? 'met' : 'not met'} |`,
    );
    out(
      `| final segments (stream) | ${s(pct(finals, 50))} | ${s(pct(finals, 90))} | ${finals.length} | p50 ≤ 1.5 s: ${pct(finals, 50) <= 1.5 ? 'met' : 'not met'} |`,
    );
    out(`| the clip recognised as a file, after its end (baseline) | ${s(pct(file, 50))} | ${s(pct(file, 90))} | ${file.length} | |`);
    out();
    out(
      `The stream's decoding took ${busy.toFixed(0)} s for ${audio.toFixed(0)} s of speech (${(busy / audio).toFixed(2)} of real time, with the silence around the clips sent too): one stream keeps up on two cores, with room for about ${Math.max(1, Math.floor(audio / busy))} at once before they fall behind.`,
    );
    out();
    out(`Accuracy of the final segments against the file's text (word error rate; character error rate for ja, ko), pooled per language:`);
    out();
    out(`| language | clips | stream | file (baseline) |`);
    out(`|---|---|---|---|`);
    const languages = [...new Set(clips.map((c) => c.language))];
    const totals = { units: 0, stream: 0, file: 0 };
    for (const lang of languages) {
      const of = clips.filter((c) => c.language === lang);
      const units = of.reduce((a, c) => a + c.units, 0);
      const stream = of.reduce((a, c) => a + c.stream_errors, 0);
      const fileErrors = of.reduce((a, c) => a + c.file_errors, 0);
      totals.units += units;
      totals.stream += stream;
      totals.file += fileErrors;
      out(`| ${lang} | ${of.length} | ${rate(stream, units)} | ${rate(fileErrors, units)} |`);
    }
    out(`| all (pooled) | ${clips.length} | ${rate(totals.stream, totals.units)} | ${rate(totals.file, totals.units)} |`);
    out();
    out(`Ran in ${((performance.now() - t0) / 1000).toFixed(0)} s.`);
    out();
  },
};
