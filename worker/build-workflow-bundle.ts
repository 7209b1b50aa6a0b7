import path from 'node:path';
import { buildWorkflowBundles } from './workflow-bundle';

// `npm run build:workflows [dir]`: the workflows bundled ahead of time (worker/workflow-bundle.ts), by
// default into .data/workflow-bundle; a worker started with WORKFLOW_BUNDLE_DIR=<dir> uses them.
async function main() {
  const dir = path.resolve(process.argv[2] ?? path.join(process.env.DATA_DIR ?? '.data', 'workflow-bundle'));
  const t0 = Date.now();
  for (const b of await buildWorkflowBundles(dir)) {
    console.log(`[workflows] ${b.file}: ${(b.bytes / 1024).toFixed(0)} KiB from ${b.sources} files`);
  }
  console.log(`[workflows] bundled in ${Date.now() - t0} ms; start workers with WORKFLOW_BUNDLE_DIR=${dir}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
