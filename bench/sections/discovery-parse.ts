import { type BenchContext, type BenchSection } from '../harness';

export const discoveryParseSection: BenchSection = {
  name: 'discovery-parse',
  async run(ctx: BenchContext) {
    const { out } = ctx;
    const { discoveryParseBenchMarkdown } = await import('../discovery-parse.bench');
    out(`## Parsing a recorded discovery page against JSON.parse of the same body (goal ≤ 1.5×)`);
    out();
    out(discoveryParseBenchMarkdown());
    out();
  },
};
