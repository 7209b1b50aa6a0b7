import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import request from 'supertest';
import { createApiKey } from '../domain/accounts/accounts';
import { SCOPES } from '../domain/accounts/principal';
import { DASHBOARD_CSP, playgroundHeaders } from '../api/dashboard/headers';
import { launchChromium, seriousA11yViolations, screenshots, until } from './support/browser';
import { createWorkspace, uniqueEmail } from './support/harness';
import { startListeningJobStack, videositeCaptionRoutes, VIDEO_URL, type JobStack } from './support/job-stack';
import { twoVoiceWav } from './support/voices';

// The dashboard's "New transcript" page (api/dashboard/views-playground.ts, browser/playground.ts) in
// Chromium: a new user goes from sign-up to a finished caption transcript without a terminal; a paid
// workspace drops a file, watches it upload, sees the price before paying, and gets a transcript with
// speakers. The code the page shows beside the form is run as shown (curl in bash, TypeScript in Node,
// Python) and must make the same request. Screenshots of each step: .data/playground-screenshots/.

const SHOTS = path.resolve(__dirname, '../.data/playground-screenshots');
const run = promisify(execFile);

let stack: JobStack;
let listening: Awaited<ReturnType<typeof startListeningJobStack>>;
let base: string;
let chromium: { browser: Browser; close: () => Promise<void> };
let workDir: string;

beforeAll(async () => {
  listening = await startListeningJobStack(videositeCaptionRoutes());
  ({ stack, base } = listening);
  chromium = await launchChromium();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'playground-'));
  fs.rmSync(SHOTS, { recursive: true, force: true });
}, 60_000);
afterAll(async () => {
  await chromium?.close();
  await listening?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});
afterEach(() => stack?.origin.setRoutes(videositeCaptionRoutes()));

const textOf = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\s+/g, ' ').trim();

async function check(page: Page, name: string) {
  await page.waitForLoadState('load');
  expect(await seriousA11yViolations(page)).toEqual([]);
  const { phoneOverflowPx } = await screenshots(page, name, SHOTS);
  expect(phoneOverflowPx).toBeLessThanOrEqual(0);
}

/** The playground's alert once it says something (a refusal arrives after the request). */
async function alertText(page: Page): Promise<string> {
  await until(page, "document.querySelector('[data-error]').textContent.trim() !== ''", 10_000);
  return textOf(page.locator('#playground').getByRole('alert'));
}

const code = (page: Page, lang: 'curl' | 'typescript' | 'python') => page.locator(`[data-code="${lang}"]`).textContent();

/** Runs a snippet the page shows, as a person would paste it, with a key in TRANSCRIPT_API_KEY. */
async function runSnippet(lang: 'curl' | 'typescript' | 'python', snippet: string, apiKey: string): Promise<string> {
  const env = { ...process.env, TRANSCRIPT_API_KEY: apiKey };
  const [cmd, args] =
    lang === 'curl'
      ? ['bash', ['-euo', 'pipefail', '-c', snippet]]
      : lang === 'typescript'
        ? [process.execPath, ['--input-type=module', '-e', snippet]]
        : ['python3', ['-c', snippet]];
  const { stdout } = await run(cmd, args, { env, cwd: workDir, timeout: 90_000 });
  return stdout;
}

async function waitForJobPage(page: Page): Promise<string> {
  await page.waitForURL(/\/dashboard\/jobs\/[0-9a-f-]{36}$/);
  return /\/dashboard\/jobs\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
}

