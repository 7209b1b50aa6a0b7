import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { type BenchContext, type BenchSection } from '../harness';

/** Growing transcripts: its own stack and its own block of RESULTS.md (bench/growing.bench.ts), kept by the write at the end. */
export const growingSection: BenchSection = {
  name: 'growing',
  async run(ctx: BenchContext) {
    try {
      execFileSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, '..', 'growing.bench.ts')], { stdio: 'inherit' });
    } catch (e) {
      ctx.out(`(growing.bench.ts failed: ${(e as Error).message.split('\n')[0]}; its block is from an earlier run)`);
      ctx.out();
    }
  },
};
