// Run as a process of its own (test/stack.test.ts): starts a throwaway stack whose last step fails (the
// recognizer is pointed at a model folder that is not there) and prints, as one JSON line, what the start
// threw and which of this process's children are still alive afterwards. The stack's servers are children
// of this process while they run (they are detached into process groups of their own, not from us), so
// anything listed there is a server the failed start left behind.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../stack/proc';
import { startThrowawayStack } from '../../stack/throwaway-stack';

function liveChildren(): string[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(ppid) !== process.pid || state === 'Z') return [];
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
        // tsx's own esbuild service, which this script runs under.
        return /\/esbuild --service/.test(cmdline) ? [] : [cmdline];
      } catch {
        return [];
      }
    });
}

async function main() {
  const [pgPort, temporalPort] = process.argv.slice(2).map(Number);
  let error: string | null = null;
  try {
    const stack = await startThrowawayStack({
      name: 'failing',
      pgPort: pgPort!,
      temporalPort: temporalPort!,
      recognizer: true,
      recognizerEnv: { WHISPER_MODEL_DIR: '/nonexistent-model' },
    });
    await stack.stop();
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  // Its files too: the dev server's SQLite file and the recognizer's folder.
  const files = fs
    .readdirSync(path.join(ROOT, '.data'))
    .filter((f) => f.includes(`failing-${process.pid}`) || f === `failing-data-${process.pid}`);
  console.log(JSON.stringify({ error, left: liveChildren(), files }));
}

void main().then(() => process.exit(0));
