// Every tool a test starts, built before the first test runs (stack/test.sh calls this after the tooling gate):
// the Temporal CLI (dev server), the production Temporal server with its SQL tool and UI server, MinIO and
// stripe-mock, each from the Go module proxy into .tools/bin. A machine whose Go caches are empty needs about
// half an hour for them; built here, no test waits for a build and no test's time depends on one (a first
// run on a new machine once failed the recognizer's Python tests, out of their time while a test built MinIO
// beside them). A second run only checks that each pinned version is there.
import { ensureMinioServer } from './minio';
import { ensureStripeMock } from './stripe-mock';
import { ensureTemporalCli } from './temporal';
import { ensureTemporalServer } from './temporal-server';

const tools: [string, () => unknown][] = [
  ['Temporal CLI', ensureTemporalCli],
  ['Temporal server (PostgreSQL tier)', ensureTemporalServer],
  ['MinIO', ensureMinioServer],
  ['stripe-mock', ensureStripeMock],
];
for (const [name, ensure] of tools) {
  const t0 = Date.now();
  ensure();
  const seconds = Math.round((Date.now() - t0) / 1000);
  if (seconds > 1) console.log(`[setup] ${name} ready in ${seconds} s`);
}
