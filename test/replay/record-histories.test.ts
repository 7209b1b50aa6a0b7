import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection, Worker } from '@temporalio/worker';
import request from 'supertest';
import { createWebhookEndpoint, resendDelivery } from '../../domain/webhooks/endpoints';
import { workflowIds } from '../../workflows/definitions';
import { jfkWav } from '../support/voices';
import { evalClips } from '../support/asr-eval';
import { concatWithPauses, ffmpeg } from '../support/speech';
import { bearer, createWorkspace, type TestWorkspace } from '../support/harness';
import { startJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitUntilFinal, type JobStack } from '../support/job-stack';
import type { ReplayRoute } from '../support/replay-origin';
import { uploadReady } from '../support/uploads';
import { loggedDelivery, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// Records one history of each workflow type into test/histories/, which test/replay/histories.test.ts
// replays against the current workflow code on every run. Not part of the suite: run it when a workflow
// type or a path through one is added, and commit the files it writes:
//
//   RECORD_HISTORIES=1 npm test -- test/replay/record-histories.test.ts
//
// Recorded histories are never re-recorded to make a change pass: a change that cannot replay them would
// break the workflows running when it is deployed (README, "Changing a workflow").

const HISTORIES = path.resolve(__dirname, '../histories');
const record = process.env.RECORD_HISTORIES === '1' ? describe : describe.skip;

const SEARCH: ReplayRoute[] = [
  {
    method: 'POST',
    path: '/youtubei/v1/search',
    when: (r) => !/"continuation"/.test(r.body),
    recording: 'videosite/search/search-test-videos-page1.newpipe-mock.json',
  },
];

record('recording workflow histories', () => {
  let stack: JobStack;
  let ws: TestWorkspace;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startJobStack([...SEARCH, ...videositeCaptionRoutes()]);
    ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    receiver = await startWebhookReceiver();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  async function save(name: string, workflowId: string) {
    const handle = stack.api.deps.temporal.workflow.getHandle(workflowId);
    // An accepted request starts its workflow just after answering (domain/workflow-starts.ts): wait for it to exist.
    for (
      let i = 0;
      i < 100 &&
      !(await handle.describe().then(
        () => true,
        () => false,
      ));
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
    await handle.result().catch(() => undefined);
    expect((await handle.describe()).status.name).not.toBe('RUNNING');
    const history = await handle.fetchHistory();
    fs.mkdirSync(HISTORIES, { recursive: true });
    fs.writeFileSync(path.join(HISTORIES, `${name}.json`), `${historyToJSON(history)}\n`);
  }

  async function finished(body: object) {
    const res = await submit(stack.api, ws.apiKey, body);
    expect(res.status).toBe(202);
    return (await waitUntilFinal(stack.api, ws.apiKey, res.body.id, 5)).body as { id: string; status: string };
  }

  it('records a job in each mode, a cancelled job, a batch, discoveries, a webhook delivery and an upload check', async () => {
    // Captions only, with a webhook (the delivery is its own workflow).
    const endpoint = await createWebhookEndpoint(
      stack.api.deps.db,
      stack.api.deps.secretsKey,
      stack.api.deps.addressPolicy,
      ws.workspaceId,
      {
        url: receiver.url,
      },
    );
    receiver.configure({ secret: endpoint.secret });
    const captions = await finished({ source: { url: VIDEO_URL }, mode: 'captions_only', webhook_endpoint_id: endpoint.id });
    expect(captions.status).toBe('succeeded');
    await save('job-captions-only', workflowIds.job(captions.id));
    // The first attempt runs inside the job's workflow; a resend (as from the dashboard) is the delivery workflow.
    const all = await receiver.waitFor((got) => got.some((d) => d.body?.job_id === captions.id), 20_000);
    const eventId = all.find((d) => d.body?.job_id === captions.id)!.event_id;
    const row = await loggedDelivery(stack.api.deps.db, { eventId });
    await resendDelivery(stack.api.deps.db, stack.api.deps.temporal, stack.api.deps.config.TEMPORAL_TASK_QUEUE, ws.workspaceId, row.id);
    let resendId: string | undefined;
    for (let i = 0; i < 100 && !resendId; i++) {
      for await (const wf of stack.api.deps.temporal.workflow.list({ query: `WorkflowType = 'webhookDeliveryWorkflow'` }))
        if (wf.workflowId.startsWith(`webhook-${eventId}-resend-`)) resendId = wf.workflowId;
      if (!resendId) await new Promise((r) => setTimeout(r, 100));
    }
    await save('webhook-delivery', resendId!);

    const auto = await finished({ source: { url: VIDEO_URL }, mode: 'auto', caption_languages: ['de'] });
    await save('job-auto-captions', workflowIds.job(auto.id));
    const timed = await finished({ source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['fr'], word_timing: true });
    await save('job-word-timing', workflowIds.job(timed.id));

    // An upload: its verification, then AI transcription with speaker labels.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'histories-'));
    const wav = await jfkWav(path.join(dir, 'jfk.wav'));
    const uploadId = await uploadReady(stack.api, ws, wav, 'audio/wav');
    fs.rmSync(dir, { recursive: true, force: true });
    await save('upload-verification', workflowIds.uploadVerify(uploadId));
    const transcribed = await finished({ source: { upload_id: uploadId }, mode: 'transcribe', speaker_labels: true });
    expect(transcribed.status).toBe('succeeded');
    await save('job-transcribe', workflowIds.job(transcribed.id));

    // A job cancelled while it waits for captions.
    stack.origin.setRoutes([...SEARCH, ...videositeCaptionRoutes({ captionDelayMs: 5000 })]);
    const slow = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['es'] });
    await new Promise((r) => setTimeout(r, 1000));
    await request(stack.api.app)
      .post(`/v1/jobs/${slow.body.id}/cancel`)
      .set(bearer(ws.apiKey))
      .expect((r) => expect([200, 202]).toContain(r.status));
    await save('job-cancelled', workflowIds.job(slow.body.id));
    stack.origin.setRoutes([...SEARCH, ...videositeCaptionRoutes()]);

    const batch = await request(stack.api.app)
      .post('/v1/batches')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', randomUUID())
      .send({
        items: [
          { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['it'] },
          { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['ja'] },
        ],
      });
    expect(batch.status).toBe(202);
    {
      for (let i = 0; i < 100; i++) {
        const b = await request(stack.api.app).get(`/v1/batches/${batch.body.id}`).set(bearer(ws.apiKey));
        if (b.body.status !== 'processing' && b.body.status !== 'queued') break;
        await new Promise((r) => setTimeout(r, 200));
      }
      await save('batch', workflowIds.batch(batch.body.id));
    }

    const search = await request(stack.api.app)
      .post('/v1/video-discoveries')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', randomUUID())
      .send({ kind: 'videosite_search', query: 'test', limit: 5 });
    expect(search.status).toBe(202);
    await save('video-discovery', workflowIds.videoDiscovery(search.body.id));
    const languages = await request(stack.api.app)
      .post('/v1/language-discoveries')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', randomUUID())
      .send({ source: { url: VIDEO_URL } });
    expect([200, 202]).toContain(languages.status);
    await save('language-discovery', workflowIds.languageDiscovery(languages.body.id));
  }, 300_000);

  // A job whose plan carries the spec (issue 51): recorded beside the histories of before, so both shapes replay.
  it('records a job whose plan carries the spec', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'histories-'));
    const wav = await jfkWav(path.join(dir, 'jfk.wav'));
    const uploadId = await uploadReady(stack.api, ws, wav, 'audio/wav');
    fs.rmSync(dir, { recursive: true, force: true });
    const transcribed = await finished({
      source: { upload_id: uploadId },
      mode: 'transcribe',
      language: 'en',
      profile: 'fast',
      vocabulary: ['Kennedy'],
      speaker_labels: true,
      speakers_expected: 1,
    });
    expect(transcribed.status).toBe('succeeded');
    await save('job-spec-transcribe', workflowIds.job(transcribed.id));
  }, 300_000);

  // A job that indexes its transcript for search before publishing it (the patch 'search-index', issue 52).
  it('records a job with its search-index step', async () => {
    const captions = await finished({ source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['de'] });
    expect(captions.status).toBe('succeeded');
    await save('job-search-index', workflowIds.job(captions.id));
  }, 120_000);

  // A long upload whose transcript grows piece by piece, its first piece cut while the rest converts (the patches
  // 'growing-transcripts' and 'leading-piece', issue 54).
  it('records a job with a growing transcript and a leading piece', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'histories-'));
    const talk = await concatWithPauses(
      evalClips()
        .filter((c) => c.lang === 'en')
        .map((c) => c.audio),
      path.join(dir, 'talk.wav'),
      1.5,
    );
    const long = path.join(dir, 'long.mp3');
    await ffmpeg(['-stream_loop', '-1', '-i', talk, '-t', '200', '-ac', '1', '-b:a', '48k', long]);
    const uploadId = await uploadReady(stack.api, ws, long, 'audio/mpeg');
    fs.rmSync(dir, { recursive: true, force: true });
    const grown = await finished({ source: { upload_id: uploadId }, mode: 'transcribe', language: 'en' });
    expect(grown.status).toBe('succeeded');
    await save('job-growing', workflowIds.job(grown.id));
  }, 300_000);

  it('records the demonstration workflow before its change', async () => {
    const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
    const taskQueue = `greeting-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue,
      workflowsPath: require.resolve('./greeting-v1'),
      activities: { greet: async (name: string) => `Hello, ${name}` },
    });
    const workflowId = `greeting-${randomUUID()}`;
    await worker.runUntil(stack.api.deps.temporal.workflow.execute('greetingWorkflow', { taskQueue, workflowId, args: ['Ada'] }));
    await connection.close();
    await save('demo-greeting-v1', workflowId);
  }, 120_000);
});
