import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';

// Debian's Chromium driven by playwright-core (Playwright's own browser
// download cannot work here; stack/browser-setup.sh installs `chromium`).

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(__dirname, '../../.data/dashboard-screenshots');

/** Headless, with the flags that keep it quiet offline; playwright-core gives it a fresh profile of its own. */
export async function launchChromium(extraArgs: string[] = []): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

/** axe-core's findings of serious or critical impact (the bar the dashboard must clear), as readable lines. */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Desktop and phone-width screenshots of the page, kept under `dir` (.data/dashboard-screenshots/ unless given). */
export async function screenshots(page: Page, name: string, dir = SCREENSHOT_DIR): Promise<{ phoneOverflowPx: number }> {
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
  const desktop = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(dir, `${name}.phone.png`), fullPage: true });
  const phoneOverflowPx = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
  if (desktop) await page.setViewportSize(desktop);
  return { phoneOverflowPx };
}

/**
 * Runs in the page (`page.evaluate(HOLD_PLAYER, selector)`): records where the media element seeks to and
 * whether it was told to play, and keeps it from playing. A playing element moves its playhead on between
 * two polls, so a test that checks a seek by reading currentTime afterwards races playback; this records
 * the seek's own target (currentTime during the `seeking` event) instead. The record is `window.__player`.
 */
export function HOLD_PLAYER(selector: string): void {
  // Typed by hand: the tests compile without the DOM library, and this body only runs in the page.
  interface Media {
    currentTime: number;
    play: () => Promise<void>;
    addEventListener(type: string, listener: () => void): void;
  }
  const page = globalThis as unknown as { document: { querySelector(s: string): Media }; __player?: unknown };
  const media = page.document.querySelector(selector);
  const record = { seeks: [] as number[], played: false };
  page.__player = record;
  media.addEventListener('seeking', () => record.seeks.push(media.currentTime));
  media.play = () => {
    record.played = true;
    return Promise.resolve();
  };
}

/**
 * Polls an expression in the page until it is true. Playwright's waitForFunction evaluates its predicate with eval
 * inside the page, which the dashboard's CSP (no 'unsafe-eval') refuses; evaluate does not.
 */
export async function until(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${expression}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
