import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { type BenchContext, type BenchSection } from '../harness';

/**
 * A section measured by a script of its own (bench/<script>), on its own stack, that writes its own block of
 * RESULTS.md (kept by the write at the end). A failure leaves the block of an earlier run and says so.
 */
export function scriptSection(name: string, script: string): BenchSection {
  return {
    name,
    async run(ctx: BenchContext) {
      try {
        execFileSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, '..', script)], { stdio: 'inherit' });
      } catch (e) {
        ctx.out(`(${script} failed: ${(e as Error).message.split('\n')[0]}; its block is from an earlier run)`);
        ctx.out();
      }
    },
  };
}
