import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { GUIDE_DIR } from '../api/docs';
import { createHttpServer } from '../api/http/server';
import { launchChromium } from './support/browser';
import { startTestApi, type TestApi } from './support/harness';

// The documentation site (issue 51, item 6), as a newcomer meets it: served by the API at /guide/ (built by the
// tooling gate, stack/docs.ts, before any test), its search finds "Idempotency-Key", and every page of the
// navigation opens, under the site's own Content-Security-Policy (no inline script it did not hash).

let api: TestApi;
let server: net.Server;
let base: string;
let browser: Browser;
let closeBrowser: () => Promise<void>;

beforeAll(async () => {
  expect(fs.existsSync(path.join(GUIDE_DIR, 'index.html'))).toBe(true);
  api = await startTestApi();
  server = createHttpServer(api.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  ({ browser, close: closeBrowser } = await launchChromium());
});
afterAll(async () => {
  await closeBrowser?.();
  await new Promise((r) => server.close(r));
  await api.close();
});

it('the search finds Idempotency-Key and leads to a page that explains it', async () => {
  const page = await browser.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') violations.push(m.text());
  });
  await page.goto(`${base}/guide/`);
  await page.locator('.DocSearch-Button, .VPNavBarSearchButton, button[aria-label="Search"]').first().click();
  await page.locator('input.DocSearch-Input, #localsearch-input, input[type="search"]').first().fill('Idempotency-Key');
  const hits = page.locator('#localsearch-list a, .result a, ul[role="listbox"] a');
  await hits.first().waitFor({ timeout: 15_000 });
  expect(await hits.count()).toBeGreaterThan(0);
  await hits.first().click();
  await page.waitForLoadState('load');
  expect(await page.locator('main').innerText()).toContain('Idempotency-Key');
  // The page ran under its own CSP: nothing refused.
  expect(violations.filter((v) => /Content Security Policy|Refused to/.test(v))).toEqual([]);
  await page.close();
}, 60_000);

it('every page of the navigation opens, with a heading, and no link between pages is dead', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/guide/`);
  const links = await page
    .locator('.VPSidebar a[href], .VPNav a[href]')
    .evaluateAll((as) => [...new Set(as.map((a) => (a as unknown as { href: string }).href))]);
  const internal = links.filter((l) => l.startsWith(`${base}/guide/`));
  // The guides, the reference pages and the overview.
  expect(internal.length).toBeGreaterThanOrEqual(20);
  for (const link of internal) {
    const res = await page.goto(link);
    expect({ link, status: res?.status() }).toEqual({ link, status: 200 });
    expect((await page.locator('main h1').first().innerText()).length).toBeGreaterThan(0);
  }
  await page.close();
}, 120_000);
