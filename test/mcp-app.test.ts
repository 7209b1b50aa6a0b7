import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { APP_MIME_TYPE, MEDIA_META_KEY, TRANSCRIPT_APP_URI } from '../api/mcp/app/transcript-app';
import { signedMediaLink } from '../domain/transcripts/media';
import { HOLD_PLAYER, launchChromium, screenshots, seriousA11yViolations } from './support/browser';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import {
  startListeningJobStack,
  submit,
  videositeCaptionRoutes,
  VIDEO_URL,
  waitFinal,
  waitUntilFinal,
  type JobStack,
} from './support/job-stack';
import { twoVoiceWav } from './support/voices';
import { uploadReady } from './support/uploads';

// The transcript tools' MCP App (api/mcp/app/): what a host sees in tools/list and resources/read, the page
// rendered in Chromium by the MCP Apps SDK's own host side (AppBridge over postMessage, as a host embeds it)
// with a real tool result from the tool server, and the signed media link its player plays.

const SHOTS = path.resolve(__dirname, '../.data/mcp-app-screenshots');

let stack: JobStack;
let listening: Awaited<ReturnType<typeof startListeningJobStack>>;
let base: string;
let ws: TestWorkspace;
let client: Client;
let uploadTranscriptId: string;
let videoTranscriptId: string;
let chromium: { browser: Browser; close: () => Promise<void> };
let hostScript: string;

interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, any>;
  _meta?: Record<string, any>;
}

