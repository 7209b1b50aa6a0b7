import net from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { createHttpServer } from '../../api/http/server';
import { JOB_BODY_LIMIT_BYTES } from '../../domain/schemas/jobs';
import { bearer, createWorkspace, startTestApi, type TestApi, type TestWorkspace } from '../support/harness';

// Issue 49: the surfaces added in round 2, probed from outside as an attacker and a careless client would.
// Each case here answered wrongly before its fix (a 500, the SDK's own words, the REST envelope on /mcp, a
// changed value stored). The upload items that need a worker are in test/uploads.test.ts, the media link's in
// test/mcp-app.test.ts, the alignment's in test/alignment.test.ts, and the rules without a server in
// test/unit/http/probe-round3.test.ts.

let api: TestApi;
let ws: TestWorkspace;
let server: net.Server;
let base: string;

beforeAll(async () => {
  api = await startTestApi();
  ws = await createWorkspace(api.deps, { plan: 'pro' });
  server = createHttpServer(api.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await api.close();
});

const VIDEO = 'https://www.videosite.example/watch?v=dQw4w9WgXcQ';

describe('MCP tool arguments are refused with the error object, one line (item 4)', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'probe', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(ws.apiKey) } }));
  });
  afterAll(() => client.close());

  const job = '8f14e45f-ceea-467f-a0e6-2d1b9f6f3b0a';
  const cases: [string, Record<string, unknown>, string][] = [
    ['transcribe', {}, 'url'],
    ['transcribe', { url: 42 }, 'url'],
    ['transcribe', { url: VIDEO, speaker_labels: true, speakers_expected: 0 }, 'speakers_expected'],
    ['transcribe', { url: VIDEO, speaker_labels: true, speakers_expected: 11 }, 'speakers_expected'],
    ['transcribe', { url: VIDEO, speaker_labels: true, speakers_expected: -1 }, 'speakers_expected'],
    ['transcribe', { url: VIDEO, speaker_labels: true, speakers_expected: 2.5 }, 'speakers_expected'],
    ['transcribe', { url: VIDEO, speaker_labels: true, speakers_expected: '3' }, 'speakers_expected'],
    ['transcribe', { url: VIDEO, profile: 'turbo' }, 'profile'],
    ['transcribe', { url: VIDEO, vocabulary: ['ok', 7] }, 'vocabulary[1]'],
    ['get_video_transcript', { url: VIDEO, max_chars: 999 }, 'max_chars'],
    ['get_video_transcript', { url: VIDEO, timeout_seconds: 'soon' }, 'timeout_seconds'],
    ['wait_for_job', { job_id: 'nope' }, 'job_id'],
    ['get_job', {}, 'job_id'],
    ['get_transcript', { transcript_id: job, offset: -1 }, 'offset'],
    ['get_transcript', { transcript_id: job, format: 'pdf' }, 'format'],
    ['list_jobs', { limit: 0 }, 'limit'],
    ['search_videosite', { query: 5 }, 'query'],
    ['list_channel_videos', { channel: '@x', limit: 51 }, 'limit'],
    ['get_channel_latest_videos', {}, 'channel'],
    ['search_channel_videos', { channel: '@x' }, 'query'],
    ['list_playlist_videos', { playlist: ['PL1'] }, 'playlist'],
    ['list_shortvideo_user_videos', { user: '@u', include_details: 'yes' }, 'include_details'],
    ['get_video_discovery', { id: 12 }, 'id'],
    ['search_transcripts', { query: 5 }, 'query'],
    ['search_transcripts', { query: '   ' }, 'query'],
    ['search_transcripts', { query: 'moon', limit: 51 }, 'limit'],
  ];
  it.each(cases)('%s %j: INVALID_REQUEST naming %s', async (name, args, detail) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { type: string; text: string }[];
      structuredContent?: { error?: { code: string; message: string; retryable: boolean; details?: { detail: string } } };
    };
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false, details: { detail } });
    expect(result.structuredContent!.error!.message).not.toMatch(/\n/);
    expect(result.content[0]!.text).not.toMatch(/Input validation error/);
    expect(result.content[0]!.text.split('\n')).toHaveLength(1);
  });

  it('every tool is covered above', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect([...new Set(cases.map(([n]) => n))].sort()).toEqual(names);
  });

  it('tools/list still shows each tool’s own argument schema', async () => {
    const transcribe = (await client.listTools()).tools.find((t) => t.name === 'transcribe')!;
    expect(transcribe.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['url', 'idempotency_key']) });
    expect((transcribe.inputSchema.properties as Record<string, { maximum?: number }>).speakers_expected?.maximum).toBe(10);
  });
});

/**
 * A JSON-RPC exchange with /mcp over plain HTTP, as a client without the SDK sends it. The answer's message in
 * `body` whether it came as JSON or as the one event of an event stream.
 */
async function rpc(body: unknown, headers: Record<string, string> = {}) {
  const res = await request(api.app)
    .post('/mcp')
    .set(bearer(ws.apiKey))
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('MCP-Protocol-Version', '2025-11-25')
    .set(headers)
    .buffer(true)
    .parse((r, done) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (chunk: string) => (text += chunk));
      r.on('end', () => done(null, text));
    })
    .send(typeof body === 'string' ? body : JSON.stringify(body));
  const text = String(res.body);
  const data = /^data: (.*)$/m.exec(text)?.[1];
  return Object.assign(res, { body: JSON.parse(data ?? text) });
}

