import { scriptSection } from './script';

/** Live jobs: bench/live.bench.ts on its own stack (an HLS stream aired in real time). */
export const liveSection = scriptSection('live', 'live.bench.ts');
