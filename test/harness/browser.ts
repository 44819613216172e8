// A real browser for the e2e tests of the RESTful server's pages: Debian's chromium (installed on first
// use, as the other tests' Debian packages are), headless, driven by playwright-core. Every step has a
// timeout; every request URL, every answer body of text, and every dialog the pages open are recorded.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { runHackScript } from '../../workbench/src/tooling/hack-script.ts';
import { findProjectRoot } from '../../workbench/src/tooling/project.ts';

export const CHROMIUM = '/usr/bin/chromium';
/** A step (a click, a wait for something on a page) fails past this. */
export const STEP_MS = 20_000;
/** What the tests write for review (git ignores it): screenshots. */
export const PAGES_OUTPUT = join(findProjectRoot(), 'test-output', 'pages');

const TEXT_TYPES = /^(text\/|application\/json)/;

export interface Recorded {
  readonly urls: string[];
  readonly bodies: string[];
  readonly dialogs: string[];
  /** Reads of answer bodies still under way. */
  readonly pending: Promise<unknown>[];
}

export interface TestBrowser {
  readonly browser: Browser;
  /** A fresh page in a context of its own (its own cookies), recording into `recorded`. */
  page(): Promise<Page>;
  readonly recorded: Recorded;
  readonly contexts: BrowserContext[];
  /** A screenshot of the page, as PAGES_OUTPUT/<name>.png. */
  shoot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  await runHackScript('ensure-packages.sh', ['the browser tests (RESTful pages)', 'chromium']);
  const { chromium } = await import('playwright-core');
  // As root, Chromium's own sandbox cannot start: the test's pages are its own server's.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 60_000,
    args: ['--no-sandbox'],
  });
  mkdirSync(PAGES_OUTPUT, { recursive: true });
  const recorded: Recorded = { urls: [], bodies: [], dialogs: [], pending: [] };
  const contexts: BrowserContext[] = [];
  return {
    browser,
    recorded,
    contexts,
    async page() {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_MS);
      page.setDefaultNavigationTimeout(30_000);
      page.on('request', (request) => recorded.urls.push(request.url()));
      page.on('response', (response) => {
        const type = response.headers()['content-type'] ?? '';
        // Streams of job output end with their job: read only what a page is made of.
        if (!TEXT_TYPES.test(type) || type.startsWith('text/plain')) return;
        recorded.pending.push(
          response.text().then(
            (text) => recorded.bodies.push(text),
            () => undefined,
          ),
        );
      });
      page.on('dialog', (dialog) => {
        recorded.dialogs.push(dialog.message());
        void dialog.dismiss().catch(() => undefined);
      });
      return page;
    },
    async shoot(page, name) {
      const path = join(PAGES_OUTPUT, `${name}.png`);
      await page.screenshot({ path, fullPage: true, timeout: STEP_MS });
      return path;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
    },
  };
}
