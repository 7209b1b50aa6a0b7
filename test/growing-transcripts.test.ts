import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { request as httpRequest } from 'undici';
import { publishPieceSegments, type PartialSegmentView } from '../domain/jobs/partial-segments';
import { launchChromium, seriousA11yViolations } from './support/browser';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { evalClips } from './support/asr-eval';
import { startJobStack, submit, type JobStack } from './support/job-stack';
import { audioDir, concatWithPauses, ffmpeg } from './support/speech';
import { testTls } from './support/tls';
import { uploadReady } from './support/uploads';

// Growing transcripts on the real stack: a minute of real English speech cut into pieces of at most 20 s,
// recognised by the Python recognition worker; the job's segments are read while it runs, by long poll and as
// Server-Sent Events, and compared with the transcript the job ends with.

let stack: JobStack;
let dir: { dir: string; cleanup: () => Promise<void> };
let talk: string;
let server: Server;
let base: string;
let media: HttpsServer;
let mediaBase: string;

beforeAll(async () => {
  stack = await startJobStack([], { maxPieceMs: 20_000 });
  dir = await audioDir();
  const en = evalClips().filter((c) => c.lang === 'en');
  const wav = await concatWithPauses(
    en.map((c) => c.audio),
    path.join(dir.dir, 'talk.wav'),
    1.5,
  );
  // Uploaded as people do: compressed, at 44.1 kHz (decoded and resampled on the way to the recognizer).
  talk = path.join(dir.dir, 'talk.mp3');
  await ffmpeg(['-i', wav, '-ar', '44100', '-b:a', '64k', talk]);
  // The same file as a direct link on loopback https (the test allowance lets loopback through, nothing else).
  const tls = testTls();
  const body = fs.readFileSync(talk);
  media = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    if (req.url !== '/talk.mp3') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `https://127.0.0.1:${(media.address() as AddressInfo).port}`;
  // A listening server, so the event stream is read as it is written (supertest buffers the whole answer).
  server = stack.api.app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  media.closeAllConnections();
  media.close();
  server.closeAllConnections();
  server.close();
  await stack.close();
  await dir.cleanup();
});

const app = () => stack.api.app;
const FINAL = ['succeeded', 'failed', 'cancelled'];

async function submitTalk(w: TestWorkspace, body: object = {}) {
  const uploadId = await uploadReady(stack.api, w, talk, 'audio/mpeg');
  const res = await submit(stack.api, w.apiKey, { source: { upload_id: uploadId }, mode: 'transcribe', language: 'en', ...body });
  expect(res.status).toBe(202);
  return res.body.id as string;
}

