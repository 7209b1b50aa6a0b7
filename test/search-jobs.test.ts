import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SEARCH_INDEX_VERSION } from '../domain/search/index';
import { searchIndexBackfillWorkflow } from '../workflows/search';
import { publishedTranscript } from './support/transcripts';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { startJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitUntilFinal, type JobStack } from './support/job-stack';

// Issue 52: a job's transcript is findable when its job succeeds (the workflow's search-index step), in its own
// workspace only, and no longer once deleted.

let stack: JobStack;
beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes());
}, 60_000);
afterAll(async () => stack?.close());

async function captionsOf(w: TestWorkspace): Promise<{ jobId: string; transcriptId: string; text: string }> {
  const res = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
  expect(res.status).toBe(202);
  const done = await waitUntilFinal(stack.api, w.apiKey, res.body.id, 5);
  expect(done.body.status).toBe('succeeded');
  const t = await request(stack.api.app).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(w.apiKey));
  return { jobId: res.body.id, transcriptId: done.body.result_id, text: t.body.text };
}

const search = (w: TestWorkspace, q: string) => request(stack.api.app).get('/v1/search').query({ q }).set(bearer(w.apiKey));

it("finds a finished job's words in its workspace only, at the moment they are said, until the transcript is deleted", async () => {
  const mine = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const theirs = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const a = await captionsOf(mine);
  const b = await captionsOf(theirs);
  // The transcript's longest word, which its captions say somewhere.
  const word = a.text
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length >= 6)
    .sort((x, y) => y.length - x.length)[0]!;
  expect(word).toBeTruthy();

  const found = await search(mine, word);
  expect(found.status).toBe(200);
  expect(found.body.moments.length).toBeGreaterThan(0);
  for (const m of found.body.moments) {
    expect(m).toMatchObject({ transcript_id: a.transcriptId, job_id: a.jobId, source: { platform: 'videosite', media_id: 'rCAS2eD-mcw' } });
    expect(m.text.toLowerCase()).toContain(word.toLowerCase());
    expect(m.link).toBe(`https://www.youtube.com/watch?v=rCAS2eD-mcw&t=${Math.floor(m.start)}`);
  }
  // The same video in the other workspace: its own transcript, never this one's.
  const other = await search(theirs, word);
  expect(other.body.moments.map((m: { transcript_id: string }) => m.transcript_id)).toEqual(other.body.moments.map(() => b.transcriptId));
  expect(other.body.moments.length).toBe(found.body.moments.length);

  expect((await request(stack.api.app).delete(`/v1/transcripts/${a.transcriptId}`).set(bearer(mine.apiKey))).status).toBe(202);
  expect((await search(mine, word)).body.moments).toEqual([]);
  expect((await search(theirs, word)).body.moments.length).toBe(found.body.moments.length);
}, 120_000);

it('the backfill writes the moments of transcripts written before the index, and a transcript of this version is left as it is', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const said = [{ start: 0, end: 5, text: `Old recording ${i} about marmalade.` }];
    ids.push(await publishedTranscript(stack.api.deps.db, w.workspaceId, said, { platform: 'upload', index: false }));
  }
  expect((await search(w, 'marmalade')).body.moments).toEqual([]);
  const run = () =>
    stack.api.deps.temporal.workflow.execute(searchIndexBackfillWorkflow, {
      taskQueue: stack.api.deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: `search-backfill-test-${randomUUID()}`,
      args: [{ version: SEARCH_INDEX_VERSION, afterId: null, indexed: 0 }],
    });
  expect((await run()).indexed).toBeGreaterThanOrEqual(3);
  const found = (await search(w, 'marmalade')).body.moments.map((m: { transcript_id: string }) => m.transcript_id);
  expect(found.sort()).toEqual([...ids].sort());
  const rows = await stack.api.deps.db.transcript.findMany({ where: { id: { in: ids } }, select: { searchIndexVersion: true } });
  expect(rows.map((r) => r.searchIndexVersion)).toEqual([SEARCH_INDEX_VERSION, SEARCH_INDEX_VERSION, SEARCH_INDEX_VERSION]);
  // Run again: these are of this version, so it does not write them again.
  const before = await stack.api.deps.db.transcriptMoment.findMany({ where: { transcriptId: { in: ids } } });
  await run();
  expect(await stack.api.deps.db.transcriptMoment.findMany({ where: { transcriptId: { in: ids } } })).toEqual(before);
}, 120_000);
