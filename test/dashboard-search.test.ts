import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { embedPendingMoments } from '../domain/search/embeddings';
import { publishedTranscript } from './support/transcripts';
import { launchChromium, seriousA11yViolations } from './support/browser';
import { createWorkspace, type TestWorkspace } from './support/harness';
import { startJobStack, videositeCaptionRoutes, type JobStack } from './support/job-stack';
import { uploadReady } from './support/uploads';
import { twoVoiceWav } from './support/voices';

// Issue 52: the dashboard's search box, in Chromium: a person types what was said, and the moment found opens
// the transcript page scrolled to that segment with the player started at its second.

let stack: JobStack;
let server: Server;
let base: string;
let chromium: { browser: Browser; close: () => Promise<void> };

beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes());
  server = stack.api.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  chromium = await launchChromium();
}, 60_000);
afterAll(async () => {
  await chromium?.close();
  if (server) await new Promise((r) => server.close(r));
  await stack?.close();
});

/** A published transcript of an upload whose file is stored, with a long stretch before the sentence looked for. */
async function uploadTranscript(w: TestWorkspace): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'search-page-'));
  const uploadId = await uploadReady(stack.api, w, await twoVoiceWav(path.join(dir, 'two.wav')), 'audio/wav');
  fs.rmSync(dir, { recursive: true, force: true });
  const segments = [
    ...Array.from({ length: 40 }, (_, i) => ({ start: i * 0.25, end: i * 0.25 + 0.25, text: `Opening remark ${i}.` })),
    { start: 10, end: 14, text: 'The leopard came out of the forest at dawn.' },
  ];
  return publishedTranscript(stack.api.deps.db, w.workspaceId, segments, { platform: 'upload', mediaId: uploadId, title: 'Two voices' });
}

it('finds the words from the search box and opens the transcript at the moment, the player started there', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
  const transcriptId = await uploadTranscript(w);
  const signIn = await request(stack.api.app).post('/app/sign-in').type('form').send({ email: w.email, password: w.password });
  expect(signIn.status).toBe(303);
  const context = await chromium.browser.newContext({ baseURL: base, viewport: { width: 1280, height: 700 } });
  try {
    await context.addCookies(
      (signIn.headers['set-cookie'] as unknown as string[]).map((c) => {
        const [name, ...value] = c.split(';')[0]!.split('=');
        return { name: name!, value: value.join('='), url: base };
      }),
    );
    const page = await context.newPage();
    await page.goto('/dashboard/usage');
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Search', exact: true }).click();
    await page.getByRole('searchbox', { name: 'What was said, or what it was about' }).fill('leopards forest');
    await page.getByRole('combobox', { name: 'Match' }).selectOption({ label: 'Exact words' });
    await page.getByRole('button', { name: 'Search' }).click();
    const found = page.getByRole('list', { name: 'Moments found' }).getByRole('listitem');
    await expect(found.count()).resolves.toBe(1);
    expect(await found.locator('mark').allTextContents()).toEqual(['leopard', 'forest']);
    expect(await seriousA11yViolations(page)).toEqual([]);
    // By meaning, once the moments are embedded (as the embedding follower embeds them): other words, another
    // language, the same moment first.
    while ((await embedPendingMoments(stack.api.deps.db, stack.api.deps.embedder!, { workspaceId: w.workspaceId })).embedded > 0);
    await page.getByRole('searchbox', { name: 'What was said, or what it was about' }).fill('un gran felino salió del bosque al amanecer');
    await page.getByRole('combobox', { name: 'Match' }).selectOption({ label: 'Meaning only' });
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(found.first().textContent()).resolves.toContain('The leopard came out of the forest at dawn.');
    expect(await page.getByRole('combobox', { name: 'Match' }).inputValue()).toBe('semantic');
    // Nothing found says so; a refused query says why, in the page.
    await page.goto('/dashboard/search?q=zebra&mode=keyword');
    expect(await page.getByText('Nothing in your transcripts matches').count()).toBe(1);
    await page.goto(`/dashboard/search?q=${'x'.repeat(501)}`);
    expect(await page.getByRole('alert').textContent()).toMatch(/q/);

    await page.goto('/dashboard/search?q=leopard&mode=keyword');
    await page.getByRole('link', { name: 'Two voices' }).click();
    await page.waitForURL(`**/dashboard/transcripts/${transcriptId}?t=10#t10`);
    const player = page.locator('audio[data-player]');
    await player.waitFor();
    await page.waitForFunction("document.querySelector('audio[data-player]').currentTime >= 10");
    expect(await player.evaluate((a) => Math.floor((a as unknown as { currentTime: number }).currentTime))).toBe(10);
    // The segment said then is the one scrolled to and marked.
    const segment = page.locator('ol.segments li:has(> a.t:target)');
    expect(await segment.textContent()).toContain('The leopard came out of the forest at dawn.');
    await expect(segment.isVisible()).resolves.toBe(true);
    const box = await segment.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 700).toBe(true);
  } finally {
    await context.close();
  }
}, 120_000);
