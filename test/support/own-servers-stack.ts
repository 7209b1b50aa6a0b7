// Run as a process of its own (test/stack.test.ts): with DATABASE_URL and TEMPORAL_ADDRESS naming another
// stack's servers, starts a throwaway stack with `ownServers` and prints, as one JSON line, which servers it
// runs on and their pids (live children of this process, as the servers it started are).
import fs from 'node:fs';
import { startThrowawayStack } from '../../stack/throwaway-stack';

const isChild = (pid: number | null) => {
  if (pid === null) return false;
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
};

async function main() {
  const [pgPort, temporalPort] = process.argv.slice(2).map(Number);
  const stack = await startThrowawayStack({ name: 'own-servers', pgPort: pgPort!, temporalPort: temporalPort!, ownServers: true });
  try {
    console.log(
      JSON.stringify({
        dbUrl: stack.dbUrl,
        temporalAddress: stack.temporal.address,
        started: { postgres: stack.pg.started, temporal: stack.temporal.started },
        children: { postgres: isChild(stack.pg.pid), temporal: isChild(stack.temporal.pid) },
      }),
    );
  } finally {
    await stack.stop();
  }
}

void main().then(() => process.exit(0));
