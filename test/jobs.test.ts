import request from 'supertest';
import { getBalance } from '../domain/credits/ledger';
import { rowByColumn } from '../domain/db';
import { bearer, createWorkspace, startTestApi, textBody, type TestWorkspace } from './support/harness';
import { toTranscriptView } from '../domain/transcripts/view';
import { newKey, startJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitFinal, type JobStack } from './support/job-stack';

let stack: JobStack;
let pro: TestWorkspace;

beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes());
  pro = await createWorkspace(stack.api.deps, { plan: 'pro' });
});
afterAll(() => stack.close());

const app = () => stack.api.app;

describe('caption job end to end', () => {
  it('accepts, runs on Temporal, charges 1 credit and serves the transcript', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const before = await getBalance(stack.api.deps.db, ws.workspaceId);
    const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', metadata: { order: '42' } });
    expect(res.status).toBe(202);
    expect(res.headers.location).toBe(`/v1/jobs/${res.body.id}`);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body).toMatchObject({
      status: 'queued',
      stage: 'resolve',
      result_id: null,
      error: null,
      billing: { credits_reserved: 1, credits_charged: 0, kind: 'captions' },
      source: {
        platform: 'videosite',
        media_id: 'rCAS2eD-mcw',
        canonical_url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw',
        upload_id: null,
      },
      options: { mode: 'captions_only', language: null, caption_preference: 'prefer_creator' },
      metadata: { order: '42' },
    });
    // The hold shows in usage while the job runs (or is already settled).
    const done = await waitFinal(stack.api, ws.apiKey, res.body.id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'succeeded',
      stage: null,
      billing: { credits_reserved: 0, credits_charged: 1, kind: 'captions' },
    });
    expect(done.body.result_id).toMatch(/^[0-9a-f-]{36}$/);
    const after = await getBalance(stack.api.deps.db, ws.workspaceId);
    expect(after.available).toBe(before.available - 1);
    expect(after.reserved).toBe(0);

    const t = await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(ws.apiKey)).expect(200);
    expect(t.body).toMatchObject({
      id: done.body.result_id,
      source: { platform: 'videosite', media_id: 'rCAS2eD-mcw' },
      source_origin: 'creator_captions',
      words: null,
      timing_granularity: 'segment',
      recognition: null,
    });
    expect(t.body.segments.length).toBeGreaterThan(3);
    expect(t.body.text.length).toBeGreaterThan(10);
    expect(typeof t.body.extraction_version).toBe('string');
    expect(t.body.language).toBeTruthy();

    const srt = await request(app())
      .get(`/v1/transcripts/${done.body.result_id}/export`)
      .query({ format: 'srt' })
      .set(bearer(ws.apiKey))
      .expect(200);
    expect(srt.headers['content-type']).toMatch(/^text\/srt/);
    expect(srt.headers['content-disposition']).toMatch(/^attachment; filename=".+\.srt"/);
    expect(srt.text).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> /);

    // Served from the JSON stored with it (domain/transcripts/view.ts), byte for byte the view of its row.
    const row = await stack.api.deps.db.transcript.findUniqueOrThrow({ where: { id: done.body.result_id } });
    const json = await request(app())
      .get(`/v1/transcripts/${done.body.result_id}/export`)
      .query({ format: 'json' })
      .set(bearer(ws.apiKey))
      .buffer(true)
      .parse(textBody)
      .expect(200);
    expect(json.body).toBe(`${JSON.stringify(toTranscriptView(row))}\n`);
    expect(await stack.api.deps.db.transcriptRendering.count({ where: { transcriptId: row.id } })).toBe(1);
  });

  it('reuses a retained transcript for every link form of the same video, free, whatever the metadata', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const first = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    const done = await waitFinal(stack.api, ws.apiKey, first.body.id);
    expect(done.body.status).toBe('succeeded');
    const balance = (await getBalance(stack.api.deps.db, ws.workspaceId)).available;

    for (const url of [
      'https://youtu.be/rCAS2eD-mcw?si=abc',
      'https://m.youtube.com/shorts/rCAS2eD-mcw',
      'https://www.youtube.com/embed/rCAS2eD-mcw',
    ]) {
      const again = await submit(stack.api, ws.apiKey, { source: { url }, mode: 'captions_only', metadata: { other: 'yes' } });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({
        status: 'succeeded',
        result_id: done.body.result_id,
        billing: { kind: 'cached', credits_charged: 0, credits_reserved: 0 },
      });
      expect(again.body.id).not.toBe(first.body.id);
    }
    expect((await getBalance(stack.api.deps.db, ws.workspaceId)).available).toBe(balance);

    // A reuse costs nothing, so it is answered with no credit left and every job slot taken: the accepting
    // statement reads the reuse rule before it reserves anything.
    await stack.api.deps.db.$executeRaw`
      UPDATE credit_accounts SET period_credits = 0, prepaid_credits = 0, active_jobs = 1000000 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const broke = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect(broke.status).toBe(200);
    expect(broke.body).toMatchObject({ status: 'succeeded', result_id: done.body.result_id, billing: { kind: 'cached' } });
    const refused = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['de'] });
    expect(refused.status).toBe(402);
    await stack.api.deps.db.$executeRaw`
      UPDATE credit_accounts SET prepaid_credits = 1000, active_jobs = 0 WHERE workspace_id = ${ws.workspaceId}::uuid`;

    // Other options are another result.
    const other = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['fr'] });
    expect(other.status).toBe(202);
    await waitFinal(stack.api, ws.apiKey, other.body.id);

    // Another workspace never reuses it.
    const stranger = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const theirs = await submit(stack.api, stranger.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect(theirs.status).toBe(202);
    await waitFinal(stack.api, stranger.apiKey, theirs.body.id);
  });

  it('writes a reused job whole in its one accepting statement; its key replays, conflicts and races like any', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const body = { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['en'] };
    const done = await waitFinal(stack.api, ws.apiKey, (await submit(stack.api, ws.apiKey, body)).body.id);

    // The answer is the row as stored: a column the statement missed would read back null or default.
    const key = newKey();
    const reused = await submit(stack.api, ws.apiKey, { ...body, metadata: { order: '7' }, max_credits: 5 }, key);
    expect(reused.status).toBe(200);
    const stored = await request(app()).get(`/v1/jobs/${reused.body.id}`).set(bearer(ws.apiKey)).expect(200);
    expect(stored.body).toEqual(reused.body);
    expect(stored.body).toMatchObject({
      status: 'succeeded',
      result_id: done.body.result_id,
      metadata: { order: '7' },
      options: { caption_languages: ['en'] },
      billing: { kind: 'cached', credits_charged: 0, credits_reserved: 0 },
    });
    const row = await stack.api.deps.db.job.findUniqueOrThrow({ where: { id: reused.body.id } });
    expect(row).toMatchObject({
      maxCredits: 5,
      workflowId: `job-${reused.body.id}`,
      reuseKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      holdId: null,
      workflowStartedAt: null,
    });
    expect(row.finishedAt).toEqual(row.createdAt);

    // Every field of the model has its snake_case column: the statement writes each by that name.
    const columns = await stack.api.deps.db.$queryRaw<{ column_name: string }[]>`
      SELECT column_name FROM information_schema.columns WHERE table_name = 'jobs'`;
    expect(Object.keys(rowByColumn(row)).sort()).toEqual(columns.map((c) => c.column_name).sort());

    const replay = await submit(stack.api, ws.apiKey, { ...body, metadata: { order: '7' }, max_credits: 5 }, key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(stored.body);
    const conflict = await submit(stack.api, ws.apiKey, { ...body, metadata: { order: '8' } }, key);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', details: { detail: 'Idempotency-Key' } });

    const raceKey = newKey();
    const raced = await Promise.all(Array.from({ length: 5 }, () => submit(stack.api, ws.apiKey, body, raceKey)));
    expect(raced.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(raced.map((r) => r.body.id)).size).toBe(1);
    expect(await stack.api.deps.db.job.count({ where: { workspaceId: ws.workspaceId } })).toBe(3);
  });

  it('chooses the caption language by preference order', async () => {
    const res = await submit(stack.api, pro.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['xx', 'de'] });
    const done = await waitFinal(stack.api, pro.apiKey, res.body.id);
    expect(done.body.status).toBe('succeeded');
    const t = await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(pro.apiKey)).expect(200);
    // The track labelled de was chosen; its text (the recorded English track, replayed for every language)
    // is not German, and the transcript says so rather than trusting the label.
    expect(t.body.caption_language_check).toEqual({ label: 'de', detected: 'en', matches: false });
    expect(t.body.language).toBe('en');
    expect(t.body.languages).toEqual([{ language: 'en', seconds: expect.any(Number) }]);
    const timedtext = stack.origin.requests.filter((r) => r.path === '/api/timedtext');
    expect(timedtext[timedtext.length - 1]!.query.get('lang')).toBe('de');
    expect(timedtext[timedtext.length - 1]!.forwardedHost).toBe('www.youtube.com');
  });

  it('fails with LANGUAGE_UNAVAILABLE when none of the languages exists, GET still 200, hold released', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['xx'] });
    const done = await waitFinal(stack.api, ws.apiKey, res.body.id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'failed',
      stage: null,
      result_id: null,
      billing: { credits_reserved: 0, credits_charged: 0 },
    });
    expect(done.body.error).toMatchObject({ code: 'LANGUAGE_UNAVAILABLE', retryable: false });
    expect(typeof done.body.error.details.detail).toBe('string');
    const b = await getBalance(stack.api.deps.db, ws.workspaceId);
    expect(b.reserved).toBe(0);
    expect(b.available).toBe(6000);
  });
});

describe('POST /v1/jobs validation', () => {
  const cases: [string, object, number, string, string][] = [
    [
      'http link',
      { source: { url: 'http://www.youtube.com/watch?v=rCAS2eD-mcw' }, mode: 'captions_only' },
      422,
      'INVALID_URL',
      'source.url',
    ],
    [
      'too long link',
      { source: { url: `https://example.com/${'a'.repeat(2040)}.mp3` }, mode: 'transcribe' },
      422,
      'INVALID_URL',
      'source.url',
    ],
    ['not a link', { source: { url: 'nope' }, mode: 'captions_only' }, 422, 'INVALID_URL', 'source.url'],
    [
      'channel page',
      { source: { url: 'https://www.youtube.com/@somechannel' }, mode: 'captions_only' },
      422,
      'UNSUPPORTED_SOURCE',
      'source.url',
    ],
    [
      'url and upload_id',
      { source: { url: VIDEO_URL, upload_id: '6f1c1c1e-8a52-4a4e-9a57-1b1c2d3e4f50' }, mode: 'captions_only' },
      422,
      'INVALID_REQUEST',
      'source',
    ],
    ['no source', { mode: 'captions_only' }, 422, 'INVALID_REQUEST', 'source'],
    ['bad mode', { source: { url: VIDEO_URL }, mode: 'fast' }, 422, 'INVALID_REQUEST', 'mode'],
    [
      'six languages',
      { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['en', 'de', 'fr', 'es', 'it', 'pt'] },
      422,
      'INVALID_REQUEST',
      'caption_languages',
    ],
    [
      'bad tag',
      { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['english!'] },
      422,
      'INVALID_REQUEST',
      'caption_languages[0]',
    ],
    [
      'bad preference',
      { source: { url: VIDEO_URL }, mode: 'captions_only', caption_preference: 'any' },
      422,
      'INVALID_REQUEST',
      'caption_preference',
    ],
    ['max_credits not integer', { source: { url: VIDEO_URL }, mode: 'auto', max_credits: 1.5 }, 422, 'INVALID_REQUEST', 'max_credits'],
    [
      'eleven metadata values',
      {
        source: { url: VIDEO_URL },
        mode: 'captions_only',
        metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])),
      },
      422,
      'INVALID_REQUEST',
      'metadata',
    ],
    [
      'long metadata key',
      { source: { url: VIDEO_URL }, mode: 'captions_only', metadata: { ['k'.repeat(65)]: 'v' } },
      422,
      'INVALID_REQUEST',
      'metadata',
    ],
    [
      'long metadata value',
      { source: { url: VIDEO_URL }, mode: 'captions_only', metadata: { k: 'v'.repeat(257) } },
      422,
      'INVALID_REQUEST',
      'metadata.k',
    ],
    [
      'non-string metadata',
      { source: { url: VIDEO_URL }, mode: 'captions_only', metadata: { k: 1 } },
      422,
      'INVALID_REQUEST',
      'metadata.k',
    ],
    [
      'unknown webhook endpoint',
      { source: { url: VIDEO_URL }, mode: 'captions_only', webhook_endpoint_id: '6f1c1c1e-8a52-4a4e-9a57-1b1c2d3e4f50' },
      422,
      'INVALID_REQUEST',
      'webhook_endpoint_id',
    ],
    [
      'captions on a direct link',
      { source: { url: 'https://cdn.example.com/talk.mp3' }, mode: 'captions_only' },
      422,
      'CAPABILITY_UNAVAILABLE',
      'mode',
    ],
    [
      'photosocial while off',
      { source: { url: 'https://www.instagram.com/reel/Cabc123/' }, mode: 'captions_only' },
      422,
      'CAPABILITY_UNAVAILABLE',
      'source.url',
    ],
    [
      'unknown upload',
      { source: { upload_id: '6f1c1c1e-8a52-4a4e-9a57-1b1c2d3e4f50' }, mode: 'transcribe' },
      404,
      'NOT_FOUND',
      'source.upload_id',
    ],
    [
      // Both are database reads, made side by side; the source's error is the one answered, every time.
      'unknown upload and unknown webhook endpoint',
      {
        source: { upload_id: '6f1c1c1e-8a52-4a4e-9a57-1b1c2d3e4f50' },
        mode: 'transcribe',
        webhook_endpoint_id: '6f1c1c1e-8a52-4a4e-9a57-1b1c2d3e4f50',
      },
      404,
      'NOT_FOUND',
      'source.upload_id',
    ],
    ['unknown field', { source: { url: VIDEO_URL }, mode: 'captions_only', priority: 'high' }, 422, 'INVALID_REQUEST', 'priority'],
  ];

  it.each(cases)('%s', async (_name, body, status, code, detail) => {
    const res = await submit(stack.api, pro.apiKey, body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.details.detail.startsWith(detail)).toBe(true);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
  });

  it('needs the Idempotency-Key header, 8–128 printable ASCII', async () => {
    const none = await request(app())
      .post('/v1/jobs')
      .set(bearer(pro.apiKey))
      .send({ source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect(none.status).toBe(422);
    expect(none.body.error.details.detail).toBe('Idempotency-Key');
    const short = await submit(stack.api, pro.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' }, 'short');
    expect(short.status).toBe(422);
    expect(short.body.error.details.detail).toBe('Idempotency-Key');
  });

  it('needs a paid plan for AI transcription', async () => {
    const trial = await createWorkspace(stack.api.deps);
    const res = await submit(stack.api, trial.apiKey, { source: { url: VIDEO_URL }, mode: 'auto' });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'PLAN_REQUIRED', details: { detail: 'mode' } });
  });

  it('answers 402 INSUFFICIENT_BALANCE with nothing written', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'starter' });
    await stack.api.deps.db.$executeRaw`UPDATE credit_accounts SET period_credits = 0 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(await stack.api.deps.db.job.count({ where: { workspaceId: ws.workspaceId } })).toBe(0);
    expect(await stack.api.deps.db.idempotencyRecord.count({ where: { workspaceId: ws.workspaceId } })).toBe(0);
  });

  it('needs the jobs:write scope', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro', scopes: ['jobs:read'] });
    const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect(res.status).toBe(403);
    expect(res.body.error.details.detail).toBe('scope:jobs:write');
  });
});

describe('Idempotency-Key', () => {
  it('replays the original job for the same body and refuses another body', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const key = newKey();
    const body = { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['en'], metadata: { a: '1' } };
    const first = await submit(stack.api, ws.apiKey, body, key);
    expect(first.status).toBe(202);
    const replay = await submit(
      stack.api,
      ws.apiKey,
      { metadata: { a: '1' }, caption_languages: ['en'], mode: 'captions_only', source: { url: VIDEO_URL } },
      key,
    );
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    const conflict = await submit(stack.api, ws.apiKey, { ...body, caption_languages: ['fr'] }, key);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', details: { detail: 'Idempotency-Key' } });
    await waitFinal(stack.api, ws.apiKey, first.body.id);
  });

  it('creates one job for two concurrent requests with one key', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const key = newKey();
    const body = { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['es'] };
    const results = await Promise.all(Array.from({ length: 5 }, () => submit(stack.api, ws.apiKey, body, key)));
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.status === 202)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    expect(await stack.api.deps.db.job.count({ where: { workspaceId: ws.workspaceId } })).toBe(1);
    expect(
      (await getBalance(stack.api.deps.db, ws.workspaceId)).reserved +
        (await stack.api.deps.db.creditHold.count({ where: { workspaceId: ws.workspaceId, status: 'charged' } })),
    ).toBe(1);
    await waitFinal(stack.api, ws.apiKey, [...ids][0]!);
  });

  it('keys are per workspace', async () => {
    const a = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const b = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const key = newKey();
    const ra = await submit(stack.api, a.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' }, key);
    const rb = await submit(stack.api, b.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['de'] }, key);
    expect(ra.status).toBe(202);
    expect(rb.status).toBe(202);
    await waitFinal(stack.api, a.apiKey, ra.body.id);
    await waitFinal(stack.api, b.apiKey, rb.body.id);
  });

  it('a key past its 48 hours is free again: the next request with it is a new job, bound to the new record', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const key = newKey();
    const first = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' }, key);
    expect(first.status).toBe(202);
    await waitFinal(stack.api, ws.apiKey, first.body.id);
    await stack.api.deps.db.idempotencyRecord.updateMany({
      where: { workspaceId: ws.workspaceId, key },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    // Another body with the old key: not a conflict any more.
    const second = await submit(
      stack.api,
      ws.apiKey,
      { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['de'] },
      key,
    );
    expect(second.status).toBe(202);
    expect(second.body.id).not.toBe(first.body.id);
    const record = await stack.api.deps.db.idempotencyRecord.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, key } });
    expect(record.resourceId).toBe(second.body.id);
    expect(record.expiresAt.getTime()).toBeGreaterThan(Date.now() + 47 * 3600_000);
    const replay = await submit(
      stack.api,
      ws.apiKey,
      { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['de'] },
      key,
    );
    expect(replay.body.id).toBe(second.body.id);
    await waitFinal(stack.api, ws.apiKey, second.body.id);
  });
});

describe('reading jobs', () => {
  it('lists newest first with a tamper-proof cursor and the platform/source_id filter', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const ids: string[] = [];
    for (const lang of ['en', 'de', 'fr', 'es', 'pt']) {
      const r = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: [lang] });
      ids.push(r.body.id);
    }
    const page1 = await request(app()).get('/v1/jobs').query({ limit: 2 }).set(bearer(ws.apiKey)).expect(200);
    expect(page1.body.jobs.map((j: { id: string }) => j.id)).toEqual([ids[4], ids[3]]);
    const page2 = await request(app())
      .get('/v1/jobs')
      .query({ limit: 2, cursor: page1.body.next_cursor })
      .set(bearer(ws.apiKey))
      .expect(200);
    expect(page2.body.jobs.map((j: { id: string }) => j.id)).toEqual([ids[2], ids[1]]);
    const page3 = await request(app())
      .get('/v1/jobs')
      .query({ limit: 2, cursor: page2.body.next_cursor })
      .set(bearer(ws.apiKey))
      .expect(200);
    expect(page3.body.jobs.map((j: { id: string }) => j.id)).toEqual([ids[0]]);
    expect(page3.body.next_cursor).toBeNull();

    const tampered = page1.body.next_cursor.replace(/^./, (c: string) => (c === 'e' ? 'f' : 'e'));
    const bad = await request(app()).get('/v1/jobs').query({ cursor: tampered }).set(bearer(ws.apiKey));
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'cursor' } });

    const one = await request(app())
      .get('/v1/jobs')
      .query({ platform: 'videosite', source_id: 'rCAS2eD-mcw', limit: 100 })
      .set(bearer(ws.apiKey))
      .expect(200);
    expect(one.body.jobs).toHaveLength(5);
    const none = await request(app())
      .get('/v1/jobs')
      .query({ platform: 'videosite', source_id: 'dQw4w9WgXcQ' })
      .set(bearer(ws.apiKey))
      .expect(200);
    expect(none.body.jobs).toHaveLength(0);
    const half = await request(app()).get('/v1/jobs').query({ platform: 'videosite' }).set(bearer(ws.apiKey));
    expect(half.status).toBe(422);
    const tooMany = await request(app()).get('/v1/jobs').query({ limit: 101 }).set(bearer(ws.apiKey));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.details.detail).toBe('limit');
    for (const id of ids) await waitFinal(stack.api, ws.apiKey, id);
  });

  it("hides other workspaces' jobs and transcripts (404)", async () => {
    const owner = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const stranger = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const r = await submit(stack.api, owner.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    const done = await waitFinal(stack.api, owner.apiKey, r.body.id);
    for (const path of [
      `/v1/jobs/${r.body.id}`,
      `/v1/transcripts/${done.body.result_id}`,
      `/v1/transcripts/${done.body.result_id}/export?format=txt`,
    ]) {
      const res = await request(app()).get(path).set(bearer(stranger.apiKey));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const cancel = await request(app()).post(`/v1/jobs/${r.body.id}/cancel`).set(bearer(stranger.apiKey));
    expect(cancel.status).toBe(404);
    const list = await request(app()).get('/v1/jobs').set(bearer(stranger.apiKey)).expect(200);
    expect(list.body.jobs).toHaveLength(0);
  });

  it('long-polls: woken by the completion on another API instance', async () => {
    const other = await startTestApi({ TEMPORAL_TASK_QUEUE: stack.worker.taskQueue });
    try {
      stack.origin.setRoutes(videositeCaptionRoutes({ captionDelayMs: 1500 }));
      const r = await submit(stack.api, pro.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['vi'] });
      const started = Date.now();
      const res = await request(other.app).get(`/v1/jobs/${r.body.id}`).query({ wait: 20 }).set(bearer(pro.apiKey)).expect(200);
      const waited = Date.now() - started;
      expect(res.body.status).toBe('succeeded');
      expect(waited).toBeGreaterThanOrEqual(1000);
      expect(waited).toBeLessThan(15000);
      // A final job answers at once, not after the 20 s asked for (the bound leaves room for a loaded CI host).
      const t0 = Date.now();
      await request(other.app).get(`/v1/jobs/${r.body.id}`).query({ wait: 20 }).set(bearer(pro.apiKey)).expect(200);
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      stack.origin.setRoutes(videositeCaptionRoutes());
      await other.close();
    }
  });

  it('validates wait', async () => {
    const res = await request(app()).get('/v1/jobs/6f1c1c1e-8a52-4a4e-9a57-1b1c2d3e4f50').query({ wait: 26 }).set(bearer(pro.apiKey));
    expect(res.status).toBe(422);
    expect(res.body.error.details.detail).toBe('wait');
  });
});
