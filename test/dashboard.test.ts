import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import request from 'supertest';
import { createActivities } from '../activities';
import type { CookieOptions, Response } from 'express';
import { DASHBOARD_CSP } from '../api/dashboard/headers';
import { setCsrfCookie } from '../api/dashboard/session';
import type { AppDeps } from '../api/http/context';
import { dashboardRouter } from '../api/dashboard/router';
import { registeredRoutes } from '../api/http/middleware';
import { escapeHtml, html } from '../api/dashboard/html';
import { transcriptBody } from '../api/dashboard/views-transcript';
import { toErrorObject } from '../core/errors';
import type { TranscriptView } from '../domain/transcripts/read';
import { Prisma } from '../prisma/generated/client';
import { HOLD_PLAYER, launchChromium, SCREENSHOT_DIR, screenshots, seriousA11yViolations, until } from './support/browser';
import { bearer, createWorkspace, uniqueEmail, type TestWorkspace } from './support/harness';
import {
  activityDepsFor,
  startedJobWorkflow,
  startJobStack,
  submit,
  videositeCaptionRoutes,
  VIDEO_URL,
  waitFinal,
  waitUntilFinal,
  type JobStack,
} from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { twoVoiceWav } from './support/voices';
import { uploadReady } from './support/uploads';
import { loggedDelivery, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

// The web dashboard (api/dashboard/) in Debian's Chromium: one journey through
// every page from sign-up to account deletion, asserting what a person sees,
// with an axe-core scan and screenshots (desktop and phone width, under
// .data/dashboard-screenshots/) of each page; then the security properties
// over plain HTTP: cookie flags, CSRF on every write, one-time secrets, other
// workspaces' ids, the Content-Security-Policy.

let stack: JobStack;
let receiver: WebhookReceiver;
let server: Server;
let base: string;
let chromium: { browser: Browser; close: () => Promise<void> };

beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes());
  receiver = await startWebhookReceiver();
  server = stack.api.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  chromium = await launchChromium();
}, 60_000);
afterAll(async () => {
  await chromium?.close();
  // A setup that failed before listening leaves no server: nothing to wait for.
  if (server) await new Promise((r) => server.close(r));
  await receiver?.close();
  await stack?.close();
});
afterEach(() => stack?.origin.setRoutes(videositeCaptionRoutes()));

