import fs from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { getBalance } from '../domain/credits/ledger';
import { embedPendingMoments } from '../domain/search/embeddings';
import { publishedTranscript } from './support/transcripts';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { startJobStack, videositeCaptionRoutes, VIDEO_URL, type JobStack } from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { audioDir, makeSilence } from './support/speech';
import { testTls } from './support/tls';

// Issue 14: the agent tool server at /mcp over real HTTP (the app listening on
// loopback), driven by the MCP SDK's own client in both protocol generations:
// the 2025 `initialize` handshake (served by the SDK's stateless fallback) and
// the 2026-07-28 era. Platform traffic goes to the loopback replay origin; the
// jobs run on Temporal with a real worker.

const TOOLS = [
  'get_video_transcript',
  'transcribe',
  'wait_for_job',
  'get_job',
  'get_transcript',
  'list_jobs',
  'search_videosite',
  'list_channel_videos',
  'get_channel_latest_videos',
  'search_channel_videos',
  'list_playlist_videos',
  'list_shortvideo_user_videos',
  'get_video_discovery',
  'search_transcripts',
];

const hasContinuation = (r: { body: string }) => /"continuation"/.test(r.body);
const SEARCH: ReplayRoute[] = [
  {
    method: 'POST',
    path: '/youtubei/v1/search',
    when: (r) => !hasContinuation(r),
    recording: 'videosite/search/search-test-videos-page1.newpipe-mock.json',
  },
  {
    method: 'POST',
    path: '/youtubei/v1/search',
    when: hasContinuation,
    recording: 'videosite/search/search-test-videos-page2-continuation.newpipe-mock.json',
  },
];
const ROUTES = [...SEARCH, ...videositeCaptionRoutes()];

