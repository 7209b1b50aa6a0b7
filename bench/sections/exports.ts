import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { type BenchContext, type BenchSection } from '../harness';

export const exportsSection: BenchSection = {
  name: 'exports',
  async run(ctx: BenchContext) {
    const { out } = ctx;
    // --- exports (their own script, one process per transcript kind, same run)
    for (const fixture of ['captions', 'asr']) {
      try {
        const exportOut = execFileSync(
          process.execPath,
          [require.resolve('tsx/cli'), path.join(__dirname, '..', 'export.bench.ts'), '--fixture', fixture],
          { encoding: 'utf8' },
        );
        out(exportOut.trim());
        out();
      } catch (e) {
        out(`(export benchmark ${fixture} failed: ${(e as Error).message})`);
      }
    }
  },
};
