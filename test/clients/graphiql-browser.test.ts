import { mkdir } from 'node:fs/promises';
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';
import { SANDBOX_TOKEN } from '../../src/sandbox/server.js';
import { describeInBrowser } from '../support/browser.js';
import { gatewayOverSandbox } from '../support/fixtures.js';

const SCREENSHOT = new URL('../../test-output/graphiql.png', import.meta.url).pathname;

/** The text an editor pane shows; Monaco draws every space as a no-break space. */
const shown = async (pane: Locator) => (await pane.innerText()).replaceAll('\u00a0', ' ');

// As `npm start` runs it: the embedded sandbox, and GraphiQL opening with its header.
const it = gatewayOverSandbox();

describeInBrowser('GraphiQL in headless Chromium', () => {
  it('opens with the example tabs and the sandbox header, runs the apiKeys query, then the example mutation', async ({
    browser,
    gateway,
  }) => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    // Every Content-Security-Policy violation the page reports, and every console error.
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (event) =>
        (window as unknown as { reportViolation(text: string): void }).reportViolation(`${event.violatedDirective} ${event.blockedURI}`),
      ),
    );
    page.on('console', (message) => {
      if (message.type() === 'error') violations.push(message.text());
    });
    const executed = page.waitForRequest((request) => request.method() === 'POST' && request.postDataJSON()?.operationName === 'ApiKeys');

    const opened = await page.goto(gateway.url);
    expect(opened!.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 15_000 }).toEqual(['ApiKeys', 'UpdateCategory']);
    await page.locator('.graphiql-execute-button').click();

    const request = await executed;
    expect(request.headers().authorization).toBe(`Bearer ${SANDBOX_TOKEN}`);
    const answer = await (await request.response())!.json();
    expect(answer.data.apiKeys.edges.map((edge: { node: { name: string } }) => edge.node.name)).toEqual([
      'API key 1',
      'API key 2',
      'API key 3',
      'API key 4',
      'API key 5',
    ]);
    const result = page.locator('.graphiql-response');
    await expect.poll(() => shown(result), { timeout: 15_000 }).toContain('"name": "API key 1"');
    expect(await shown(result)).toContain('"name": "API key 2"');
    // Every line of the example, its comment included, is shown whole in a window of 1400 × 900.
    expect(await overflowingLines(page.locator('.graphiql-query-editor'))).toEqual([]);

    await mkdir(new URL('../../test-output/', import.meta.url), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    // Everything GraphiQL needs is served by the gateway itself: no CDN, no other host.
    const origins = new Set(requested.filter((url) => /^https?:/.test(url)).map((url) => new URL(url).origin));
    expect([...origins]).toEqual([new URL(gateway.url).origin]);

    // Right after a tab switch GraphiQL still holds the other tab's operation name, which the
    // document does not have: the fetcher runs the document's one operation all the same.
    await page.locator('.graphiql-tab', { hasText: 'UpdateCategory' }).click();
    await expect.poll(() => shown(page.locator('.graphiql-query-editor .view-lines'))).toContain('mutation UpdateCategory');
    expect(await overflowingLines(page.locator('.graphiql-query-editor'))).toEqual([]);
    const mutated = page.waitForRequest(
      (request) => request.method() === 'POST' && request.postDataJSON()?.query.includes('mutation UpdateCategory'),
    );
    await page.locator('.graphiql-execute-button').click();
    const mutation = await (await (await mutated).response())!.json();
    expect(mutation).toMatchObject({
      data: { updateCategory: { category: { id: 'cat_001', name: 'Renamed in GraphiQL', value: 'category-1' } } },
    });
    await expect.poll(() => shown(page.locator('.graphiql-response')), { timeout: 15_000 }).toContain('"name": "Renamed in GraphiQL"');
    // All of it under the page's strict policy (scripts and styles from the gateway only), without a single violation.
    expect(violations).toEqual([]);
  });

  it('renaming an operation and pressing Run at once runs it, and no error ever shows a stack trace', async ({ browser, gateway }) => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(gateway.url);
    const editor = page.locator('.graphiql-query-editor .view-lines');
    // The browser's profile is the file's: GraphiQL reopens the tab the test before left active.
    // A click before GraphiQL has settled is lost, so it is repeated until the tab shows.
    const tab = page.locator('.graphiql-tab', { hasText: 'ApiKeys' });
    const shownAfterClick = async () => {
      await tab.click();
      return shown(editor);
    };
    await expect.poll(shownAfterClick, { timeout: 15_000 }).toContain('query ApiKeys(');
    await editor.getByText('ApiKeys', { exact: true }).dblclick();
    await page.keyboard.type('FirstKeys');
    await page.keyboard.press('Control+Enter');
    const result = page.locator('.graphiql-response');
    await expect.poll(() => shown(result), { timeout: 15_000 }).toContain('"name": "API key 1"');

    // Two operations, neither of them the one GraphiQL names: a sentence that says what to do.
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nquery Other { __typename }');
    await editor.getByText('FirstKeys', { exact: true }).dblclick();
    await page.keyboard.type('Renamed');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => shown(result), { timeout: 15_000 }).toContain('choose the one to run');
    expect(await shown(result)).not.toMatch(/stack|\bat \w|\.js:\d/);
  });
});

/** The lines of a Monaco editor whose text runs past its visible width. */
function overflowingLines(editor: Locator): Promise<string[]> {
  return editor.evaluate((element) => {
    const visible = element.querySelector('.monaco-editor .overflow-guard')!.getBoundingClientRect();
    return [...element.querySelectorAll('.view-line')]
      .filter((line) => [...line.querySelectorAll('span span')].some((span) => span.getBoundingClientRect().right > visible.right))
      .map((line) => line.textContent ?? '');
  });
}
