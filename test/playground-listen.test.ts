import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, seriousA11yViolations, until } from './support/browser';
import { createWorkspace } from './support/harness';
import { startListeningJobStack, type JobStack } from './support/job-stack';
import { evalClips, score } from './support/asr-eval';

// The playground's "Speak" section (views-playground.ts, browser/listen.ts) in Chromium, whose fake audio device
// plays a real English recording into the microphone in real time: the page mints a browser token with the
// session, opens GET /v1/listen on the real stack (the recognition worker's stream port, Whisper), shows partials
// and finals as they come, and stops with the charge, which the ledger agrees with. A refused stream is explained.

const run = promisify(execFile);
let stack: JobStack;
let listening: Awaited<ReturnType<typeof startListeningJobStack>>;
let base: string;
let chromium: { browser: Browser; close: () => Promise<void> };
let workDir: string;
const clip = evalClips().find((c) => c.lang === 'en' && c.durationSec > 8 && c.durationSec < 20)!;

beforeAll(async () => {
  if (!process.env.RECOGNIZER_STREAM_URL) throw new Error('RECOGNIZER_STREAM_URL is not set: run through npm test (stack/test-env.ts)');
  listening = await startListeningJobStack();
  ({ stack, base } = listening);
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'playground-listen-'));
  // Chromium's fake microphone reads a WAV file; `%noloop` plays it once, then silence.
  const wav = path.join(workDir, 'speech.wav');
  await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', clip.audio, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', wav]);
  chromium = await launchChromium([
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-audio-capture=${wav}%noloop`,
    '--autoplay-policy=no-user-gesture-required',
  ]);
}, 60_000);
afterAll(async () => {
  await chromium?.close();
  await listening?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

async function signedIn(plan: 'pro' | 'trial'): Promise<{ context: BrowserContext; page: Page; workspaceId: string }> {
  const ws = await createWorkspace(stack.api.deps, { plan });
  const context = await chromium.browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['microphone'], { origin: base });
  const page = await context.newPage();
  await page.goto('/app/sign-in');
  await page.getByLabel('E-mail').fill(ws.email);
  await page.getByLabel('Password').fill(ws.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard/usage');
  await page.goto('/dashboard/new');
  return { context, page, workspaceId: ws.workspaceId };
}

const text = (page: Page, selector: string) => page.locator(selector).evaluate((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());

test('the microphone, transcribed as it speaks: partials, then finals that read as the recording, then the charge and the kept audio', async () => {
  const { context, page, workspaceId } = await signedIn('pro');
  try {
    const before = await stack.api.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId } });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByLabel('Language you will speak (optional)').fill('en');
    await page.getByLabel(/Keep the audio/).check();
    // Partials are seen as they replace each other: the page keeps none of them.
    await page.evaluate(`window.__partials = [];
      new MutationObserver(() => { const t = document.querySelector('[data-listen-partial]').textContent; if (t) window.__partials.push(t); })
        .observe(document.querySelector('[data-listen-partial]'), { childList: true, characterData: true, subtree: true });`);
    await page.getByRole('button', { name: 'Start listening' }).click();
    await until(page, "document.querySelector('[data-listen-status]').textContent.startsWith('Listening')", 30_000);
    // The recording plays in real time, then silence: its last sentence is final a little after it ends.
    await until(page, `document.querySelectorAll('[data-listen-finals] li').length > 0`, (clip.durationSec + 30) * 1000);
    await new Promise((r) => setTimeout(r, (clip.durationSec + 3) * 1000));
    await page.getByRole('button', { name: 'Stop' }).click();
    await until(page, "document.querySelector('[data-listen-status]').textContent.startsWith('Stopped')", 30_000);

    expect(((await page.evaluate('window.__partials')) as string[]).length).toBeGreaterThan(0);
    const finals = await page
      .locator('[data-listen-finals] li')
      .evaluateAll((items) => items.map((li) => (li.textContent ?? '').replace(/^\s*\d+:\d\d\s*/, '').trim()));
    expect(score('en', clip.reference, finals.join(' ')).rate).toBeLessThanOrEqual(0.3);
    expect(await text(page, '[data-listen-error]')).toBe('');

    const status = await text(page, '[data-listen-status]');
    const [, seconds, credits] = /^Stopped: ([\d.]+) s of audio, (\d+) credits?\.$/.exec(status)!;
    const session = await stack.api.deps.db.listenSession.findFirstOrThrow({ where: { workspaceId } });
    expect(session).toMatchObject({ active: false, creditsCharged: Number(credits) });
    expect(session.audioMs / 1000).toBeCloseTo(Number(seconds), 1);
    expect(Number(seconds)).toBeGreaterThan(clip.durationSec);
    expect(Number(credits)).toBe(Math.ceil(Number(seconds) / 30));
    const after = await stack.api.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId } });
    expect(after.reserved).toBe(before.reserved);
    expect(before.periodCredits - after.periodCredits).toBe(Number(credits));

    // The kept audio downloads from the page with the session: a WAV of what the microphone sent.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the audio' }).click()]);
    const wav = fs.readFileSync((await download.path())!);
    expect(download.suggestedFilename()).toMatch(/^stream-[0-9a-f]{8}\.wav$/);
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(16_000);
    expect(wav.length - 44).toBe(session.audioBytes);
    expect(session.audioBytes).toBe(session.audioMs * 32);
  } finally {
    await context.close();
  }
}, 180_000);

test('a refused stream is explained in the page: the plain GET answers why the upgrade failed', async () => {
  const { context, page, workspaceId } = await signedIn('pro');
  try {
    await page.getByLabel('Language you will speak (optional)').fill('tlh');
    await page.getByRole('button', { name: 'Start listening' }).click();
    await until(page, "document.querySelector('[data-listen-error]').textContent.trim() !== ''", 30_000);
    expect(await text(page, '[data-listen-error]')).toMatch(/LANGUAGE_UNSUPPORTED|VALIDATION_FAILED/);
    await expect(page.getByRole('button', { name: 'Start listening' }).isEnabled()).resolves.toBe(true);
    // Nothing was held or charged.
    expect(await stack.api.deps.db.listenSession.count({ where: { workspaceId } })).toBe(0);
    expect(await stack.api.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId } })).toMatchObject({ reserved: 0 });
  } finally {
    await context.close();
  }
}, 60_000);

test('on the trial plan the section says it needs a paid plan, and its button cannot start a stream', async () => {
  const { context, page } = await signedIn('trial');
  try {
    await expect(page.getByRole('button', { name: 'Start listening' }).isDisabled()).resolves.toBe(true);
    expect(await text(page, '#pg-listen-paid-hint')).toContain('needs a paid plan');
  } finally {
    await context.close();
  }
}, 60_000);