/** What a person reads in an element: its text with runs of white space as one space. */
async function textOf(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

const app = () => stack.api.app;

const rateLimited: ReplayRoute[] = ['/youtubei/v1/reel/reel_item_watch', '/youtubei/v1/player'].map((path) => ({
  method: 'POST',
  path,
  status: 429,
  fixture: 'videosite/errors/rate-limited/youtube_too_many_requests.html.static',
}));

/** A job that failed with a retryable error, without waiting out the five-minute retry schedule (as test/jobs-lifecycle.test.ts does). */
async function retryableFailure(apiKey: string, body: object): Promise<string> {
  stack.origin.setRoutes(rateLimited);
  const res = await submit(stack.api, apiKey, body);
  expect(res.status).toBe(202);
  await (await startedJobWorkflow(stack.api, res.body.id)).terminate('the retry schedule is asserted in test/workflows');
  await createActivities(activityDepsFor(stack.api, stack.outbound)).failJob(
    res.body.id,
    toErrorObject('SOURCE_RATE_LIMITED', 'videosite: HTTP 429'),
  );
  stack.origin.setRoutes(videositeCaptionRoutes());
  return res.body.id as string;
}

describe('the dashboard in a browser', () => {
  let context: BrowserContext;
  let page: Page;
  const pagesChecked: string[] = [];

  /** What every page must pass: axe-core without serious or critical findings, no sideways scrolling on a phone, screenshots kept. */
  async function check(name: string) {
    await page.waitForLoadState('load');
    expect(await seriousA11yViolations(page)).toEqual([]);
    const { phoneOverflowPx } = await screenshots(page, `${String(pagesChecked.length + 1).padStart(2, '0')}-${name}`);
    expect(phoneOverflowPx).toBeLessThanOrEqual(0);
    pagesChecked.push(name);
  }
  const heading = () => page.getByRole('heading', { level: 1 });
  const notice = () => page.getByRole('status').first();
  const alert = () => page.getByRole('alert');
  const nav = (name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();

  beforeAll(async () => {
    fs.rmSync(SCREENSHOT_DIR, { recursive: true, force: true }); // this run's pages only
    context = await chromium.browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
  });
  afterAll(async () => {
    await context?.close();
  });

  it('takes a person from sign-up to account deletion through every page', async () => {
    try {
      await journey();
    } catch (err) {
      // What the person saw when it failed, next to the screenshots.
      await page.screenshot({ path: `${SCREENSHOT_DIR}/failed.png`, fullPage: true }).catch(() => undefined);
      fs.writeFileSync(`${SCREENSHOT_DIR}/failed.html`, await page.content().catch(() => ''));
      throw err;
    }
  }, 240_000);

  async function journey() {
    const email = uniqueEmail('dash');
    const password = 'a long enough password';

    // Sign up.
    await page.goto('/dashboard/sign-up');
    await expect(textOf(heading())).resolves.toBe('Create an account');
    await check('sign-up');
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(textOf(heading())).resolves.toBe('Check your e-mail');
    expect(await textOf(page.locator('main'))).toContain(email);
    await check('sign-up-done');

    // Verify the e-mail with the mailed link.
    const mail = await stack.api.deps.db.outboxEmail.findFirstOrThrow({ where: { to: email } });
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.body)![1]!;
    await page.goto(`/app/verify-email?token=${token}`);
    await expect(textOf(heading())).resolves.toBe('E-mail verified');
    await check('verify-email');

    // Sign in: the usage page.
    await page.getByRole('link', { name: 'Sign in' }).click();
    await expect(textOf(heading())).resolves.toBe('Sign in');
    await check('sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(textOf(alert())).resolves.toBe('E-mail or password is wrong.');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/usage');
    await expect(textOf(heading())).resolves.toBe('Usage');
    const figure = (label: string) => textOf(page.locator('dl.figures div', { hasText: label }).locator('dd'));
    await expect(figure('Credits remaining')).resolves.toBe('50');
    await expect(figure('Reserved')).resolves.toBe('0');
    await expect(figure('Plan')).resolves.toBe('Trial');
    await expect(page.getByRole('img', { name: 'Credits spent per day, last 30 days' }).count()).resolves.toBe(1);
    await check('usage-empty');

    // API keys: created with scopes, the secret shown once with a copy button.
    await nav('API keys');
    await expect(textOf(heading())).resolves.toBe('API keys');
    await expect(page.getByText('No keys yet.').count()).resolves.toBe(1);
    await page.getByLabel('Name').fill('journey server');
    await page.getByLabel('uploads:write').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByRole('heading', { name: 'API key created' }).count()).resolves.toBe(1);
    const apiKey = await page.getByLabel('Secret').inputValue();
    expect(apiKey).toMatch(/^tsk_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(apiKey);
    await check('keys-created');
    await nav('API keys');
    expect(await page.content()).not.toContain(apiKey);
    const keyRow = page.getByRole('row', { name: /journey server/ });
    await expect(textOf(keyRow.getByRole('cell').nth(2))).resolves.toBe('jobs:read, jobs:write, transcripts:read, uploads:write');
    await expect(textOf(keyRow.getByRole('cell').nth(4))).resolves.toBe('never');
    // A second key, newest first, then revoked.
    await page.getByLabel('Name').fill('old laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const oldKey = await page.getByLabel('Secret').inputValue();
    await nav('API keys');
    const names = (await page.locator('tbody tr td:first-child').allTextContents()).map((t) => t.trim());
    expect(names).toEqual(['old laptop', 'journey server']);
    await page.getByRole('button', { name: 'Revoke old laptop' }).click();
    await expect(textOf(notice())).resolves.toBe('The key is revoked.');
    await expect(textOf(page.getByRole('row', { name: /old laptop/ }))).resolves.toContain('revoked');
    expect((await request(app()).get('/v1/usage').set(bearer(oldKey))).status).toBe(401);
    await check('keys');

    // Webhooks: an endpoint with its one-time signing secret.
    await nav('Webhooks');
    await expect(textOf(heading())).resolves.toBe('Webhooks');
    await page.getByLabel('HTTPS URL').fill('http://example.com/hook');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    await expect(textOf(alert())).resolves.toContain('url');
    await page.getByLabel('HTTPS URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('journey receiver');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    await expect(page.getByRole('heading', { name: 'Endpoint registered' }).count()).resolves.toBe(1);
    const whsec = await page.getByLabel('Secret').inputValue();
    expect(whsec).toMatch(/^whsec_/);
    receiver.configure({ secret: whsec, failFirst: 0 });
    await check('webhooks-created');
    await nav('Webhooks');
    expect(await page.content()).not.toContain(whsec);
    const endpointId = (
      await stack.api.deps.db.webhookEndpoint.findFirstOrThrow({ where: { url: receiver.url, description: 'journey receiver' } })
    ).id;

    // Jobs: a job the platform keeps refusing (retried automatically meanwhile), followed live, then cancelled.
    stack.origin.setRoutes(rateLimited);
    const slow = await submit(stack.api, apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect(slow.status).toBe(202);
    await page.goto(`/dashboard/jobs/${slow.body.id}`);
    await expect(textOf(heading())).resolves.toBe('Job');
    await page.locator('[data-job-status]', { hasText: 'processing' }).waitFor({ timeout: 10_000 });
    await page.locator('[data-job-stage]', { hasText: /^(resolve|captions)$/ }).waitFor({ timeout: 10_000 });
    await check('job-running');
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await expect(textOf(notice())).resolves.toBe('The job is cancelled; its credits are released.');
    await expect(textOf(page.locator('[data-job-status]'))).resolves.toBe('cancelled');
    await expect(page.getByRole('button', { name: 'Cancel job' }).count()).resolves.toBe(0);
    stack.origin.setRoutes(videositeCaptionRoutes());

    // A job the page follows until it succeeds, with no reload by the person.
    stack.origin.setRoutes(videositeCaptionRoutes({ captionDelayMs: 1500 }));
    const job = await submit(stack.api, apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', webhook_endpoint_id: endpointId });
    expect(job.status).toBe(202);
    await page.goto(`/dashboard/jobs/${job.body.id}`);
    expect(['queued', 'processing']).toContain(await textOf(page.locator('[data-job-status]')));
    await page.getByRole('link', { name: 'Open the transcript' }).waitFor({ timeout: 20_000 });
    await expect(textOf(page.locator('[data-job-status]'))).resolves.toBe('succeeded');
    await expect(textOf(page.locator('[data-job-stage]'))).resolves.toBe('—');
    await check('job-succeeded');

    // The transcript: segments with times, downloads in four formats.
    await page.getByRole('link', { name: 'Open the transcript' }).click();
    await expect(textOf(heading())).resolves.toMatch(/^Transcript/);
    const segments = page.locator('ol.segments li');
    expect(await segments.count()).toBeGreaterThan(3);
    expect(await textOf(segments.first())).toMatch(/^\d\d:\d\d–\d\d:\d\d \S/);
    const downloads = page
      .getByRole('list')
      .filter({ has: page.getByRole('link', { name: 'SRT' }) })
      .getByRole('link');
    expect((await downloads.allTextContents()).map((t) => t.trim())).toEqual(['TXT', 'SRT', 'VTT', 'JSON']);
    for (const [format, looksLike] of [
      ['srt', /^1\r?\n\d\d:\d\d:\d\d,\d{3} --> /],
      ['vtt', /^WEBVTT/],
      ['json', /^\{/],
      ['txt', /\S/],
    ] as const) {
      const href = await page.getByRole('link', { name: format.toUpperCase(), exact: true }).getAttribute('href');
      const file = await context.request.get(href!);
      expect(file.status()).toBe(200);
      expect(file.headers()['content-disposition']).toMatch(/^attachment; filename=/);
      expect(await file.text()).toMatch(looksLike);
    }
    await check('transcript');
    const transcriptUrl = page.url();

    // Job list: filters and paging.
    await nav('Jobs');
    await expect(textOf(heading())).resolves.toBe('Jobs');
    await expect(page.locator('tbody tr').count()).resolves.toBe(2);
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);
    await expect(textOf(page.locator('tbody tr .badge'))).resolves.toBe('succeeded');
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Platform').selectOption('upload');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.getByText('No jobs match these filters.').count()).resolves.toBe(1);
    await page.goto('/dashboard/jobs?limit=1');
    await expect(textOf(page.locator('tbody tr .badge'))).resolves.toBe('succeeded');
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect(textOf(page.locator('tbody tr .badge'))).resolves.toBe('cancelled');
    await expect(page.getByRole('link', { name: 'Next page' }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'First page' }).click();
    await expect(textOf(page.locator('tbody tr .badge'))).resolves.toBe('succeeded');
    await check('jobs');

    // Retry of a job that failed with a retryable error: a new job, followed until it succeeds.
    const failedId = await retryableFailure(apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['pt'] });
    await page.goto(`/dashboard/jobs/${failedId}`);
    await expect(textOf(page.locator('[data-job-status]'))).resolves.toBe('failed');
    await expect(textOf(page.locator('dl.facts'))).resolves.toContain('SOURCE_RATE_LIMITED');
    await check('job-failed');
    await page.getByRole('button', { name: 'Retry job' }).click();
    await expect(textOf(notice())).resolves.toBe('A new job was started for this source.');
    expect(page.url()).not.toContain(failedId);
    await page.getByRole('link', { name: 'Open the transcript' }).waitFor({ timeout: 20_000 });

    // The delivery log (job.succeeded reached the receiver), resend, disable.
    await receiver.waitFor((all) => all.some((r) => r.body?.job_id === job.body.id && r.status === 200), 20_000);
    const eventId = receiver.received.find((r) => r.body?.job_id === job.body.id)!.event_id;
    await loggedDelivery(stack.api.deps.db, { eventId, succeeded: true });
    await nav('Webhooks');
    const delivered = page.getByRole('row', { name: /job\.succeeded/ });
    await expect(delivered.count()).resolves.toBe(1);
    await expect(textOf(delivered)).resolves.toContain('delivered');
    await page.getByRole('button', { name: `Resend event ${eventId}` }).click();
    await expect(textOf(notice())).resolves.toBe('The event is being sent again (same event id).');
    await receiver.waitFor((all) => all.filter((r) => r.event_id === eventId).length >= 2, 20_000);
    await check('webhooks');
    await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
    await expect(textOf(notice())).resolves.toBe('The endpoint is disabled.');
    await expect(textOf(page.getByRole('row', { name: /journey receiver/ }))).resolves.toContain('disabled');

    // Usage after work: two caption transcripts charged today, the key's last use shown.
    await nav('Usage');
    await expect(figure('Credits remaining')).resolves.toBe('48');
    await expect(textOf(page.locator('figcaption'))).resolves.toMatch(/^2 credits spent in the last 30 days/);
    await check('usage');
    await nav('API keys');
    await expect(
      textOf(
        page
          .getByRole('row', { name: /journey server/ })
          .getByRole('cell')
          .nth(4),
      ),
    ).resolves.toMatch(/UTC$/);

    // Transcript deletion.
    await page.goto(transcriptUrl);
    await page.getByRole('button', { name: 'Delete transcript' }).click();
    await expect(textOf(notice())).resolves.toBe('The transcript is deleted.');
    await page.goto(transcriptUrl);
    await expect(textOf(heading())).resolves.toBe('Not found');
    await check('not-found');
    await page.getByRole('link', { name: 'Back to the dashboard' }).click();
    await expect(textOf(heading())).resolves.toBe('Usage');
    await page.goto(transcriptUrl);

    // Billing: plan and subscription from the account, the quote calculator, checkout and portal.
    await nav('Billing');
    await expect(textOf(heading())).resolves.toBe('Billing');
    const fact = (label: string) => textOf(page.locator('dl.facts div', { hasText: label }).locator('dd'));
    await expect(fact('Plan')).resolves.toBe('Trial');
    await expect(fact('Subscription')).resolves.toBe('none');
    await page.getByLabel('Credits (multiples of 1000)').fill('5000');
    await page.getByRole('button', { name: 'Get a quote' }).click();
    await expect(textOf(page.locator('#quote'))).resolves.toContain('The trial cannot buy credits');
    await check('billing');
    await page.getByLabel('Plan').selectOption('pro');
    // The form sends the browser to the provider's hosted checkout (stripe-mock's session URL; the hosted
    // page itself is not reachable from here), or, with no provider configured, shows the refusal.
    const toProvider = async (button: string, host: RegExp) => {
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url().startsWith(`${base}/dashboard/billing/`)),
        page.getByRole('button', { name: button }).click(),
      ]);
      if (answer.status() === 303) {
        expect(answer.headers().location).toMatch(host);
        // The browser follows it (and fails offline); then back to the dashboard.
        await page.waitForURL((u) => !u.href.startsWith(base));
        await page.goto('/dashboard/billing');
        return 'redirected';
      }
      await page.waitForLoadState('load');
      await expect(textOf(heading())).resolves.not.toBe('Something went wrong');
      await expect(textOf(alert())).resolves.toMatch(/payment provider/i);
      return 'refused';
    };
    if ((await toProvider('Go to checkout', /^https:\/\/checkout\.stripe\.com\//)) === 'refused') await check('billing-checkout-refused');
    // Back from the provider (its return URL): the billing page with a notice.
    await page.goto('/app/billing?checkout=cancelled');
    await expect(textOf(notice())).resolves.toBe('The checkout was cancelled; nothing was charged.');
    // The portal button's post: stripe-mock answers a fixture URL on a development host that the page's
    // form-action (Stripe's real checkout and billing hosts) does not allow, so it is checked over HTTP with the browser's cookies.
    const portal = await context.request.post('/dashboard/billing/portal', {
      form: { _csrf: (await page.locator('meta[name="csrf-token"]').getAttribute('content'))! },
      maxRedirects: 0,
    });
    if (portal.status() === 303) expect(portal.headers().location).toMatch(/^https:\/\//);
    else expect(await portal.text()).toMatch(/payment provider/i);

    // Profile: display name and retention window.
    await page.goto('/dashboard/profile');
    await expect(textOf(heading())).resolves.toBe('Profile');
    await expect(page.getByLabel('Display name').inputValue()).resolves.toBe('Ada Lovelace');
    await page.getByLabel('Display name').fill('Ada L.');
    await page.getByLabel('Keep transcripts for (days)').fill('3');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(textOf(notice())).resolves.toBe('Saved.');
    await expect(page.getByLabel('Display name').inputValue()).resolves.toBe('Ada L.');
    await expect(page.getByLabel('Keep transcripts for (days)').inputValue()).resolves.toBe('3');
    await check('profile');

    // Account deletion by typing DELETE.
    await page.getByRole('link', { name: /Delete this account/ }).click();
    await expect(textOf(heading())).resolves.toBe('Delete account');
    await check('delete-account');
    await page.getByLabel('Type DELETE to confirm').fill('DELETE');
    await page.getByRole('button', { name: 'Delete account' }).click();
    await expect(textOf(heading())).resolves.toBe('Account deleted');
    await check('account-deleted');
    expect((await request(app()).get('/v1/usage').set(bearer(apiKey))).status).toBe(403);
    await page.goto('/dashboard/usage');
    await expect(textOf(heading())).resolves.toBe('Sign in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(textOf(alert())).resolves.toBe('This workspace is disabled.');

    // Sign-out, on a second account (the first one is gone).
    const other = await createWorkspace(stack.api.deps);
    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(other.email);
    await page.getByLabel('Password').fill(other.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/usage');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(textOf(notice())).resolves.toBe('You are signed out.');
    await page.goto('/dashboard/keys');
    await expect(textOf(heading())).resolves.toBe('Sign in');

    expect(pagesChecked.length).toBeGreaterThanOrEqual(20);
  }
});

// ---------------------------------------------------------------- security, over plain HTTP

interface PageSession {
  cookie: string;
  csrf: string;
  setCookie: string[];
}

/** Signs in through the sign-in form; the CSRF token is read from a rendered page, as the browser has it. */
async function pageSignIn(ws: { email: string; password: string }): Promise<PageSession> {
  const res = await request(app()).post('/app/sign-in').type('form').send({ email: ws.email, password: ws.password });
  expect(res.status).toBe(303);
  const setCookie = res.headers['set-cookie'] as unknown as string[];
  const cookie = setCookie.map((c) => c.split(';')[0]).join('; ');
  const usage = await request(app()).get('/dashboard/usage').set('Cookie', cookie).expect(200);
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(usage.text)![1]!;
  return { cookie, csrf, setCookie };
}

const post = (s: PageSession, path: string, form: Record<string, string | string[]>) =>
  request(app()).post(path).set('Cookie', s.cookie).type('form').send(form);

describe('dashboard security', () => {
  let a: TestWorkspace;
  let b: TestWorkspace;
  let sa: PageSession;
  let sb: PageSession;
  let ids: { job: string; transcript: string; key: string; endpoint: string; delivery: string; failedJob: string };

  beforeAll(async () => {
    a = await createWorkspace(stack.api.deps, { plan: 'pro' });
    b = await createWorkspace(stack.api.deps, { plan: 'pro' });
    sa = await pageSignIn(a);
    sb = await pageSignIn(b);
    const created = await post(sa, '/dashboard/webhooks', { _csrf: sa.csrf, url: receiver.url });
    expect(created.status).toBe(201);
    const endpoint = await stack.api.deps.db.webhookEndpoint.findFirstOrThrow({ where: { workspaceId: a.workspaceId } });
    receiver.configure({ secret: /value="(whsec_[^"]+)"/.exec(created.text)![1]!, failFirst: 0 });
    const job = await submit(stack.api, a.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', webhook_endpoint_id: endpoint.id });
    const done = await waitFinal(stack.api, a.apiKey, job.body.id);
    expect(done.body.status).toBe('succeeded');
    await receiver.waitFor((all) => all.some((r) => r.body?.job_id === job.body.id && r.status === 200), 20_000);
    const delivery = await loggedDelivery(stack.api.deps.db, { workspaceId: a.workspaceId });
    const key = await stack.api.deps.db.apiKey.findFirstOrThrow({ where: { workspaceId: a.workspaceId } });
    const failedJob = await retryableFailure(a.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['pt'] });
    ids = { job: job.body.id, transcript: done.body.result_id, key: key.id, endpoint: endpoint.id, delivery: delivery.id, failedJob };
  }, 60_000);

  it('sets the session cookie with the documented flags, and the CSRF cookie HttpOnly and SameSite=Strict', () => {
    const session = sa.setCookie.find((c) => c.startsWith('ts_session='))!;
    const csrf = sa.setCookie.find((c) => c.startsWith('ts_csrf='))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).toMatch(/; Path=\//);
    expect(csrf).toMatch(/; HttpOnly/);
    expect(csrf).toMatch(/; SameSite=Strict/);
    // Secure outside local development (APP_ENV=production); the test stack runs on plain http.
    expect(session).not.toMatch(/; Secure/);
  });

  it('refuses every page write without the CSRF token, or with a wrong one, and changes nothing', async () => {
    const writes = registeredRoutes(dashboardRouter(stack.api.deps)).filter(
      (r) => r.method === 'post' && r.path !== '/app/sign-in' && r.path !== '/dashboard/sign-up',
    );
    expect(writes.length).toBe(13);
    const idFor = (p: string) =>
      p.includes('/keys/')
        ? ids.key
        : p.includes('/deliveries/')
          ? ids.delivery
          : p.includes('/webhooks/')
            ? ids.endpoint
            : p.includes('/transcripts/')
              ? ids.transcript
              : p.includes('/retry')
                ? ids.failedJob
                : ids.job;
    for (const route of writes) {
      const path = route.path.replace(':id', idFor(route.path));
      const form = {
        confirm: 'DELETE',
        name: 'x',
        scopes: 'jobs:read',
        url: receiver.url,
        display_name: 'Mallory',
        idempotency_key: 'k-12345678',
      };
      for (const csrf of [undefined, 'not-the-token', sb.csrf]) {
        const res = await post(sa, path, csrf === undefined ? form : { ...form, _csrf: csrf });
        expect([path, res.status]).toEqual([path, 403]);
        expect(res.text).toContain('CSRF token');
      }
    }
    // Nothing happened: the key, the endpoint, the transcript, the profile and the workspace are as they were.
    const db = stack.api.deps.db;
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: ids.key } })).revokedAt).toBeNull();
    expect((await db.webhookEndpoint.findUniqueOrThrow({ where: { id: ids.endpoint } })).enabled).toBe(true);
    expect((await db.transcript.findUniqueOrThrow({ where: { id: ids.transcript } })).deletedAt).toBeNull();
    expect((await db.user.findUniqueOrThrow({ where: { id: a.userId } })).displayName).toBe('Test');
    expect((await db.workspace.findUniqueOrThrow({ where: { id: a.workspaceId } })).status).toBe('active');
    expect(await db.apiKey.count({ where: { workspaceId: a.workspaceId } })).toBe(1);
    expect(await db.job.count({ where: { workspaceId: a.workspaceId } })).toBe(2);
    // The session is still valid: the same write with the token works.
    await post(sa, '/dashboard/keys', { _csrf: sa.csrf, name: 'with token', scopes: 'jobs:read' }).expect(201);
  });

  it('refuses a form posted from another site, sign-in included (login CSRF)', async () => {
    const signIn = await request(app())
      .post('/app/sign-in')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ email: a.email, password: a.password });
    expect(signIn.status).toBe(403);
    expect(signIn.headers['set-cookie']).toBeUndefined();
    const write = await post(sa, '/dashboard/keys', { _csrf: sa.csrf, name: 'cross-site', scopes: 'jobs:read' }).set(
      'Origin',
      'https://evil.example',
    );
    expect(write.status).toBe(403);
    expect(await stack.api.deps.db.apiKey.count({ where: { workspaceId: a.workspaceId, name: 'cross-site' } })).toBe(0);
  });

  it('renders a secret once: never on a later page, never in a JSON list', async () => {
    const key = await post(sa, '/dashboard/keys', { _csrf: sa.csrf, name: 'once', scopes: ['jobs:read', 'jobs:write'] }).expect(201);
    const secret = /value="(tsk_[^"]+)"/.exec(key.text)![1]!;
    expect(key.text.split(secret)).toHaveLength(2); // exactly once in the page that created it
    expect(key.headers['cache-control']).toBe('no-store');
    const hook = await post(sa, '/dashboard/webhooks', { _csrf: sa.csrf, url: receiver.url, description: 'once' }).expect(201);
    const whsec = /value="(whsec_[^"]+)"/.exec(hook.text)![1]!;
    expect(hook.text.split(whsec)).toHaveLength(2);
    for (const path of ['/dashboard/keys', '/dashboard/webhooks', '/dashboard/usage', '/dashboard/profile', '/dashboard/jobs']) {
      const res = await request(app()).get(path).set('Cookie', sa.cookie).expect(200);
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain(whsec);
    }
    const keys = await request(app()).get('/app/keys').set(bearer(a.apiKey)).expect(200);
    expect(JSON.stringify(keys.body)).not.toContain(secret);
  });

  it("answers 404 for another workspace's ids, in pages and in page writes", async () => {
    for (const path of [`/dashboard/jobs/${ids.job}`, `/dashboard/transcripts/${ids.transcript}`]) {
      const mine = await request(app()).get(path).set('Cookie', sa.cookie);
      expect(mine.status).toBe(200);
      const theirs = await request(app()).get(path).set('Cookie', sb.cookie);
      expect([path, theirs.status]).toEqual([path, 404]);
      expect(theirs.text).toContain('There is nothing here in your workspace.');
    }
    for (const path of [
      `/dashboard/keys/${ids.key}/revoke`,
      `/dashboard/webhooks/${ids.endpoint}/disable`,
      `/dashboard/webhooks/deliveries/${ids.delivery}/resend`,
      `/dashboard/transcripts/${ids.transcript}/delete`,
      `/dashboard/jobs/${ids.job}/cancel`,
      `/dashboard/jobs/${ids.failedJob}/retry`,
    ]) {
      const res = await post(sb, path, { _csrf: sb.csrf, idempotency_key: 'dashboard-test-key-1' });
      expect([path, res.status]).toEqual([path, 404]);
    }
    // B's pages list none of A's things.
    for (const path of ['/dashboard/jobs', '/dashboard/keys', '/dashboard/webhooks']) {
      const res = await request(app()).get(path).set('Cookie', sb.cookie).expect(200);
      for (const id of [ids.job, ids.endpoint, ids.delivery]) expect(res.text).not.toContain(id);
    }
    expect((await stack.api.deps.db.apiKey.findUniqueOrThrow({ where: { id: ids.key } })).revokedAt).toBeNull();
  });

  it('answers a replayed retry form at the rate limit as POST /v1/jobs/{id}/retry does, and refuses a new one', async () => {
    const c = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const sc = await pageSignIn(c);
    const failedJob = await retryableFailure(c.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['pt'] });
    const form = { _csrf: sc.csrf, idempotency_key: 'dashboard-retry-replay-1' };
    const first = await post(sc, `/dashboard/jobs/${failedJob}/retry`, form);
    expect(first.status).toBe(303);
    const retried = /\/dashboard\/jobs\/([0-9a-f-]{36})\?done=retried/.exec(first.headers.location ?? '')![1]!;
    expect(retried).not.toBe(failedJob);
    // Every submit point of the minute spent, as by a burst of API calls.
    await stack.api.deps.rateLimits.consume('submit', 'pro', c.workspaceId, 1_000_000).catch(() => undefined);
    const replay = await post(sc, `/dashboard/jobs/${failedJob}/retry`, form);
    expect([replay.status, replay.headers.location]).toEqual([303, `/dashboard/jobs/${retried}?done=retried`]);
    const fresh = await post(sc, `/dashboard/jobs/${failedJob}/retry`, { ...form, idempotency_key: 'dashboard-retry-replay-2' });
    expect(fresh.status).toBe(429);
    expect(fresh.headers['retry-after']).toMatch(/^\d+$/);
    expect(await stack.api.deps.db.job.count({ where: { workspaceId: c.workspaceId } })).toBe(2);
  });

  it('sends the Content-Security-Policy on every page, and no page has inline script, handler or style', async () => {
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    expect(DASHBOARD_CSP).not.toContain('unsafe-eval');
    const pages = [
      ['/app/sign-in', null, 200],
      ['/dashboard/sign-up', null, 200],
      ['/dashboard/usage', sa, 200],
      ['/dashboard/keys', sa, 200],
      ['/dashboard/jobs', sa, 200],
      [`/dashboard/jobs/${ids.job}`, sa, 200],
      [`/dashboard/jobs/${ids.failedJob}`, sa, 200],
      [`/dashboard/transcripts/${ids.transcript}`, sa, 200],
      ['/dashboard/webhooks', sa, 200],
      ['/dashboard/billing?units=5000', sa, 200],
      ['/dashboard/profile', sa, 200],
      ['/dashboard/account/delete', sa, 200],
      // A job that does not exist: a 404 page, under the same policy.
      [`/dashboard/jobs/00000000-0000-4000-8000-000000000000`, sa, 404],
    ] as const;
    for (const [path, s, status] of pages) {
      const res = await request(app())
        .get(path)
        .set('Cookie', s?.cookie ?? '');
      expect([path, res.status]).toEqual([path, status]);
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.text).toMatch(/^<!doctype html>\s*<html lang="en">\s*<head>\s*<meta charset="utf-8" \/>/);
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
      expect(res.text).not.toMatch(/\son[a-z]+\s*=/i);
      expect(res.text).not.toMatch(/\sstyle\s*=/i);
      expect(res.text).not.toMatch(/<style/i);
    }
    const verify = await request(app())
      .get('/app/verify-email')
      .query({ token: 'x'.repeat(20) });
    expect(verify.status).toBe(422); // an unknown token is refused (JSON envelope, as before)
    const js = await request(app()).get('/dashboard/static/dashboard.js').expect(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
  });

  it('quotes credits with the volume discount on a paid plan, and refuses numbers out of range', async () => {
    const ten = await request(app()).get('/dashboard/billing').query({ units: '10000' }).set('Cookie', sa.cookie).expect(200);
    expect(ten.text.replace(/\s+/g, ' ')).toMatch(
      /<strong>10000<\/strong> credits at \$7\.00 per 1000 \(10 % volume discount\): <strong>\$63\.00<\/strong>/,
    );
    expect(ten.text).toContain('Buy 10000 credits');
    const odd = await request(app()).get('/dashboard/billing').query({ units: '1500' }).set('Cookie', sa.cookie).expect(200);
    expect(odd.text).toContain('units must be 1000 to 100000 in steps of 1000.');
    const missing = await request(app()).get('/dashboard/static/nothing.js');
    expect(missing.status).toBe(404);
  });

  it('signs a page request with no session in to the sign-in page, and an unverified owner to a notice', async () => {
    const res = await request(app()).get('/dashboard/keys');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/app/sign-in');
    // A session from the JSON sign-in (no CSRF cookie) is sent to sign in through the form.
    const json = await request(app()).post('/app/session').send({ email: a.email, password: a.password }).expect(200);
    const cookie = (json.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
    expect((await request(app()).get('/dashboard/keys').set('Cookie', cookie)).status).toBe(303);
    const u = await createWorkspace(stack.api.deps, { verified: false });
    const su = await pageSignIn(u).catch(() => null);
    expect(su).toBeNull(); // the usage page is refused (403) before a token can be read from it
    const signIn = await request(app()).post('/app/sign-in').type('form').send({ email: u.email, password: u.password });
    const cu = (signIn.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
    const page = await request(app()).get('/dashboard/usage').set('Cookie', cu);
    expect(page.status).toBe(403);
    expect(page.text).toContain('Verify your e-mail address first');
  });

  it('refuses DELETE typed any other way, and the wrong form fields, with the JSON routes’ own schemas', async () => {
    const res = await post(sa, '/dashboard/account/delete', { _csrf: sa.csrf, confirm: 'delete' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('Type DELETE (in capital letters) to confirm.');
    const key = await post(sa, '/dashboard/keys', { _csrf: sa.csrf, name: 'no scopes' });
    expect(key.status).toBe(422);
    expect(key.text).toContain('scopes: choose at least one scope');
    const hook = await post(sa, '/dashboard/webhooks', { _csrf: sa.csrf, url: 'https://10.0.0.5/hook' });
    expect(hook.status).toBe(422);
    const profile = await post(sa, '/dashboard/profile', { _csrf: sa.csrf, display_name: 'A', retention_days: '400' });
    expect(profile.status).toBe(422);
    expect((await stack.api.deps.db.workspace.findUniqueOrThrow({ where: { id: a.workspaceId } })).status).toBe('active');
  });
});

describe("the transcript page's player", () => {
  let ws: TestWorkspace;
  let session: PageSession;
  let transcriptId: string;
  let wavBytes: Buffer;

  beforeAll(async () => {
    ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    session = await pageSignIn(ws);
    // Two voices (JFK, then a LibriSpeech reader): an upload transcribed with speaker labels.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'player-'));
    const wav = await twoVoiceWav(path.join(dir, 'talk.wav'));
    wavBytes = fs.readFileSync(wav);
    const uploadId = await uploadReady(stack.api, ws, wav, 'audio/wav');
    const res = await submit(stack.api, ws.apiKey, {
      source: { upload_id: uploadId },
      mode: 'transcribe',
      language: 'en',
      speaker_labels: true,
    });
    const done = await waitUntilFinal(stack.api, ws.apiKey, res.body.id);
    expect(done.body.status).toBe('succeeded');
    transcriptId = done.body.result_id;
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('serves the upload to its own workspace only, in byte ranges', async () => {
    const media = `/dashboard/transcripts/${transcriptId}/media`;
    const whole = await request(app()).get(media).set('Cookie', session.cookie).responseType('blob').expect(200);
    expect(whole.headers['content-type']).toBe('audio/wav');
    expect(Buffer.compare(whole.body as Buffer, wavBytes)).toBe(0);
    const part = await request(app())
      .get(media)
      .set('Cookie', session.cookie)
      .set('Range', 'bytes=100-199')
      .responseType('blob')
      .expect(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${wavBytes.length}`);
    expect(Buffer.compare(part.body as Buffer, wavBytes.subarray(100, 200))).toBe(0);
    const tail = await request(app()).get(media).set('Cookie', session.cookie).set('Range', 'bytes=-10').responseType('blob').expect(206);
    expect(Buffer.compare(tail.body as Buffer, wavBytes.subarray(wavBytes.length - 10))).toBe(0);
    await request(app()).get(media).set('Cookie', session.cookie).set('Range', `bytes=${wavBytes.length}-`).expect(416);
    const stranger = await pageSignIn(await createWorkspace(stack.api.deps, { plan: 'pro' }));
    await request(app()).get(media).set('Cookie', stranger.cookie).expect(404);
    expect(DASHBOARD_CSP).toContain("media-src 'self'");
  });

  /** A browser context carrying the workspace's dashboard session. */
  async function signedInBrowser(): Promise<BrowserContext> {
    const context = await chromium.browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    await context.addCookies(
      session.setCookie.map((c) => {
        const [pair] = c.split(';');
        const [name, ...value] = pair!.split('=');
        return { name: name!, value: value.join('='), url: base };
      }),
    );
    return context;
  }

  it('names the speakers, marks the word said, and seeks where a word is clicked', async () => {
    const context = await signedInBrowser();
    try {
      const page = await context.newPage();
      await page.goto(`/dashboard/transcripts/${transcriptId}`);
      await page.waitForLoadState('load');
      const facts = ((await page.locator('dl.facts').textContent()) ?? '').replace(/\s+/g, ' ');
      expect(facts).toMatch(/Speakers A \d+ words, [\d:]+; B \d+ words/);
      expect(await page.locator('.segments li .spk').allTextContents()).toEqual(expect.arrayContaining(['A', 'B']));
      expect(await seriousA11yViolations(page)).toEqual([]);
      const player = page.locator('audio[data-player]');
      await player.waitFor();
      await until(page, "document.querySelector('audio[data-player]').readyState >= 1");
      // Click a word of the second speaker: the player moves to it and marks it.
      const word = page
        .locator('.segments li')
        .filter({ has: page.locator('.spk', { hasText: 'B' }) })
        .locator('.w[data-start]')
        .nth(2);
      const start = Number(await word.getAttribute('data-start'));
      // Playback would move the playhead (and the marked word) on before a poll sees it on a loaded host:
      // the seek is recorded and the play call held, so what is checked is the click's own effect.
      await page.evaluate(HOLD_PLAYER, 'audio[data-player]');
      await word.click();
      // play() is called at once; the `seeking` event is queued as a task after the seek, so it can come later.
      await until(page, 'window.__player.played && window.__player.seeks.length > 0');
      expect(await page.evaluate('window.__player.seeks')).toEqual([expect.closeTo(start, 2)]);
      await until(page, "document.querySelector('.w[aria-current]') !== null");
      expect(Number(await page.locator('.w[aria-current]').getAttribute('data-start'))).toBeCloseTo(start, 2);
      await screenshots(page, 'transcript-player');
    } finally {
      await context.close();
    }
  });
  it('lists the chapters, and a click on a chapter seeks the player to its start', async () => {
    // The page shows the view as stored: chapters written onto the row as the chapters step writes them.
    const t = await stack.api.deps.db.transcript.findUniqueOrThrow({ where: { id: transcriptId } });
    const segments = t.segments as Array<{ start: number }>;
    const second = segments[Math.floor(segments.length / 2)]!.start;
    const chapters = [
      { start: 0, end: second, title: 'The president', origin: 'computed' },
      { start: second, end: t.durationSeconds ?? second + 1, title: 'The <reader>', origin: 'computed' },
    ];
    await stack.api.deps.db.transcript.update({ where: { id: transcriptId }, data: { chapters } });
    const context = await signedInBrowser();
    try {
      const page = await context.newPage();
      await page.goto(`/dashboard/transcripts/${transcriptId}`);
      await page.waitForLoadState('load');
      expect(await page.locator('ol.chapters .chapter-title').allTextContents()).toEqual(['The president', 'The <reader>']);
      expect(await page.getByRole('link', { name: 'Chapters (WebVTT)' }).getAttribute('href')).toBe(
        `/v1/transcripts/${transcriptId}/export?format=chapters`,
      );
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.locator('audio[data-player]').waitFor();
      await until(page, "document.querySelector('audio[data-player]').readyState >= 1");
      await page.evaluate(HOLD_PLAYER, 'audio[data-player]');
      await page.locator('ol.chapters li').nth(1).locator('a.t').click();
      await until(page, 'window.__player.played && window.__player.seeks.length > 0');
      expect(await page.evaluate('window.__player.seeks')).toEqual([expect.closeTo(second, 2)]);
    } finally {
      await context.close();
      await stack.api.deps.db.transcript.update({ where: { id: transcriptId }, data: { chapters: Prisma.DbNull } });
    }
  });
});

describe('units', () => {
  it('marks the CSRF cookie Secure, HttpOnly and SameSite=Strict in production', () => {
    const calls: [string, CookieOptions][] = [];
    const res = { cookie: (name: string, _value: string, opts: CookieOptions) => calls.push([name, opts]) } as unknown as Response;
    setCsrfCookie(res, { config: { APP_ENV: 'production' } } as AppDeps, 'csrf');
    expect(calls.map(([name, o]) => [name, o.secure, o.httpOnly, o.sameSite, o.path])).toEqual([['ts_csrf', true, true, 'strict', '/']]);
  });

  it('escapes every value, and shades words by confidence with a legend', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(html`<p>${'<script>alert(1)</script>'}</p>`.text).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    const t: TranscriptView = {
      id: '00000000-0000-4000-8000-000000000001',
      source: { platform: 'upload', media_id: 'up_1', canonical_url: null, title: '<b>clip</b>' },
      source_origin: 'speech_recognition',
      language: 'en',
      text: 'hello <world> again',
      segments: [
        { start: 0, end: 1.5, text: 'hello <world>', speaker: null, language: 'en', match: null },
        { start: 61.2, end: 62, text: 'again', speaker: null, language: 'en', match: null },
      ],
      words: [
        { start: 0, end: 0.5, text: 'hello', confidence: 0.97, speaker: null },
        { start: 0.6, end: 1.5, text: '<world>', confidence: 0.42, speaker: null },
        { start: 61.2, end: 62, text: 'again', confidence: 0.75, speaker: null },
      ],
      timing_granularity: 'word',
      duration_seconds: 62,
      speakers: null,
      languages: [{ language: 'en', seconds: 2.3 }],
      caption_language_check: null,
      recognition: { model: 'whisper-base', profile: 'standard', quality_status: 'validated_language' },
      alignment: null,
      chapters: null,
      translation: null,
      summary: null,
      redacted_audio: null,
      extraction_version: 'x',
      created_at: new Date().toISOString(),
      expires_at: new Date().toISOString(),
    };
    const out = transcriptBody(t, 'tok').text;
    expect(out).toContain(
      '<span class="w c3" data-start="0" data-end="0.5" title="confidence 0.97">hello</span> <span class="w c0" data-start="0.6" data-end="1.5" title="confidence 0.42">&lt;world&gt;</span>',
    );
    expect(out).toContain('<time datetime="PT61.200S">01:01</time>');
    expect(out).toContain('<span class="w c2" data-start="61.2" data-end="62" title="confidence 0.75">again</span>');
    expect(out).toContain('Words are shaded by the recognizer’s confidence');
    expect(out).not.toContain('<b>');
    expect(out).not.toContain('not heard');
    // An aligned caption track: the segments the audio does not say are marked, and counted above.
    const aligned = transcriptBody(
      {
        ...t,
        segments: [
          { ...t.segments[0]!, match: 0.9 },
          { ...t.segments[1]!, match: 0.1 },
        ],
        alignment: { method: 'word_timing', model: 'whisper-base', match_threshold: 0.3, segments_below_threshold: 1 },
      },
      'tok',
    ).text;
    expect(aligned).toContain('<strong>1 of 2 segments not heard</strong>');
    expect(aligned.match(/class="nomatch" title="match 0.1"/g)).toHaveLength(1);
    // A translated transcript: its text per segment in its language, and the translated caption downloads.
    expect(out).not.toContain('Translation (');
    const translated = transcriptBody(
      {
        ...t,
        translation: {
          language: 'pt',
          origin: 'machine',
          segments: [
            { start: 0, end: 1.5, text: 'olá <mundo>' },
            { start: 61.2, end: 62, text: 'de novo' },
          ],
        },
      },
      'tok',
    ).text;
    expect(translated).toContain('<h2>Translation (pt)</h2>');
    expect(translated).toContain('machine translation model');
    expect(translated).toContain('<span class="seg">olá &lt;mundo&gt;</span>');
    expect(translated).toContain(`/v1/transcripts/${t.id}/export?format=srt&amp;translated=true`);
  });
});
