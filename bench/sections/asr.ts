import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { type BenchContext, type BenchSection } from '../harness';

export const asrSection: BenchSection = {
  name: 'asr',
  async run(ctx: BenchContext) {
    const { out } = ctx;
    // --- AI transcription speed: its own stack (the Python recognition worker), its own block of
    // RESULTS.md (bench/results-file.ts), which the write at the end keeps.
    try {
      execFileSync(
        process.execPath,
        [require.resolve('tsx/cli'), path.join(__dirname, '..', 'asr.bench.ts'), '--minutes', process.env.BENCH_LONG_MINUTES ?? '20'],
        { stdio: 'inherit' },
      );
    } catch (e) {
      out(`(asr.bench.ts failed: ${(e as Error).message.split('\n')[0]}; its block below is from an earlier run)`);
      out();
    }
    for (const [script, args] of [['upload.bench.ts', []]] as const) {
      try {
        out(
          execFileSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, '..', script), ...args], {
            encoding: 'utf8',
            maxBuffer: 64 * 1024 * 1024,
          }).trim(),
        );
        out();
      } catch (e) {
        out(`(${script} failed: ${(e as Error).message.split('\n')[0]})`);
      }
    }
  },
};