let stack: JobStack;
let server: HttpServer;
let mcpUrl: URL;
let ws: TestWorkspace;
let media: HttpsServer;
let mediaBase: string;
let audio: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  stack = await startJobStack(ROUTES);
  server = createHttpServer(stack.api.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  mcpUrl = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });

  // A direct-link host on loopback https with 70 s of audio: 2 started minutes, 4 credits of AI transcription.
  audio = await audioDir();
  const long = await makeSilence(path.join(audio.dir, 'long.wav'), 70);
  const body = fs.readFileSync(long);
  const tls = testTls();
  media = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    if (req.url !== '/long.wav') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `https://127.0.0.1:${(media.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  media.closeAllConnections();
  media.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await stack.close();
  await audio.cleanup();
});

type Era = 'legacy' | 'modern';
const ERAS: Era[] = ['legacy', 'modern'];

async function connect(apiKey: string, era: Era): Promise<Client> {
  const client = new Client(
    { name: 'mcp-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: bearer(apiKey) } }));
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

interface ToolOut {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: { type: string; text?: string }[];
}

async function call(client: Client, name: string, args: Record<string, unknown>, onprogress?: (p: unknown) => void): Promise<ToolOut> {
  return (await client.callTool({ name, arguments: args }, onprogress ? { onprogress, timeout: 60_000 } : { timeout: 60_000 })) as ToolOut;
}

async function credits(w: TestWorkspace) {
  const b = await getBalance(stack.api.deps.db, w.workspaceId);
  return { available: b.available, reserved: b.reserved };
}

describe('agent tool server: transport and authentication', () => {
  it('401 with WWW-Authenticate: Bearer without a key or with a wrong one; the SDK client cannot connect', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const none = await request(stack.api.app).post('/mcp').set('Accept', 'application/json, text/event-stream').send(init);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer\b/);
    expect(none.body.error).toMatchObject({ code: 'UNAUTHENTICATED', retryable: false });
    const wrong = await request(stack.api.app).post('/mcp').set(bearer('tsk_nope')).send(init);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    for (const era of ERAS) await expect(connect('tsk_not-a-key', era)).rejects.toThrow();
  });

  it.each(ERAS)(
    '%s client: the fourteen tools with input schemas, descriptions and output schemas; stateless (no session id)',
    async (era) => {
      const client = await connect(ws.apiKey, era);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      const props = (n: string) => Object.keys((byName[n]!.inputSchema as { properties: object }).properties).sort();
      expect(props('get_video_transcript')).toEqual(expect.arrayContaining(['url', 'mode', 'format', 'timeout_seconds']));
      expect(props('transcribe')).toEqual([
        'align_text',
        'chapters',
        'disfluencies',
        'filter_profanity',
        'idempotency_key',
        'language',
        'max_credits',
        'max_duration_s',
        'mode',
        'profile',
        'redact_pii',
        'redact_pii_types',
        'redacted_audio',
        'speaker_labels',
        'speakers_expected',
        'summarize',
        'translate_to',
        'url',
        'vocabulary',
        'word_timing',
      ]);
      expect(props('wait_for_job')).toEqual(['job_id', 'so_far_after', 'timeout_seconds']);
      expect(props('get_job')).toEqual(['job_id']);
      expect(props('get_transcript')).toEqual(expect.arrayContaining(['transcript_id', 'format']));
      expect(props('list_jobs')).toEqual(['cursor', 'limit']);
      expect(props('search_videosite')).toEqual(['cursor', 'limit', 'query', 'timeout_seconds']);
      expect(props('list_channel_videos')).toEqual(['channel', 'cursor', 'limit']);
      expect(props('get_channel_latest_videos')).toEqual(['channel', 'limit']);
      expect(props('search_channel_videos')).toEqual(['channel', 'cursor', 'limit', 'query']);
      expect(props('list_playlist_videos')).toEqual(['cursor', 'limit', 'playlist']);
      expect(props('list_shortvideo_user_videos')).toEqual(['include_details', 'limit', 'user']);
      expect(props('get_video_discovery')).toEqual(['id']);
      for (const t of tools) {
        expect(t.description!.length).toBeGreaterThan(60);
        expect(t.outputSchema).toBeDefined();
      }
      expect(byName.transcribe!.inputSchema.required).toEqual(expect.arrayContaining(['url', 'idempotency_key']));
      const res = await fetch(mcpUrl, {
        method: 'POST',
        headers: { ...bearer(ws.apiKey), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      await res.text();
      await client.close();
    },
  );
});

describe('agent tool server: jobs and transcripts', () => {
  it.each(ERAS)(
    '%s client: get_video_transcript submits, waits with progress and returns the transcript; a repeat reuses the job (1 credit in all); the read tools',
    async (era) => {
      const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
      const client = await connect(w.apiKey, era);
      const before = await credits(w);
      const updates: unknown[] = [];
      const first = await call(client, 'get_video_transcript', { url: VIDEO_URL }, (p) => updates.push(p));
      expect(first.isError).toBeFalsy();
      const out = first.structuredContent!;
      expect(out.status).toBe('succeeded');
      expect(out.job).toMatchObject({ status: 'succeeded', billing: { credits_charged: 1, kind: 'captions' } });
      expect(out.page).toMatchObject({ format: 'text', offset: 0, next_offset: null });
      const txt = await request(stack.api.app)
        .get(`/v1/transcripts/${out.job.result_id}/export`)
        .query({ format: 'txt' })
        .set(bearer(w.apiKey))
        .expect(200);
      expect(out.page.content).toBe(txt.text);
      expect(out.page.total_chars).toBe(txt.text.length);
      expect(first.content[0]!.text).toContain(txt.text.slice(0, 40));
      expect(updates.length).toBeGreaterThan(0);

      const again = await call(client, 'get_video_transcript', { url: VIDEO_URL });
      expect(again.structuredContent!.job.id).toBe(out.job.id);
      expect(await credits(w)).toEqual({ available: before.available - 1, reserved: 0 });

      const job = await call(client, 'get_job', { job_id: out.job.id });
      expect(job.structuredContent).toMatchObject({ job: { id: out.job.id, status: 'succeeded' }, done: true, quote: null });
      const waited = await call(client, 'wait_for_job', { job_id: out.job.id, timeout_seconds: 5 });
      expect(waited.structuredContent).toMatchObject({ job: { id: out.job.id }, done: true });
      const list = await call(client, 'list_jobs', { limit: 5 });
      expect(list.structuredContent!.jobs.map((j: { id: string }) => j.id)).toContain(out.job.id);
      const rest = await request(stack.api.app).get(`/v1/transcripts/${out.job.result_id}`).set(bearer(w.apiKey)).expect(200);
      const seg = await call(client, 'get_transcript', { transcript_id: out.job.result_id });
      expect(seg.structuredContent!.page.format).toBe('segments');
      expect(seg.structuredContent!.page.segments).toEqual(rest.body.segments);
      expect(seg.structuredContent!.transcript).toMatchObject({ id: out.job.result_id, language: rest.body.language });
      const srt = await call(client, 'get_transcript', { transcript_id: out.job.result_id, format: 'srt' });
      expect(srt.structuredContent!.page.content).toMatch(/^1\r?\n00:00:/);
      await client.close();
    },
    90_000,
  );

  it('transcribe honours idempotency_key: the same key returns the same job, another body with it IDEMPOTENCY_CONFLICT', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const client = await connect(w.apiKey, 'modern');
    const key = `agent-${randomUUID()}`;
    const a = await call(client, 'transcribe', { url: VIDEO_URL, mode: 'captions_only', idempotency_key: key });
    expect(a.isError).toBeFalsy();
    expect(a.structuredContent).toMatchObject({ replay: false, job: { status: 'queued' } });
    const b = await call(client, 'transcribe', { url: VIDEO_URL, mode: 'captions_only', idempotency_key: key });
    expect(b.structuredContent).toMatchObject({ replay: true, job: { id: a.structuredContent!.job.id } });
    const c = await call(client, 'transcribe', { url: VIDEO_URL, mode: 'auto', idempotency_key: key });
    expect(c.isError).toBe(true);
    expect(c.structuredContent!.error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', retryable: false });
    const done = await call(client, 'wait_for_job', { job_id: a.structuredContent!.job.id, timeout_seconds: 30 });
    expect(done.structuredContent!.job.status).toBe('succeeded');
    await client.close();
  }, 60_000);

  it("transcribe takes chapters, and get_transcript gives them to the agent: the video's own here", async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const client = await connect(w.apiKey, 'modern');
    stack.origin.setRoutes([
      ...ROUTES,
      { method: 'POST', path: '/youtubei/v1/next', recording: 'videosite/next-transcript-panel/web-next-rCAS2eD-mcw.newpipe-mock.json' },
    ]);
    try {
      const started = await call(client, 'transcribe', {
        url: VIDEO_URL,
        mode: 'captions_only',
        chapters: true,
        idempotency_key: `agent-${randomUUID()}`,
      });
      expect(started.structuredContent).toMatchObject({ job: { options: { chapters: true } } });
      const done = await call(client, 'wait_for_job', { job_id: started.structuredContent!.job.id, timeout_seconds: 30 });
      expect(done.structuredContent!.job.status).toBe('succeeded');
      const page = await call(client, 'get_transcript', { transcript_id: done.structuredContent!.job.result_id });
      expect(
        page.structuredContent!.transcript.chapters.map((c: { start: number; title: string; origin: string }) => [
          c.start,
          c.title,
          c.origin,
        ]),
      ).toEqual([
        [39, 'Method of Oxygenation', 'platform'],
        [115, 'LMA Insertion', 'platform'],
        [242, 'Assessment of Ventilation', 'platform'],
        [268, 'Troubleshooting', 'platform'],
      ]);
    } finally {
      stack.origin.setRoutes(ROUTES);
      await client.close();
    }
  }, 60_000);

  it('transcribe takes translate_to, and get_transcript pages through the translation with translated', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const client = await connect(w.apiKey, 'modern');
    // The platform's translation of the track: a caption body of the same format, asked for with tlang.
    const translatedBody =
      '<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body><p t="0" d="5000">Olá a todos</p><p t="5000" d="5000">e bem-vindos</p></body></timedtext>';
    stack.origin.setRoutes([
      {
        path: '/api/timedtext',
        when: (req) => req.query.get('tlang') === 'pt',
        body: translatedBody,
        headers: { 'content-type': 'text/xml' },
      },
      ...ROUTES,
    ]);
    try {
      const started = await call(client, 'transcribe', {
        url: VIDEO_URL,
        mode: 'captions_only',
        translate_to: 'pt',
        idempotency_key: `agent-${randomUUID()}`,
      });
      expect(started.structuredContent).toMatchObject({ job: { options: { translate_to: 'pt' } } });
      const done = await call(client, 'wait_for_job', { job_id: started.structuredContent!.job.id, timeout_seconds: 30 });
      expect(done.structuredContent!.job.status).toBe('succeeded');
      const id = done.structuredContent!.job.result_id;
      const original = await call(client, 'get_transcript', { transcript_id: id, format: 'text' });
      expect(original.structuredContent!.transcript.translation).toEqual({ language: 'pt', origin: 'platform' });
      expect(original.structuredContent!.page.content).not.toContain('Olá a todos');
      const translated = await call(client, 'get_transcript', { transcript_id: id, format: 'text', translated: true });
      expect(translated.isError).toBeFalsy();
      expect(translated.structuredContent!.page.content).toContain('Olá a todos');
      expect(translated.structuredContent!.page.content).toContain('e bem-vindos');
      // A transcript without a translation: the tool says so, naming the argument.
      const plain = await call(client, 'transcribe', { url: VIDEO_URL, mode: 'captions_only', idempotency_key: `agent-${randomUUID()}` });
      const plainDone = await call(client, 'wait_for_job', { job_id: plain.structuredContent!.job.id, timeout_seconds: 30 });
      const refused = await call(client, 'get_transcript', { transcript_id: plainDone.structuredContent!.job.result_id, translated: true });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent!.error).toMatchObject({ code: 'TRANSLATION_UNAVAILABLE' });
    } finally {
      stack.origin.setRoutes(ROUTES);
      await client.close();
    }
  }, 90_000);

  it.each(ERAS)('%s client: failures are tool results with isError and the error code, message and retryable', async (era) => {
    const client = await connect(ws.apiKey, era);
    const missing = await call(client, 'get_job', { job_id: randomUUID() });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent!.error).toMatchObject({ code: 'NOT_FOUND', retryable: false, message: expect.any(String) });
    expect(missing.content[0]!.text).toMatch(/^NOT_FOUND: /);
    const badUrl = await call(client, 'get_video_transcript', { url: 'http://example.com/watch?v=1' });
    expect(badUrl.structuredContent!.error).toMatchObject({ code: 'INVALID_URL', retryable: false });
    const unsupported = await call(client, 'get_video_transcript', { url: 'https://example.com/page.html', mode: 'captions_only' });
    expect(unsupported.isError).toBe(true);
    const noTranscript = await call(client, 'get_transcript', { transcript_id: randomUUID() });
    expect(noTranscript.structuredContent!.error.code).toBe('NOT_FOUND');
    const badCursor = await call(client, 'list_jobs', { cursor: 'garbage' });
    expect(badCursor.structuredContent!.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'cursor' } });
    const badKey = await call(client, 'transcribe', { url: VIDEO_URL, idempotency_key: 'short' });
    expect(badKey.structuredContent!.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'idempotency_key' } });
    // An argument the input schema refuses is also a tool result (the SDK's validation), not a protocol error.
    const schema = await call(client, 'get_job', { job_id: 'not-a-uuid' });
    expect(schema.isError).toBe(true);
    await client.close();
  });

  it('scopes: each tool checks the scope of its REST twin (FORBIDDEN as a tool result)', async () => {
    const base = await createWorkspace(stack.api.deps, { plan: 'pro', scopes: ['jobs:read'] });
    const readOnly = await connect(base.apiKey, 'legacy');
    const gvt = await call(readOnly, 'get_video_transcript', { url: VIDEO_URL });
    expect(gvt.isError).toBe(true);
    expect(gvt.structuredContent!.error).toMatchObject({ code: 'FORBIDDEN', details: { detail: 'scope:jobs:write' } });
    const tr = await call(readOnly, 'transcribe', { url: VIDEO_URL, idempotency_key: `k-${randomUUID()}` });
    expect(tr.structuredContent!.error.details.detail).toBe('scope:jobs:write');
    const search = await call(readOnly, 'search_videosite', { query: 'test' });
    expect(search.structuredContent!.error.details.detail).toBe('scope:jobs:write');
    const t = await call(readOnly, 'get_transcript', { transcript_id: randomUUID() });
    expect(t.structuredContent!.error.details.detail).toBe('scope:transcripts:read');
    expect((await call(readOnly, 'list_jobs', {})).isError).toBeFalsy();
    await readOnly.close();

    const writer = await createWorkspace(stack.api.deps, { plan: 'pro', scopes: ['jobs:write'] });
    const w = await connect(writer.apiKey, 'modern');
    const gvt2 = await call(w, 'get_video_transcript', { url: VIDEO_URL });
    expect(gvt2.structuredContent!.error.details.detail).toBe('scope:transcripts:read');
    const job = await call(w, 'get_job', { job_id: randomUUID() });
    expect(job.structuredContent!.error.details.detail).toBe('scope:jobs:read');
    expect(await credits(writer)).toMatchObject({ reserved: 0 });
    await w.close();
  });

  it('long transcripts come in pages within the character budget, with the total size; the pages join to the whole', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    // A long lecture's captions: 2,000 cues, about 130,000 characters of text.
    const cues = Array.from(
      { length: 2000 },
      (_, i) => `<p t="${i * 5000}" d="4800">Cue number ${i} of the long lecture, with some words to read here.</p>`,
    );
    const body = `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3">\n<body>\n${cues.join('\n')}\n</body>\n</timedtext>\n`;
    stack.origin.setRoutes([...SEARCH, ...videositeCaptionRoutes({ captionBody: body })]);
    try {
      const client = await connect(w.apiKey, 'modern');
      const first = await call(client, 'get_video_transcript', { url: VIDEO_URL });
      const out = first.structuredContent!;
      expect(out.status).toBe('succeeded');
      const full = (
        await request(stack.api.app).get(`/v1/transcripts/${out.job.result_id}/export`).query({ format: 'txt' }).set(bearer(w.apiKey))
      ).text;
      expect(full.length).toBeGreaterThan(40_000);
      // The default page: at most 40,000 characters (well under 25,000 tokens), and where to continue.
      expect(out.page.returned_chars).toBeLessThanOrEqual(40_000);
      expect(out.page.total_chars).toBe(full.length);
      expect(out.page.next_offset).toBe(out.page.content.length);
      expect(out.next).toContain('get_transcript');
      let text = out.page.content as string;
      let offset: number | null = out.page.next_offset;
      while (offset !== null) {
        const page = await call(client, 'get_transcript', { transcript_id: out.job.result_id, format: 'text', offset, max_chars: 15_000 });
        const p = page.structuredContent!.page;
        expect(p.returned_chars).toBeLessThanOrEqual(15_000);
        text += p.content;
        offset = p.next_offset;
      }
      expect(text).toBe(full);
      // Segments page by index within the budget.
      const segs = await call(client, 'get_transcript', { transcript_id: out.job.result_id, max_chars: 5_000 });
      const sp = segs.structuredContent!.page;
      expect(JSON.stringify(sp.segments).length).toBeLessThanOrEqual(5_000);
      expect(sp.next_offset).toBe(sp.segments.length);
      expect(sp.total_segments).toBeGreaterThan(sp.segments.length);
      await client.close();
    } finally {
      stack.origin.setRoutes(ROUTES);
    }
  }, 60_000);

  it('a tool call never waits past ~40 s: a slow origin leaves the job running, returned with its id and the wait_for_job hint', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    // Caption bodies answer after 60 s: the fetch times out and is retried, so the job stays processing.
    stack.origin.setRoutes([...SEARCH, ...videositeCaptionRoutes({ captionDelayMs: 60_000 })]);
    try {
      const client = await connect(w.apiKey, 'legacy');
      const t0 = Date.now();
      const res = await call(client, 'get_video_transcript', { url: VIDEO_URL, timeout_seconds: 300 });
      const took = Date.now() - t0;
      expect(took).toBeLessThan(41_000);
      expect(took).toBeGreaterThan(30_000);
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent).toMatchObject({ status: 'running', job: { status: expect.stringMatching(/queued|processing/) } });
      expect(res.structuredContent!.next).toContain('wait_for_job');
      const short = await call(client, 'wait_for_job', { job_id: res.structuredContent!.job.id, timeout_seconds: 1 });
      expect(short.structuredContent).toMatchObject({ done: false, next: expect.stringContaining('wait_for_job') });
      await client.close();
    } finally {
      stack.origin.setRoutes(ROUTES);
    }
  }, 70_000);
});

