import fs from 'node:fs';
import path from 'node:path';

// bench/RESULTS.md holds the figures of several commands: `npm run bench`
// (bench/run.ts) writes the sections it measures; `npx tsx bench/asr.bench.ts`,
// `npm run eval:asr` (two), `npm run bench:caption-ab`, the servers section of
// `npm run bench` (also alone: `--only=servers`) and `npm run test:scale -- --record`
// each own one marked block
// (`<!-- name:start -->` … `<!-- name:end -->`) that the others keep as it is;
// the `## History` section at the end is written by hand (figures of what was
// replaced) and kept by everyone.

export const RESULTS_FILE = path.join(__dirname, 'RESULTS.md');
export const HISTORY_HEADING = '## History';
/** The blocks other commands own, in the order they appear. */
export const OWNED_BLOCKS = ['caption-ab', 'asr-bench', 'asr-eval', 'asr-sets', 'traces', 'servers', 'search', 'growing', 'scale'] as const;

const start = (name: string) => `<!-- ${name}:start -->`;
const end = (name: string) => `<!-- ${name}:end -->`;

/** The marked block `name` of `text`, markers included; null when absent. */
export function findBlock(text: string, name: string): string | null {
  const a = text.indexOf(start(name));
  const b = text.indexOf(end(name));
  return a >= 0 && b > a ? text.slice(a, b + end(name).length) : null;
}

/** Everything from the History heading on; '' when there is none. */
export function historyOf(text: string): string {
  const i = text.indexOf(`\n${HISTORY_HEADING}\n`);
  return i >= 0 ? text.slice(i + 1) : '';
}

/** Puts `markdown` into RESULTS.md as block `name`: in place of the old one, else before the History. */
export function writeBlock(name: string, markdown: string, file = RESULTS_FILE): void {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmark results\n';
  const block = `${start(name)}\n${markdown.trim()}\n${end(name)}`;
  const old = findBlock(text, name);
  let next: string;
  if (old) next = text.replace(old, block);
  else {
    const history = historyOf(text);
    const head = history ? text.slice(0, text.length - history.length) : text;
    next = `${head.trimEnd()}\n\n${block}\n\n${history}`;
  }
  fs.writeFileSync(file, next.trimEnd() + '\n');
}

/** For a command that rewrites the whole file: its own sections, then the blocks of the others and the History, as they are now. */
export function withKeptSections(ownMarkdown: string, file = RESULTS_FILE): string {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const kept = OWNED_BLOCKS.map((name) => findBlock(text, name)).filter((b): b is string => b !== null);
  const history = historyOf(text);
  return [ownMarkdown.trimEnd(), ...kept, history.trimEnd()].filter((s) => s !== '').join('\n\n') + '\n';
}