async function transcriptOf(w: TestWorkspace, jobId: string) {
  const job = (await request(app()).get(`/v1/jobs/${jobId}`).set(bearer(w.apiKey)).expect(200)).body;
  expect(job.status).toBe('succeeded');
  return { job, t: (await request(app()).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body };
}

/** The partial segments are the transcript's own segments (speakers and per-region languages aside). */
function expectSameSegments(partial: PartialSegmentView[], final: Array<{ start: number; end: number; text: string; language: string }>) {
  expect(partial.map((s) => s.text)).toEqual(final.map((s) => s.text));
  partial.forEach((s, i) => {
    expect(s.start).toBeCloseTo(final[i]!.start, 2);
    expect(s.end).toBeCloseTo(final[i]!.end, 2);
    expect(s.language).toBe('en');
  });
}

describe('growing transcripts', () => {
  it('long poll: segments readable piece by piece before the job ends, in order, then the same words in the transcript', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const jobId = await submitTalk(w);
    const seen: PartialSegmentView[] = [];
    const answers: Array<{ status: string; count: number; progress: { transcribed_seconds: number; total_seconds: number } | null }> = [];
    let after = 0;
    const until = Date.now() + 240_000;
    for (;;) {
      const res = await request(app()).get(`/v1/jobs/${jobId}/segments`).query({ after, wait: 25 }).set(bearer(w.apiKey)).expect(200);
      answers.push({ status: res.body.status, count: res.body.segments.length, progress: res.body.progress });
      seen.push(...res.body.segments);
      expect(res.body.next_after).toBe(res.body.segments.at(-1)?.seq ?? after);
      after = res.body.next_after;
      if (FINAL.includes(res.body.status)) {
        expect(res.body.segments).toEqual([]);
        break;
      }
      expect(Date.now()).toBeLessThan(until);
    }
    // Words were readable while the job still ran, and progress grew with them.
    const running = answers.filter((a) => !FINAL.includes(a.status) && a.count > 0);
    expect(running.length).toBeGreaterThan(0);
    const done = answers.map((a) => a.progress?.transcribed_seconds ?? 0);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(running[0]!.progress!.transcribed_seconds).toBeLessThan(running[0]!.progress!.total_seconds);
    expect(answers.at(-1)!.progress!.transcribed_seconds).toBe(answers.at(-1)!.progress!.total_seconds);
    // seq 1, 2, …, time order, no speaker while running.
    expect(seen.map((s) => s.seq)).toEqual(seen.map((_, i) => i + 1));
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.start).toBeGreaterThanOrEqual(seen[i - 1]!.start);
    expect(seen.every((s) => s.speaker === null)).toBe(true);

    // The first piece was cut from the start of the upload and recognised while the rest was converted; cutAudio's
    // piece 0 had the same samples, so it was not recognised again: one recognition per piece.
    const history = await stack.api.deps.temporal.workflow.getHandle(`job-${jobId}`).fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      return a ? [a.activityType?.name] : [];
    });
    expect(scheduled.filter((n) => n === 'cutLeadingPiece')).toHaveLength(1);
    expect(scheduled.indexOf('recognizePiece')).toBeLessThan(scheduled.indexOf('cutAudio'));
    const pieces = scheduled.filter((n) => n === 'publishPieceSegments').length;
    expect(pieces).toBeGreaterThan(1);
    expect(scheduled.filter((n) => n === 'recognizePiece')).toHaveLength(pieces);

    const { job, t } = await transcriptOf(w, jobId);
    expect(job.progress).toEqual({ transcribed_seconds: t.duration_seconds, total_seconds: t.duration_seconds });
    expectSameSegments(seen, t.segments);
    // The segments gave way to the transcript: none is left, and none can be published after the end.
    expect(await stack.api.deps.db.jobSegment.count({ where: { jobId } })).toBe(0);
    expect(
      await publishPieceSegments(stack.api.deps.db, jobId, 99, 10_000_000, [{ start: 0, end: 1, text: 'late', language: 'en' }]),
    ).toEqual({
      published: 0,
    });
  }, 300_000);

  it('Server-Sent Events: segment events as they are published, then the job; Last-Event-ID resumes; other workspaces get 404', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const jobId = await submitTalk(w, { redact_pii: true, redact_pii_types: ['email'] });
    const res = await httpRequest(`${base}/v1/jobs/${jobId}/events`, { headers: { authorization: `Bearer ${w.apiKey}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const events: Array<{ id?: string; event?: string; data: unknown; runningWhenRead?: boolean }> = [];
    let buffered = '';
    for await (const chunk of res.body) {
      buffered += chunk.toString();
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const fields = Object.fromEntries(
          frame
            .split('\n')
            .filter((l) => !l.startsWith(':') && l.includes(': '))
            .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
        );
        if (fields.data === undefined) continue;
        const e = { id: fields.id, event: fields.event, data: JSON.parse(fields.data) };
        if (e.event === 'segment' && !events.some((x) => x.event === 'segment')) {
          const now = await request(app()).get(`/v1/jobs/${jobId}`).set(bearer(w.apiKey)).expect(200);
          events.push({ ...e, runningWhenRead: !FINAL.includes(now.body.status) });
        } else events.push(e);
      }
    }
    const segments = events.filter((e) => e.event === 'segment');
    expect(segments.length).toBeGreaterThan(0);
    expect(segments.map((e) => e.id)).toEqual(segments.map((_, i) => String(i + 1)));
    expect(segments[0]!.runningWhenRead).toBe(true);
    expect(events.filter((e) => e.event === 'progress').length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ event: 'job', data: { id: jobId, status: 'succeeded' } });
    const { t } = await transcriptOf(w, jobId);
    expectSameSegments(
      segments.map((e) => e.data as PartialSegmentView),
      t.segments,
    );

    // A reconnect after the end: nothing twice, only the job.
    const again = await request(app()).get(`/v1/jobs/${jobId}/events`).set(bearer(w.apiKey)).set('Last-Event-ID', '3').expect(200);
    expect(again.text).not.toContain('event: segment');
    expect(again.text).toContain('event: job');
    const other = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const hidden = await request(app()).get(`/v1/jobs/${jobId}/events`).set(bearer(other.apiKey)).expect(404);
    expect(hidden.body.error).toMatchObject({ code: 'NOT_FOUND', details: { detail: 'id' } });
    await request(app()).get(`/v1/jobs/${jobId}/segments`).set(bearer(other.apiKey)).expect(404);
  }, 300_000);

  it('MCP wait_for_job: a running job comes with its words so far and their count, only the new ones when asked', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const jobId = await submitTalk(w, { disfluencies: false });
    const client = new Client({ name: 'growing-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(w.apiKey) } }));
    try {
      type Answer = {
        done: boolean;
        so_far: {
          count: number;
          segments: PartialSegmentView[];
          next_after: number;
          progress: { transcribed_seconds: number } | null;
        } | null;
      };
      const seen: PartialSegmentView[] = [];
      let after = 0;
      let runningWithWords = 0;
      for (let i = 0; i < 120; i++) {
        const res = (await client.callTool({
          name: 'wait_for_job',
          arguments: { job_id: jobId, timeout_seconds: 2, so_far_after: after },
        })) as {
          structuredContent: Answer;
          content: Array<{ type: string; text: string }>;
        };
        const a = res.structuredContent;
        if (a.done) {
          expect(a.so_far).toBeNull();
          break;
        }
        expect(a.so_far).not.toBeNull();
        // Only the segments after so_far_after; the count is of all of them.
        expect(a.so_far!.segments.every((s) => s.seq > after)).toBe(true);
        seen.push(...a.so_far!.segments);
        expect(a.so_far!.count).toBe(seen.length);
        if (a.so_far!.count > 0) {
          runningWithWords += 1;
          expect(res.content[0]!.text).toContain(`${a.so_far!.count} segment(s) so far`);
        }
        after = a.so_far!.next_after;
      }
      expect(runningWithWords).toBeGreaterThan(0);
      const { t } = await transcriptOf(w, jobId);
      expect(seen.map((s) => s.text)).toEqual(t.segments.slice(0, seen.length).map((s: { text: string }) => s.text));
    } finally {
      await client.close();
    }
  }, 300_000);

  it('dashboard: the job page shows the transcript growing, then the job done (Chromium)', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const signIn = await request(app()).post('/app/sign-in').type('form').send({ email: w.email, password: w.password });
    expect(signIn.status).toBe(303);
    const chromium = await launchChromium();
    try {
      const context = await chromium.browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
      await context.addCookies(
        (signIn.headers['set-cookie'] as unknown as string[]).map((c) => {
          const [name, ...value] = c.split(';')[0]!.split('=');
          return { name: name!, value: value.join('='), url: base };
        }),
      );
      const page = await context.newPage();
      const jobId = await submitTalk(w);
      await page.goto(`/dashboard/jobs/${jobId}`);
      const soFar = page.getByRole('list', { name: 'Transcript so far' }).getByRole('listitem');
      await soFar.first().waitFor({ timeout: 120_000 });
      // Words on the page while the job still runs, with how far it got.
      const status = ((await page.locator('[data-job-status]').textContent()) ?? '').trim();
      const shown = await soFar.allTextContents();
      expect(['queued', 'processing']).toContain(status);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown[0]).toMatch(/^0:\d\d \S/);
      expect(await page.locator('[data-job-progress]').textContent()).toMatch(/\d+ of \d+ s transcribed\./);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Open the transcript' }).waitFor({ timeout: 240_000 });
      const { t } = await transcriptOf(w, jobId);
      // What the page showed is the transcript's beginning.
      expect(shown.map((line) => line.replace(/^\S+ /, ''))).toEqual(
        t.segments.slice(0, shown.length).map((x: { text: string }) => x.text),
      );
    } finally {
      await chromium.close();
    }
  }, 400_000);

  it('the transcript is byte for byte what the whole-file path gives: an upload (leading piece) and the same file as a direct link (none)', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const uploaded = await submitTalk(w);
    const linked = await submit(stack.api, w.apiKey, { source: { url: `${mediaBase}/talk.mp3` }, mode: 'transcribe', language: 'en' });
    expect(linked.status).toBe(202);
    for (const id of [uploaded, linked.body.id]) {
      for (let i = 0; i < 12; i++) {
        const res = await request(app()).get(`/v1/jobs/${id}`).query({ wait: 25 }).set(bearer(w.apiKey));
        if (FINAL.includes(res.body.status)) break;
      }
    }
    const a = (await transcriptOf(w, uploaded)).t;
    const b = (await transcriptOf(w, linked.body.id)).t;
    const history = await stack.api.deps.temporal.workflow.getHandle(`job-${uploaded}`).fetchHistory();
    expect((history.events ?? []).some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'cutLeadingPiece')).toBe(true);
    for (const field of ['text', 'segments', 'words', 'language', 'languages', 'duration_seconds', 'recognition'] as const)
      expect(JSON.stringify(a[field])).toBe(JSON.stringify(b[field]));
  }, 400_000);

  it('bad reads get the envelope naming the field', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [query, field] of [
      [{ after: -1 }, 'after'],
      [{ after: 'x' }, 'after'],
      [{ wait: 26 }, 'wait'],
      [{ limit: 3 }, 'limit'],
    ] as const) {
      const res = await request(app()).get(`/v1/jobs/${id}/segments`).query(query).set(bearer(w.apiKey)).expect(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: expect.stringContaining(field) } });
      expect(res.body.error.request_id ?? res.body.request_id).toBeTruthy();
    }
    await request(app()).get(`/v1/jobs/${id}/segments`).set(bearer(w.apiKey)).expect(404);
    await request(app()).get(`/v1/jobs/${id}/events`).query({ after: 'x' }).set(bearer(w.apiKey)).expect(422);
  });
});