describe('agent tool server: cost safety', () => {
  it('AI transcription above 2 credits is not spent without max_credits: the exact quote, nothing charged; max_credits = quote goes ahead', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const before = await credits(w);
    const client = await connect(w.apiKey, 'modern');
    const url = `${mediaBase}/long.wav`;
    const res = await call(client, 'get_video_transcript', { url, mode: 'transcribe' });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      status: 'confirmation_required',
      quote: {
        credits: 4,
        max_credits: 2,
        confirm: { tool: 'get_video_transcript', arguments: { url, mode: 'transcribe', max_credits: 4 } },
      },
    });
    expect(res.content[0]!.text).toContain('max_credits: 4');
    expect(await credits(w)).toEqual(before);

    // transcribe: the job stops before any charge; wait_for_job carries the quote.
    const t = await call(client, 'transcribe', { url, idempotency_key: `k-${randomUUID()}` });
    const done = await call(client, 'wait_for_job', { job_id: t.structuredContent!.job.id, timeout_seconds: 30 });
    expect(done.structuredContent).toMatchObject({
      job: { status: 'failed', error: { code: 'BUDGET_EXCEEDED' }, billing: { credits_charged: 0 } },
      quote: { credits: 4, confirm: { tool: 'transcribe', arguments: { max_credits: 4 } } },
    });
    expect(await credits(w)).toEqual(before);

    // A max_credits below the quote is the caller's own cap: BUDGET_EXCEEDED as a tool error, with the quote.
    const low = await call(client, 'get_video_transcript', { url, mode: 'transcribe', max_credits: 3 });
    expect(low.isError).toBe(true);
    expect(low.structuredContent).toMatchObject({ error: { code: 'BUDGET_EXCEEDED' }, quote: { credits: 4 } });

    // Confirmed: the cap covers the quote, so the job passes the measuring step (70 s of silence then ends NO_SPEECH, uncharged).
    const confirmed = await call(client, 'transcribe', { url, max_credits: 4, idempotency_key: `k-${randomUUID()}` });
    const final = await call(client, 'wait_for_job', { job_id: confirmed.structuredContent!.job.id, timeout_seconds: 38 });
    const job = final.structuredContent!.job;
    if (job.status === 'failed') expect(job.error.code).not.toBe('BUDGET_EXCEEDED');
    expect(final.structuredContent!.quote).toBeNull();
    await client.close();
  }, 120_000);
});