beforeAll(async () => {
  listening = await startListeningJobStack(videositeCaptionRoutes());
  ({ stack, base } = listening);
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  client = new Client({ name: 'mcp-app-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(ws.apiKey) } }));

  // Two voices in one upload, transcribed with speaker labels; and a videosite caption transcript.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-app-'));
  const wav = await twoVoiceWav(path.join(dir, 'talk.wav'));
  const uploadId = await uploadReady(stack.api, ws, wav, 'audio/wav');
  fs.rmSync(dir, { recursive: true, force: true });
  const job = await submit(stack.api, ws.apiKey, {
    source: { upload_id: uploadId },
    mode: 'transcribe',
    language: 'en',
    speaker_labels: true,
  });
  const done = await waitUntilFinal(stack.api, ws.apiKey, job.body.id);
  expect(done.body.status).toBe('succeeded');
  uploadTranscriptId = done.body.result_id;
  const captions = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
  videoTranscriptId = (await waitFinal(stack.api, ws.apiKey, captions.body.id)).body.result_id;

  // The host side of the MCP Apps SDK, bundled for the browser: it embeds the app as hosts do (a sandboxed
  // frame of the resource's HTML) and forwards the app's tool calls to the tool server through this process.
  const bundled = await build({
    stdin: {
      contents: `import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
        window.startHost = async (html, result) => {
          const frame = document.createElement('iframe');
          frame.setAttribute('sandbox', 'allow-scripts');
          frame.title = 'MCP App';
          frame.style.cssText = 'width: 900px; height: 700px; border: 0';
          frame.srcdoc = html;
          document.body.append(frame);
          await new Promise((r) => (frame.onload = r));
          const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {} });
          bridge.oncalltool = (params) => window.callTool(params);
          bridge.oninitialized = () => bridge.sendToolResult(result);
          await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
        };`,
      resolveDir: __dirname,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
  });
  hostScript = bundled.outputFiles[0]!.text;
  // Hosts serve apps from their own public origin; here host, app and service are all on loopback, which
  // Chromium's Local Network Access would hold for a permission prompt nobody answers.
  chromium = await launchChromium(['--disable-features=LocalNetworkAccessChecks']);
  fs.rmSync(SHOTS, { recursive: true, force: true });
}, 240_000);
afterAll(async () => {
  await chromium?.close();
  await client?.close();
  await listening?.close();
});

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as unknown as ToolResult;

describe('what a host reads', () => {
  it('names the app in the transcript tools, and serves it as one self-contained page', async () => {
    const { tools } = await client.listTools();
    for (const name of ['get_transcript', 'get_video_transcript'])
      expect(tools.find((t) => t.name === name)?._meta).toEqual({
        ui: { resourceUri: TRANSCRIPT_APP_URI },
        'ui/resourceUri': TRANSCRIPT_APP_URI,
      });
    expect(tools.find((t) => t.name === 'wait_for_job')?._meta?.ui).toBeUndefined();
    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === TRANSCRIPT_APP_URI)).toMatchObject({ mimeType: APP_MIME_TYPE, name: 'transcript_app' });
    const read = await client.readResource({ uri: TRANSCRIPT_APP_URI });
    const page = read.contents[0] as unknown as {
      mimeType: string;
      text: string;
      _meta: { ui: { csp: { resourceDomains: string[]; frameDomains: string[] } } };
    };
    expect(page.mimeType).toBe(APP_MIME_TYPE);
    expect(page.text).toMatch(/^<!doctype html>/);
    // Everything inline: no script, style or import from elsewhere (hosts load the page as one document).
    expect(page.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    expect(page._meta.ui.csp).toEqual({ resourceDomains: [base], frameDomains: ['https://www.youtube-nocookie.com'] });
  });

  it('keeps the text for clients without apps, and gives the media to the app only in _meta', async () => {
    const result = await call('get_transcript', { transcript_id: uploadTranscriptId });
    expect(result.content[0]!.text).toMatch(/"speaker":"A"/);
    const media = result._meta?.[MEDIA_META_KEY];
    expect(media).toMatchObject({
      kind: 'audio',
      url: expect.stringMatching(new RegExp(`^${base}/media/transcripts/${uploadTranscriptId}\\?expires=\\d+&signature=[0-9a-f]{64}$`)),
    });
    expect(JSON.stringify(result.structuredContent)).not.toContain('/media/transcripts/');
    const video = await call('get_transcript', { transcript_id: videoTranscriptId });
    expect(video._meta?.[MEDIA_META_KEY]).toEqual({
      kind: 'embed',
      url: 'https://www.youtube-nocookie.com/embed/rCAS2eD-mcw',
      watch_url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw',
    });
  });
});

describe('the signed media link', () => {
  it('plays the upload in byte ranges while valid, and refuses a changed, expired or foreign link alike', async () => {
    const { url } = signedMediaLink(stack.api.deps.secretsKey, base, ws.workspaceId, uploadTranscriptId);
    const pathOf = (u: string) => u.slice(base.length);
    const whole = await request(stack.api.app).get(pathOf(url)).expect(200);
    expect(whole.headers['content-type']).toBe('audio/wav');
    const part = await request(stack.api.app).get(pathOf(url)).set('Range', 'bytes=0-99').expect(206);
    expect(part.headers['content-range']).toMatch(/^bytes 0-99\/\d+$/);
    const refused = async (u: string) => {
      const res = await request(stack.api.app).get(u);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', details: { detail: 'signature' } });
      expect(res.body.request_id).toEqual(expect.any(String));
    };
    await refused(pathOf(url).replace(/signature=./, (m) => `${m.slice(0, -1)}${m.endsWith('0') ? '1' : '0'}`));
    await refused(pathOf(url).replace(/expires=\d+/, (m) => `expires=${Number(m.slice(8)) + 1}`));
    const stale = signedMediaLink(stack.api.deps.secretsKey, base, ws.workspaceId, uploadTranscriptId, Date.now() - 2 * 3600_000);
    await refused(pathOf(stale.url));
    const other = await createWorkspace(stack.api.deps, { plan: 'pro' });
    await refused(pathOf(signedMediaLink(stack.api.deps.secretsKey, base, other.workspaceId, uploadTranscriptId).url));
    await refused(`/media/transcripts/not-a-uuid?expires=1&signature=x`);
  });
});

describe('the app in a browser, embedded by the MCP Apps host side', () => {
  async function host(result: ToolResult): Promise<Page> {
    const context = await chromium.browser.newContext({ viewport: { width: 1000, height: 800 } });
    // The embedded player never leaves this machine: its origin answers from here.
    await context.route('https://www.youtube-nocookie.com/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<p>player</p>' }),
    );
    const page = await context.newPage();
    await page.exposeFunction('callTool', (params: { name: string; arguments: Record<string, unknown> }) =>
      call(params.name, params.arguments),
    );
    await page.route('http://localhost:9/host', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><html lang="en"><title>host</title><body></body></html>' }),
    );
    await page.goto('http://localhost:9/host');
    await page.addScriptTag({ content: hostScript });
    const html = ((await client.readResource({ uri: TRANSCRIPT_APP_URI })).contents[0] as { text: string }).text;
    await page.evaluate(([h, r]) => (globalThis as unknown as { startHost: (h: string, r: unknown) => Promise<void> }).startHost(h, r), [
      html,
      result,
    ] as const);
    return page;
  }

  it('renders an upload’s segments with speakers and a player that seeks where a time is clicked', async () => {
    const page = await host(await call('get_transcript', { transcript_id: uploadTranscriptId, format: 'segments' }));
    try {
      const app = page.frameLocator('iframe[title="MCP App"]');
      await app.locator('ol.segments li').first().waitFor();
      const segments = await app.locator('ol.segments li').count();
      expect(segments).toBeGreaterThan(1);
      expect(await app.locator('.spk').allTextContents()).toEqual(expect.arrayContaining(['A', 'B']));
      const audio = app.locator('audio.player');
      expect(await audio.getAttribute('src')).toMatch(new RegExp(`^${base}/media/transcripts/${uploadTranscriptId}\\?`));
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      // The media's first bytes come through the API from object storage; on a loaded CI host that has taken
      // over 10 s once. Waited for longer, and a failure says where the element stood.
      await until(
        () => frame.evaluate("document.querySelector('audio.player').readyState >= 1"),
        30_000,
        () =>
          frame.evaluate(
            "(a => JSON.stringify({ readyState: a.readyState, networkState: a.networkState, error: a.error && a.error.code, src: a.currentSrc }))(document.querySelector('audio.player'))",
          ),
      );
      // The click seeks and then plays. Played audio moves the playhead on, so polling currentTime after the
      // click raced playback on a loaded host; the seek's own position and the play call are recorded instead.
      await frame.evaluate(HOLD_PLAYER, 'audio.player');
      const last = app.locator('button.t').last();
      const start = Number(await last.getAttribute('data-start'));
      await last.click();
      // play() is called at once; the `seeking` event is queued as a task after the seek, so it can come later.
      await until(() => frame.evaluate('window.__player.played && window.__player.seeks.length > 0'));
      expect(await frame.evaluate('window.__player.seeks')).toEqual([expect.closeTo(start, 2)]);
      // axe scans the host page and the app's frame in it.
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshots(page, 'upload', SHOTS);
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it('asks the host for segments when the result was text, and embeds the video player', async () => {
    const page = await host(await call('get_video_transcript', { url: VIDEO_URL, mode: 'captions_only' }));
    try {
      const app = page.frameLocator('iframe[title="MCP App"]');
      await app.locator('ol.segments li').first().waitFor();
      expect(await app.locator('ol.segments li').count()).toBeGreaterThan(5);
      const player = app.locator('iframe.player');
      expect(await player.getAttribute('src')).toBe('https://www.youtube-nocookie.com/embed/rCAS2eD-mcw');
      const third = app.locator('button.t').nth(2);
      const start = Math.floor(Number(await third.getAttribute('data-start')));
      await third.click();
      expect(await player.getAttribute('src')).toBe(`https://www.youtube-nocookie.com/embed/rCAS2eD-mcw?start=${start}&autoplay=1`);
      await screenshots(page, 'video', SHOTS);
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it('shows a failed tool call as its message', async () => {
    const page = await host(await call('get_transcript', { transcript_id: '00000000-0000-4000-8000-000000000000' }));
    try {
      const text = page.frameLocator('iframe[title="MCP App"]').locator('p.error');
      await text.waitFor();
      expect(await text.textContent()).toMatch(/^NOT_FOUND: /);
    } finally {
      await page.context().close();
    }
  }, 60_000);
});

async function until(check: () => Promise<unknown>, timeoutMs = 10_000, describe?: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms${describe ? `: ${String(await describe())}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
