import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';

// Deploys that cannot break running jobs: every history in test/histories/ (one per workflow type and path,
// recorded from real runs by test/replay/record-histories.test.ts) must replay against the workflow code of
// this commit. A change that makes a workflow issue different commands for the same history fails here,
// before it lands, instead of failing the workflows in flight when it is deployed. The rule for changing a
// workflow (README, "Changing a workflow"): guard the new behaviour with patched(), and the demonstration
// below shows it on a small workflow recorded before its change.

const HISTORIES = path.resolve(__dirname, '../histories');
const read = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8')));
const logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never;

/** Every history of `files` replayed by the workflows of `workflowsPath`: the failures, by file. */
async function replay(workflowsPath: string, files: string[]): Promise<Record<string, string>> {
  const failures: Record<string, string> = {};
  const histories = files.map((file) => ({ workflowId: file, history: read(file) }));
  for await (const result of Worker.runReplayHistories(
    { workflowsPath, replayName: 'histories', bundlerOptions: { logger } } as never,
    histories,
  )) {
    if (result.error) failures[result.workflowId] = `${result.error.name}: ${result.error.message}`;
  }
  return failures;
}

const SERVICE_HISTORIES = [
  'batch.json',
  'job-auto-captions.json',
  'job-cancelled.json',
  'job-captions-only.json',
  'job-growing.json',
  'job-search-index.json',
  'job-spec-transcribe.json',
  'job-transcribe.json',
  'job-word-timing.json',
  'language-discovery.json',
  'upload-verification.json',
  'video-discovery.json',
  'webhook-delivery.json',
];

it("replays a recorded history of every workflow type against this commit's workflows", async () => {
  const files = fs.readdirSync(HISTORIES).filter((f) => f.endsWith('.json') && !f.startsWith('demo-'));
  expect(files.sort()).toEqual(expect.arrayContaining(SERVICE_HISTORIES));
  expect(await replay(require.resolve('../../workflows'), files)).toEqual({});
}, 120_000);

/** The plan a job history's first step answered (startJob's result, a local activity's marker). */
function recordedPlan(file: string): Record<string, unknown> {
  const raw = fs.readFileSync(path.join(HISTORIES, file), 'utf8');
  for (const [, data] of raw.matchAll(/"data": ?"([A-Za-z0-9+/=]{40,})"/g)) {
    const text = Buffer.from(data!, 'base64').toString('utf8');
    if (text.includes('"holdId"')) return JSON.parse(text) as Record<string, unknown>;
  }
  throw new Error(`no plan in ${file}`);
}

it('holds job histories of both plan shapes: the options as fields of their own (before the spec), and the spec', () => {
  // Both replay above: a deploy of the spec runs the jobs started before it, and the plan reader stays for them.
  expect(recordedPlan('job-transcribe.json')).toMatchObject({ mode: 'transcribe', speakerLabels: true });
  expect(recordedPlan('job-transcribe.json')).not.toHaveProperty('spec');
  expect(recordedPlan('job-spec-transcribe.json')).toMatchObject({ spec: { mode: 'transcribe', speaker_labels: true, profile: 'fast' } });
});

describe('the rule for changing a workflow, shown on a history recorded before the change', () => {
  const before = ['demo-greeting-v1.json'];

  it('replays under the code it was recorded with', async () => {
    expect(await replay(require.resolve('./greeting-v1'), before)).toEqual({});
  }, 60_000);

  it('replays after a change guarded by patched()', async () => {
    expect(await replay(require.resolve('./greeting-v2-patched'), before)).toEqual({});
  }, 60_000);

  it('fails on the same change made without patched(): the check a breaking deploy meets in CI', async () => {
    const failures = await replay(require.resolve('./greeting-v2-unpatched'), before);
    expect(Object.keys(failures)).toEqual(before);
    expect(failures[before[0]!]).toMatch(new RegExp(`^${DeterminismViolationError.name}: `));
  }, 60_000);
});