describe('agent tool server: cost confirmation by elicitation', () => {
  /** A client that declares form elicitation and answers the cost question with `answer`. */
  async function elicitingClient(apiKey: string, era: Era, answer: 'accept' | 'decline') {
    const asked: string[] = [];
    const client = new Client(
      { name: 'mcp-test-elicit', version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      },
    );
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push((req.params as { message: string }).message);
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: bearer(apiKey) } }));
    expect(client.getProtocolEra()).toBe(era);
    return { client, asked };
  }

  it('a 2026-07-28 client with elicitation is asked to confirm the exact quote; accepted, the job goes ahead with max_credits = the quote', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const before = await credits(w);
    const { client, asked } = await elicitingClient(w.apiKey, 'modern', 'accept');
    const url = `${mediaBase}/long.wav`;
    const res = await call(client, 'get_video_transcript', { url, mode: 'transcribe', timeout_seconds: 5 });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('exactly 4 credits');
    expect(res.structuredContent!.status).not.toBe('confirmation_required');
    const job = res.structuredContent!.job;
    // The retry submitted the confirmed job: capped at exactly the quote, past the measuring step.
    const row = await stack.api.deps.db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.maxCredits).toBe(4);
    if (job.status === 'failed') expect(job.error.code).not.toBe('BUDGET_EXCEEDED');
    expect((await credits(w)).available).toBeLessThanOrEqual(before.available);
    await client.close();
  }, 90_000);

  it('declined: the quote result, nothing charged', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const before = await credits(w);
    const { client, asked } = await elicitingClient(w.apiKey, 'modern', 'decline');
    const res = await call(client, 'get_video_transcript', { url: `${mediaBase}/long.wav`, mode: 'transcribe' });
    expect(asked).toHaveLength(1);
    expect(res.structuredContent).toMatchObject({ status: 'confirmation_required', quote: { credits: 4 } });
    expect(res.structuredContent!.next).toContain('declined');
    expect(await credits(w)).toEqual(before);
    await client.close();
  }, 90_000);

  it('a 2025-era client (stateless fallback) is not asked even with the capability: the quote result', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const before = await credits(w);
    const { client, asked } = await elicitingClient(w.apiKey, 'legacy', 'accept');
    const res = await call(client, 'get_video_transcript', { url: `${mediaBase}/long.wav`, mode: 'transcribe' });
    expect(asked).toHaveLength(0);
    expect(res.structuredContent).toMatchObject({ status: 'confirmation_required', quote: { credits: 4, max_credits: 2 } });
    expect(await credits(w)).toEqual(before);
    await client.close();
  }, 90_000);
});