describe('the MCP transport answers in JSON-RPC with the catalogue (items 4, 5 and 7)', () => {
  it.each([
    ['a string', 'speakers=3'],
    ['an array', [1, 2]],
    ['null', null],
    ['a number', 7],
  ])('arguments that are %s: one line naming `arguments`', async (_what, args) => {
    const res = await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'get_job', arguments: args } });
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32602, data: { code: 'INVALID_REQUEST', detail: 'arguments' } },
    });
    expect(res.body.error.message).not.toMatch(/\n/);
  });

  it('takes a body as large as POST /v1/jobs does, and over it answers 413 in JSON-RPC', async () => {
    // The transcribe tool with the longest align_text as Python's json.dumps writes it (every emoji escaped): 2.4 MB.
    const call = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'transcribe',
        arguments: {
          url: VIDEO,
          mode: 'transcribe',
          align_text: '😀'.repeat(200_000),
          max_credits: 0,
          idempotency_key: 'probe-large-body-1',
        },
      },
    };
    const ascii = JSON.stringify(call).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(Buffer.byteLength(ascii)).toBeGreaterThan(1_048_576);
    const res = await rpc(ascii);
    expect(res.status).toBe(200);
    // Read and validated: max_credits 0 is the refusal, not the body's size.
    expect(res.body.result?.structuredContent?.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'max_credits' } });
    const over = await rpc(`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_":"${'x'.repeat(JOB_BODY_LIMIT_BYTES)}"}}`);
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: { code: 'PAYLOAD_TOO_LARGE', detail: `body_limit_bytes=${JOB_BODY_LIMIT_BYTES}` } },
    });
    expect(over.body.error.data.request_id).toBe(over.headers['x-request-id']);
  });

  it('an unknown MCP-Protocol-Version is named as such', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'MCP-Protocol-Version': '1999-01-01' });
    expect(res.status).toBe(400);
    expect(res.body.error.data).toMatchObject({ code: 'INVALID_REQUEST', detail: 'MCP-Protocol-Version' });
    expect(res.body.error.message).toMatch(/Unsupported protocol version "1999-01-01"/);
    expect(res.body.error.message).not.toMatch(/_meta/);
    for (const known of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'MCP-Protocol-Version': known })).status).toBe(200);
    }
  });

  it('a request that says Connection: close has its connection closed once answered', async () => {
    const port = (server.address() as net.AddressInfo).port;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const started = Date.now();
    const { text, closedAfterMs } = await new Promise<{ text: string; closedAfterMs: number }>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(
          [
            'POST /mcp HTTP/1.1',
            `Host: 127.0.0.1:${port}`,
            `Authorization: Bearer ${ws.apiKey}`,
            'Content-Type: application/json',
            'Accept: application/json, text/event-stream',
            'MCP-Protocol-Version: 2025-11-25',
            'Connection: close',
            `Content-Length: ${Buffer.byteLength(body)}`,
            '',
            body,
          ].join('\r\n'),
        );
      });
      let out = '';
      socket.on('data', (d) => (out += d.toString()));
      socket.on('close', () => resolve({ text: out, closedAfterMs: Date.now() - started }));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toMatch(/get_video_transcript/);
    // Closed with the answer (it stayed open about 6 s): well under a second here, measured loosely.
    expect(closedAfterMs).toBeLessThan(3000);
  });
});

describe('request bodies are UTF-8, or refused naming the field (item 7)', () => {
  /** A JSON request whose bytes go out as they are (superagent would send a Buffer as JSON of its bytes). */
  const postRaw = (key: string, bytes: Buffer) =>
    request(api.app)
      .post('/v1/jobs')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', key)
      .set('Content-Type', 'application/json')
      .serialize((b: unknown) => b as string)
      .send(bytes as unknown as string);

  it('invalid UTF-8 in vocabulary is refused, not stored as U+FFFD', async () => {
    const head = Buffer.from(`{"source":{"url":"${VIDEO}"},"mode":"transcribe","vocabulary":["ok","caf`);
    const res = await postRaw('probe-utf8-vocabulary-1', Buffer.concat([head, Buffer.from([0xe9]), Buffer.from('"]}')]));
    expect({ status: res.status, code: res.body.error?.code, detail: res.body.error?.details?.detail }).toEqual({
      status: 422,
      code: 'INVALID_REQUEST',
      detail: 'vocabulary[1]',
    });
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    // A real U+FFFD, sent as UTF-8, is text like any other.
    const fine = await postRaw(
      'probe-utf8-vocabulary-2',
      Buffer.from(JSON.stringify({ source: { url: VIDEO }, mode: 'nope', vocabulary: ['\uFFFD'] })),
    );
    expect(fine.body.error?.details?.detail).toBe('mode');
  });
});

describe('integers in query strings (item 7)', () => {
  it.each(['0x20', '%2042', '%2B42', '042', '1e0'])('limit=%s on GET /v1/jobs is refused naming limit', async (value) => {
    const res = await request(api.app).get(`/v1/jobs?limit=${value}`).set(bearer(ws.apiKey));
    expect({ status: res.status, code: res.body.error?.code, detail: res.body.error?.details?.detail }).toEqual({
      status: 422,
      code: 'INVALID_REQUEST',
      detail: 'limit',
    });
  });

  it('a repeated parameter is named, without "NaN"', async () => {
    const res = await request(api.app).get('/v1/jobs?limit=1&limit=2').set(bearer(ws.apiKey));
    expect(res.status).toBe(422);
    expect(res.body.error.details.detail).toBe('limit');
    expect(res.body.error.message).not.toMatch(/NaN/);
  });
});
