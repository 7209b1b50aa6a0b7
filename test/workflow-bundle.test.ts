import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
// Installs the quiet (warnings only) runtime logger the other tests use: a replay worker logs each state change.
import './support/worker';
import pino from 'pino';
import { buildWorkflowBundles, staleBundleReason, workflowCodeOptions, WORKFLOWS_PATH } from '../worker/workflow-bundle';

// The workflows bundled ahead of time (worker/workflow-bundle.ts): a worker started with WORKFLOW_BUNDLE_DIR
// runs the prebuilt bundle instead of bundling for 1.5 s of CPU as it starts, and never one whose files have
// changed since it was built.

const TRACING_MODULES = [require.resolve('../workflows/tracing')];
const HISTORIES = path.resolve(__dirname, 'histories');

describe('prebuilt workflow bundles', () => {
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-bundle-'));
    const built = await buildWorkflowBundles(dir);
    expect(built.map((b) => path.basename(b.file))).toEqual(['plain.js', 'traced.js']);
  }, 60_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists the files each bundle was made from, with their hashes', () => {
    const plain = JSON.parse(fs.readFileSync(path.join(dir, 'plain.manifest.json'), 'utf8'));
    expect(Object.keys(plain.sources)).toEqual(
      expect.arrayContaining(['workflows/job.ts', 'workflows/batch.ts', 'workflows/webhook.ts', 'core/errors.ts']),
    );
    expect(Object.keys(plain.sources).some((f) => f.startsWith('node_modules/@temporalio/workflow/'))).toBe(true);
    expect(Object.keys(plain.sources)).not.toContain('workflows/tracing.ts');
    const traced = JSON.parse(fs.readFileSync(path.join(dir, 'traced.manifest.json'), 'utf8'));
    expect(traced.workflowInterceptorModules).toEqual(['workflows/tracing.ts']);
    expect(Object.keys(traced.sources)).toContain('workflows/tracing.ts');
  });

  it('is the workflow code of this commit: every recorded history replays against the prebuilt bundle', async () => {
    const files = fs.readdirSync(HISTORIES).filter((f) => f.endsWith('.json') && !f.startsWith('demo-'));
    const histories = files.map((f) => ({
      workflowId: f,
      history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES, f), 'utf8'))),
    }));
    const failures: Record<string, string> = {};
    for await (const r of Worker.runReplayHistories(
      { workflowBundle: { codePath: path.join(dir, 'plain.js') }, replayName: 'prebuilt' },
      histories,
    )) {
      if (r.error) failures[r.workflowId] = `${r.error.name}: ${r.error.message}`;
    }
    expect(files.length).toBeGreaterThanOrEqual(10);
    expect(failures).toEqual({});
  }, 120_000);

  it('is used when current, in the variant of the worker’s interceptors', () => {
    const logger = pino({ level: 'silent' });
    expect(workflowCodeOptions(dir, [], logger)).toEqual({ workflowBundle: { codePath: path.join(dir, 'plain.js') }, prebuilt: true });
    expect(workflowCodeOptions(dir, TRACING_MODULES, logger)).toEqual({
      workflowBundle: { codePath: path.join(dir, 'traced.js') },
      prebuilt: true,
    });
    // Without a directory the worker bundles as it starts.
    expect(workflowCodeOptions(undefined, [], logger)).toEqual({ workflowsPath: WORKFLOWS_PATH, prebuilt: false });
  });

  it('is not used once a file it was made from has changed: the worker bundles the current code and says why', () => {
    const stale = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-bundle-stale-'));
    try {
      for (const f of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, f), path.join(stale, f));
      expect(staleBundleReason(stale, [])).toBeNull();
      // As if workflows/job.ts had been edited after the build: its recorded hash no longer matches.
      const manifestFile = path.join(stale, 'plain.manifest.json');
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
      manifest.sources['workflows/job.ts'] = '0'.repeat(64);
      fs.writeFileSync(manifestFile, JSON.stringify(manifest));
      expect(staleBundleReason(stale, [])).toBe('workflows/job.ts changed since the bundle was built');
      const warnings: Record<string, unknown>[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
      expect(workflowCodeOptions(stale, [], logger)).toEqual({ workflowsPath: WORKFLOWS_PATH, prebuilt: false });
      expect(warnings).toEqual([expect.objectContaining({ reason: 'workflows/job.ts changed since the bundle was built' })]);
      // The other variant is still current; an unknown set of interceptors or an empty directory is never used.
      expect(staleBundleReason(stale, TRACING_MODULES)).toBeNull();
      expect(staleBundleReason(stale, ['/elsewhere/interceptors.ts'])).toMatch(/^no prebuilt bundle has the interceptor modules/);
      expect(staleBundleReason(path.join(stale, 'missing'), [])).toMatch(/has no plain bundle$/);
    } finally {
      fs.rmSync(stale, { recursive: true, force: true });
    }
  });
});