describe('agent tool server: discoveries', () => {
  it.each(ERAS)(
    '%s client: search_videosite pages as the REST discovery (1 credit per page, cursor), get_video_discovery reads it',
    async (era) => {
      const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
      const before = await credits(w);
      const client = await connect(w.apiKey, era);
      const first = await call(client, 'search_videosite', { query: 'test', limit: 7 });
      expect(first.isError).toBeFalsy();
      const d = first.structuredContent!.discovery;
      expect(first.structuredContent!.done).toBe(true);
      expect(d).toMatchObject({ kind: 'videosite_search', status: 'succeeded' });
      expect(d.videos).toHaveLength(7);
      expect(d.next_cursor).toEqual(expect.any(String));
      const rest = await request(stack.api.app).get(`/v1/video-discoveries/${d.id}`).set(bearer(w.apiKey)).expect(200);
      expect(d.videos).toEqual(rest.body.videos);
      const second = await call(client, 'search_videosite', { query: 'test', limit: 7, cursor: d.next_cursor });
      const ids = new Set([...d.videos, ...second.structuredContent!.discovery.videos].map((v: { video_id: string }) => v.video_id));
      expect(ids.size).toBe(14);
      expect(await credits(w)).toEqual({ available: before.available - 2, reserved: 0 });
      // A repeat within the cache window is free and the same discovery.
      const repeat = await call(client, 'search_videosite', { query: 'test', limit: 7 });
      expect(repeat.structuredContent!.discovery.id).toBe(d.id);
      expect(await credits(w)).toEqual({ available: before.available - 2, reserved: 0 });
      const read = await call(client, 'get_video_discovery', { id: d.id });
      expect(read.structuredContent).toMatchObject({ done: true, discovery: { id: d.id } });
      const bad = await call(client, 'search_videosite', { query: 'test', cursor: 'tampered' });
      expect(bad.structuredContent!.error).toMatchObject({ code: 'INVALID_CURSOR', retryable: false });
      const limit = await call(client, 'list_shortvideo_user_videos', { user: '@someone', limit: 11 });
      expect(limit.isError).toBe(true);
      await client.close();
    },
    60_000,
  );
});