describe('the playground, a new user', () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await chromium.browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
  });
  afterAll(async () => context?.close());

  it('goes from sign-up to a finished transcript without a terminal, and the code shown makes the same request', async () => {
    try {
      await journey();
    } catch (err) {
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/failed.png`, fullPage: true }).catch(() => undefined);
      fs.writeFileSync(`${SHOTS}/failed.html`, await page.content().catch(() => ''));
      throw err;
    }
  }, 240_000);

  async function journey() {
    const email = uniqueEmail('playground');
    const password = 'a long enough password';
    await page.goto('/dashboard/sign-up');
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    const mail = await stack.api.deps.db.outboxEmail.findFirstOrThrow({ where: { to: email } });
    await page.goto(`/app/verify-email?token=${/token=([A-Za-z0-9_-]+)/.exec(mail.body)![1]!}`);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/usage');

    // The first link of the navigation.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'New transcript', exact: true }).click();
    await expect(textOf(page.getByRole('heading', { level: 1 }))).resolves.toBe('New transcript');
    await expect(textOf(page.locator('[data-credits]'))).resolves.toBe('50');
    await check(page, '01-new-empty');

    // A trial: captions by default; files and the AI modes say they need a paid plan.
    await expect(page.getByLabel('Mode').inputValue()).resolves.toBe('captions_only');
    await expect(page.getByLabel('A file from this computer').isDisabled()).resolves.toBe(true);
    await expect(textOf(page.getByLabel('Mode').locator('option[value="transcribe"]'))).resolves.toMatch(/\(paid plans\)$/);

    // A refusal shows the API's message and names the field.
    await page.getByLabel('Link to a video or a media file').fill('ftp://example.com/talk.mp3');
    await page.getByRole('button', { name: 'Start transcript' }).click();
    await expect(alertText(page)).resolves.toMatch(/\(source\.url\).*Code INVALID_URL · request id \S+/);
    expect(page.url()).toMatch(/\/dashboard\/new$/);
    // Word timing needs a paid plan: 402, said on the page with the field.
    await page.getByLabel('Link to a video or a media file').fill(VIDEO_URL);
    await page.getByLabel(/Word timing/).check();
    await expect(textOf(page.locator('[data-quote]'))).resolves.toMatch(/^Priced when the media is measured/);
    await page.getByRole('button', { name: 'Start transcript' }).click();
    await expect(alertText(page)).resolves.toMatch(/\(word_timing\) ?Code PLAN_REQUIRED/);
    await check(page, '02-new-refused');
    await page.getByLabel(/Word timing/).uncheck();

    // Captions only, English first: the quote and the code follow the form.
    await page.getByLabel('Caption languages (optional)').fill('en, de');
    await expect(page.getByLabel('Recognition profile').isVisible()).resolves.toBe(false);
    await expect(textOf(page.locator('[data-quote]'))).resolves.toBe(
      'A caption transcript costs 1 credit; nothing is charged when the video has no captions.',
    );
    const body = { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['en', 'de'] };
    const curl = (await code(page, 'curl'))!;
    expect(curl).toContain(`-d '${JSON.stringify(body)}'`);
    expect(curl).toContain('Bearer $TRANSCRIPT_API_KEY');
    expect(curl).not.toMatch(/tsk_/); // no secret is ever shown
    await check(page, '03-new-filled');

    // Submitted: the job page follows the job, then the transcript opens with its downloads.
    await page.getByRole('button', { name: 'Start transcript' }).click();
    const jobId = await waitForJobPage(page);
    // The page reloads itself when the job ends: checked once it has (a final job's page stays put).
    await page.getByRole('link', { name: 'Open the transcript' }).waitFor({ timeout: 30_000 });
    await check(page, '04-job');
    await expect(textOf(page.locator('[data-job-status]'))).resolves.toBe('succeeded');
    await page.getByRole('link', { name: 'Open the transcript' }).click();
    await page.waitForURL(/\/dashboard\/transcripts\//);
    expect(await page.locator('ol.segments li').count()).toBeGreaterThan(5);
    await check(page, '05-transcript');
    const srt = await page.request.get(
      await page
        .getByRole('link', { name: 'SRT', exact: true })
        .getAttribute('href')
        .then((h) => h!),
    );
    expect(srt.status()).toBe(200);
    expect(await srt.text()).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> /);

    // The code shown is the request the page sent: the same Idempotency-Key and body find the same job.
    const { workspaceId } = await stack.api.deps.db.user.findUniqueOrThrow({ where: { email }, select: { workspaceId: true } });
    const key = await createApiKey(stack.api.deps.db, workspaceId, { name: 'snippets', scopes: [...SCOPES] });
    const fromCurl = JSON.parse(await runSnippet('curl', curl, key.secret));
    expect(fromCurl.id).toBe(jobId);
    await page.goto('/dashboard/new');
    await page.getByLabel('Mode').selectOption('captions_only');
    await page.getByLabel('Link to a video or a media file').fill(VIDEO_URL);
    await page.getByLabel('Caption languages (optional)').fill('en, de');
    // A new page, a new key: TypeScript starts one more job and waits for it; Python, with the same key, finds that job.
    const outputs: string[] = [];
    for (const lang of ['typescript', 'python'] as const)
      outputs.push((await runSnippet(lang, (await code(page, lang))!, key.secret)).trim());
    expect(outputs[0]).toMatch(/^succeeded [0-9a-f-]{36}$/);
    expect(outputs[1]).toBe(outputs[0]);
  }

  it('lets a job be cancelled from its page while it waits for captions', async () => {
    stack.origin.setRoutes(videositeCaptionRoutes({ captionDelayMs: 8000 }));
    const other = 'https://www.youtube.com/watch?v=aaaaaaaaaaa';
    await page.goto('/dashboard/new');
    await page.getByLabel('Link to a video or a media file').fill(other);
    await page.getByLabel('Mode').selectOption('captions_only');
    await page.getByRole('button', { name: 'Start transcript' }).click();
    await waitForJobPage(page);
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await expect(textOf(page.getByRole('status').first())).resolves.toMatch(/cancel/i);
    await until(page, "document.querySelector('[data-job-status]').textContent.includes('cancelled')");
  }, 60_000);
});

describe('the playground, a file', () => {
  let context: BrowserContext;
  let page: Page;
  let wav: string;
  let apiKey: string;

  beforeAll(async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    apiKey = ws.apiKey;
    wav = await twoVoiceWav(path.join(workDir, 'interview.wav'));
    context = await chromium.browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(ws.email);
    await page.getByLabel('Password').fill(ws.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/usage');
  }, 60_000);
  afterAll(async () => context?.close());

  it('uploads with progress, quotes the measured price, and transcribes with speakers', async () => {
    await page.goto('/dashboard/new');
    await page.getByLabel('A file from this computer').check();
    // Progress is recorded as the page reports it.
    await page.evaluate(`window.__progress = [];
      new MutationObserver(() => window.__progress.push(document.getElementById('pg-progress').value))
        .observe(document.getElementById('pg-progress'), { attributes: true, childList: true, characterData: true, subtree: true });`);
    await page.getByLabel(/Audio or video file/).setInputFiles(wav);
    await until(page, "document.querySelector('[data-upload-status]').textContent.startsWith('Ready')");
    const seconds = (
      await stack.api.deps.db.upload.findFirstOrThrow({ where: { filename: 'interview.wav' }, orderBy: { createdAt: 'desc' } })
    ).durationMs!;
    const credits = Math.ceil(Math.max(60, Math.ceil(seconds / 1000)) / 60) * 2;
    await expect(textOf(page.locator('[data-quote]'))).resolves.toMatch(
      new RegExp(`^This file is 0:\\d\\d long: transcribing it costs ${credits} credits\\.`),
    );
    await expect(page.getByLabel('Spending cap in credits (optional)').inputValue()).resolves.toBe(String(credits));
    expect(await page.evaluate('window.__progress')).toContain(100);
    await expect(page.getByLabel('Mode').inputValue()).resolves.toBe('transcribe');
    await page.getByLabel('Label speakers').check();
    await page.getByLabel('Number of speakers (optional)').fill('2');
    await page.getByLabel('Vocabulary (optional)').fill('Kennedy\nLibriSpeech');
    await page.getByLabel('Chapters: the video’s own').check();
    await page.getByLabel('Drop fillers').check();
    await page.getByLabel('Translate into (optional)').fill('pt');
    await page.getByLabel('Redact personal data').check();
    await page.getByLabel('Names of people').check();
    await check(page, '06-file-ready');

    // The code for a file: the three upload calls, then the job with the form's options.
    const python = (await code(page, 'python'))!;
    expect(python).toContain('"speaker_labels": True');
    expect(python).toContain('"vocabulary": [');
    expect(python).toContain('"chapters": True');
    expect(python).toContain('"disfluencies": False');
    expect(python).toContain('"translate_to": "pt"');
    expect(python).toContain('"redact_pii": True');
    expect(python).toMatch(/"redact_pii_types": \[\s*"email",\s*"phone",\s*"card",\s*"iban",\s*"person"\s*\]/);
    const curl = (await code(page, 'curl'))!;
    expect(curl).toContain("FILE='interview.wav'");
    expect(python).toContain('with open("interview.wav", "rb")');

    await page.getByRole('button', { name: 'Start transcript' }).click();
    const jobId = await waitForJobPage(page);
    await page.getByRole('link', { name: 'Open the transcript' }).waitFor({ timeout: 90_000 });
    const job = await request(stack.api.app).get(`/v1/jobs/${jobId}`).set('Authorization', `Bearer ${apiKey}`).expect(200);
    expect(job.body.options).toMatchObject({
      speaker_labels: true,
      speakers_expected: 2,
      vocabulary: ['Kennedy', 'LibriSpeech'],
      chapters: true,
      disfluencies: false,
      filter_profanity: false,
      translate_to: 'pt',
      redact_pii: true,
      redact_pii_types: ['person', 'email', 'phone', 'card', 'iban'],
    });
    expect(job.body.billing.credits_charged).toBe(credits);
    await page.getByRole('link', { name: 'Open the transcript' }).click();
    await page.waitForURL(/\/dashboard\/transcripts\//);
    expect(await page.locator('.segments li .spk').allTextContents()).toEqual(expect.arrayContaining(['A', 'B']));
    // A recording under three minutes: chapters were asked for, and there are none.
    await expect(textOf(page.locator('h2:has-text("Chapters") + p'))).resolves.toBe('None: the transcript is shorter than three minutes.');
    // The English interview in Portuguese, by the machine model.
    await expect(textOf(page.locator('h2:has-text("Translation (pt)") + p'))).resolves.toMatch(/machine translation model/);
    expect((await page.locator('ol.translation li .seg').allTextContents()).join(' ')).toMatch(/\b(que|de|o|a)\b/);
    await page.locator('audio[data-player]').waitFor();
    await check(page, '07-file-transcript');

    // The upload code works as pasted, in the folder holding the file: curl reserves, PUTs, completes and starts
    // the job; Python does the same and waits for it.
    const started = JSON.parse((await runSnippet('curl', curl, apiKey)).trim().split('\n').pop()!);
    expect(started).toMatchObject({ status: 'queued', options: { mode: 'transcribe', speaker_labels: true } });
    expect(started.source.upload_id).not.toBe(job.body.source.upload_id);
    expect((await runSnippet('python', python, apiKey)).trim()).toMatch(/^succeeded [0-9a-f-]{36}$/);
  }, 180_000);

  it('says why a file is refused', async () => {
    fs.writeFileSync(path.join(workDir, 'notes.wav'), 'this is not audio at all, just text with a .wav name');
    await page.goto('/dashboard/new');
    await page.getByLabel('A file from this computer').check();
    await page.getByLabel(/Audio or video file/).setInputFiles(path.join(workDir, 'notes.wav'));
    await until(page, "document.querySelector('[data-error]').textContent !== ''");
    await expect(alertText(page)).resolves.toMatch(/Code (INVALID_MEDIA|UNSUPPORTED_MEDIA)/);
    await expect(textOf(page.locator('[data-upload-status]'))).resolves.toBe('The file was not accepted.');
    await page.getByRole('button', { name: 'Start transcript' }).click();
    await expect(alertText(page)).resolves.toBe('Choose a file and wait until it is uploaded and checked.');
  }, 60_000);
});

describe('the playground over HTTP', () => {
  it('quotes only a ready upload of the signed-in workspace', async () => {
    const a = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const b = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const signIn = async (w: { email: string; password: string }) => {
      const res = await request(stack.api.app).post('/app/sign-in').type('form').send({ email: w.email, password: w.password });
      return (res.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
    };
    const slot = await request(stack.api.app)
      .post('/v1/uploads')
      .set('Authorization', `Bearer ${a.apiKey}`)
      .send({ filename: 'x.wav', content_type: 'audio/wav', bytes: 1000 });
    const quote = (cookie: string, id: string) =>
      request(stack.api.app).get('/dashboard/new/quote').query({ upload_id: id }).set('Cookie', cookie);
    const pending = await quote(await signIn(a), slot.body.id);
    expect(pending.status).toBe(409);
    expect(pending.body.error).toMatchObject({ code: 'CONFLICT', details: { detail: 'status=pending' } });
    expect((await quote(await signIn(b), slot.body.id)).body.error.code).toBe('NOT_FOUND');
    const bad = await quote(await signIn(a), 'not-a-uuid');
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.detail).toBe('upload_id');
    const anonymous = await request(stack.api.app).get('/dashboard/new/quote').query({ upload_id: slot.body.id });
    expect(anonymous.status).toBe(401);
  });

  it('lets the page PUT to the object store’s origin, and nowhere else', () => {
    expect(playgroundHeaders(base, base)['Content-Security-Policy']).toBe(DASHBOARD_CSP);
    const csp = playgroundHeaders('https://s3.example.com', base)['Content-Security-Policy'];
    expect(csp).toContain("connect-src 'self' https://s3.example.com;");
    expect(DASHBOARD_CSP).toContain("connect-src 'self';");
  });
});
