import { scriptSection } from './script';

/** Growing transcripts: bench/growing.bench.ts on its own stack. */
export const growingSection = scriptSection('growing', 'growing.bench.ts');