describe('search_transcripts', () => {
  it.each(ERAS)(
    '%s client: finds a sentence said in one of 200 transcripts with one call, with the words around it',
    async (era) => {
      const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
      // 200 transcripts of ordinary talk as finished jobs leave them; one says the sentence looked for.
      const needle = 199 - 57;
      const ids: string[] = [];
      for (let i = 0; i < 200; i++) {
        const said =
          i === needle
            ? 'The quarterly figures show the lighthouse budget doubled after the storm.'
            : `Meeting ${i} went over the agenda, the minutes and the next steps.`;
        const segments = [
          { start: 0, end: 12, text: `Welcome to recording ${i}.` },
          { start: 12, end: 24, text: said },
          { start: 24, end: 36, text: 'Thank you all for coming.' },
        ];
        ids.push(await publishedTranscript(stack.api.deps.db, w.workspaceId, segments, { platform: 'upload', title: `Recording ${i}` }));
      }
      const client = await connect(w.apiKey, era);
      const found = await call(client, 'search_transcripts', { query: 'lighthouse budget', mode: 'keyword' });
      expect(found.isError).toBeFalsy();
      const moments = found.structuredContent!.moments;
      expect(moments).toHaveLength(1);
      expect(moments[0]).toMatchObject({
        transcript_id: ids[needle],
        start: 12,
        end: 24,
        text: 'The quarterly figures show the lighthouse budget doubled after the storm.',
        before: `Welcome to recording ${needle}.`,
        after: 'Thank you all for coming.',
        source: { title: `Recording ${needle}` },
      });
      expect(moments[0].highlighted_text).toContain('<mark>lighthouse</mark>');
      expect(found.content[0]!.text).toContain(`transcript ${ids[needle]}`);
      // Paged like the REST search; a bad argument is the spec's error object naming it.
      const page = await call(client, 'search_transcripts', { query: 'agenda', mode: 'keyword', limit: 50 });
      expect(page.structuredContent!.moments).toHaveLength(50);
      const next = await call(client, 'search_transcripts', {
        query: 'agenda',
        mode: 'keyword',
        limit: 50,
        cursor: page.structuredContent!.next_cursor,
      });
      expect(next.structuredContent!.moments).toHaveLength(50);
      const bad = await call(client, 'search_transcripts', { query: '   ' });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent!.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'query' } });
      // By meaning, in the default mode: asked in Spanish, in other words, once the moments are embedded (as the
      // embedding follower embeds them), the sentence is the first answer.
      const embed = () => embedPendingMoments(stack.api.deps.db, stack.api.deps.embedder!, { workspaceId: w.workspaceId });
      for (let i = 0; i < 1000 && (await embed()).embedded > 0; i++);
      const meant = await call(client, 'search_transcripts', { query: '¿el dinero del faro aumentó después de la tormenta?' });
      expect(meant.structuredContent!.mode).toBe('hybrid');
      expect(meant.structuredContent!.moments[0]).toMatchObject({ transcript_id: ids[needle], start: 12 });
      await client.close();
    },
    240_000,
  );
});
