import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { SANDBOX_TOKEN } from '../../src/sandbox/server.js';
import { AUTH, SANDBOX_AUTH, TOKEN } from '../support/auth.js';
import { describeInBrowser } from '../support/browser.js';
import { gatewayOverSandbox } from '../support/fixtures.js';
import { edgesIn, pagesHeldForTheClient } from '../support/incremental.js';
import { apiKeyList } from '../support/records.js';

const SCREENSHOT = new URL('../../test-output/graphiql.png', import.meta.url).pathname;

/** The text an editor pane shows; Monaco draws every space as a no-break space. */
const shown = async (pane: Locator) => (await pane.innerText()).replaceAll('\u00a0', ' ');

// As `npm start` runs it: the embedded sandbox, and GraphiQL opening with its header.
const it = gatewayOverSandbox();

const run = promisify(execFile);

/** The example tabs GraphiQL opens with (src/graphiql/options.ts). */
const TABS = ['ApiKeys', 'UpdateCategory', 'StreamedApiKeys'];

describeInBrowser('GraphiQL in headless Chromium', () => {
  it('opens with the example tabs and the sandbox header, runs the apiKeys query, then the example mutation', async ({
    browser,
    gateway,
  }) => {
    const { page, requested, violations } = await watchedPage(browser, { width: 1400, height: 900 });
    const executed = page.waitForRequest((request) => request.method() === 'POST' && request.postDataJSON()?.operationName === 'ApiKeys');

    const opened = await page.goto(gateway.url);
    expect(opened!.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 15_000 }).toEqual(TABS);
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
    await openTab(page, 'UpdateCategory', 'mutation UpdateCategory');
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
    await openTab(page, 'StreamedApiKeys', 'query StreamedApiKeys');
    expect(await overflowingLines(page.locator('.graphiql-query-editor'))).toEqual([]);
    // All of it under the page's strict policy (scripts and styles from the gateway only), without a single violation.
    expect(violations).toEqual([]);
  });

  it('switches to the tab a newcomer clicks at the first click, also after the window is resized, and tabs still reorder by dragging', async ({
    freshBrowser,
    gateway,
  }) => {
    const page = await freshBrowser.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(gateway.url);
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 15_000 }).toEqual(TABS);
    const editor = page.locator('.graphiql-query-editor .view-lines');
    await expect.poll(() => shown(editor)).toContain('query ApiKeys(');
    // A first visit lays the tabs out before GraphiQL's font has loaded, which then narrows them.
    await settled(page);
    await tabButton(page, 'UpdateCategory').click();
    await expect.poll(() => shown(editor), { timeout: 5_000 }).toContain('mutation UpdateCategory');
    await page.setViewportSize({ width: 1100, height: 900 });
    await settled(page);
    await tabButton(page, 'StreamedApiKeys').click();
    await expect.poll(() => shown(editor), { timeout: 5_000 }).toContain('query StreamedApiKeys');
    await tabButton(page, 'ApiKeys').click();
    await expect.poll(() => shown(editor), { timeout: 5_000 }).toContain('query ApiKeys(');

    // Dragged by the mouse past the last tab, the first one becomes the last.
    const from = (await tabButton(page, 'ApiKeys').boundingBox())!;
    const to = (await tabButton(page, 'StreamedApiKeys').boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    for (let step = 1; step <= 10; step++) {
      await page.mouse.move(from.x + from.width / 2 + ((to.x + to.width - from.x) * step) / 10, from.y + from.height / 2);
    }
    await page.mouse.up();
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 5_000 }).toEqual([TABS[1], TABS[2], TABS[0]]);
  });

  it('renaming an operation and pressing Run at once runs it, and no error ever shows a stack trace', async ({ browser, gateway }) => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(gateway.url);
    // The browser's profile is the file's: GraphiQL reopens the tab the test before left active.
    const editor = await openTab(page, 'ApiKeys', 'query ApiKeys(');
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

  it('shows the REST calls behind a streamed result in the Upstream tab as its parts arrive, and in the result pane while it is open', {
    timeout: 90_000,
  }, async ({ browser, start }) => {
    const held = pagesHeldForTheClient(60);
    const upstream = await start.upstream(held.script);
    // A page is held until the browser shows the part before it, which a busy machine may take longer for than the defaults allow.
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), upstreamTimeoutMs: 60_000, requestDeadlineMs: 60_000 });
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(gateway.url).origin });
    // Tall enough for the result pane to hold every line of the answer (Monaco draws only the lines
    // in view), and wide enough that it wraps none beside the open Upstream tab.
    const { page, requested, violations } = await watchedPage(browser, { width: 2000, height: 10_000 });
    await page.goto(gateway.url);
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 15_000 }).toEqual(TABS);
    await openTab(page, 'StreamedApiKeys', 'query StreamedApiKeys');
    // The token as a person pastes it into the Headers tab.
    const headers = await typeHeaders(page, { Authorization: AUTH.authorization });
    // The Upstream tab joins the Explorer Yoga's GraphiQL brings, which stays.
    const sidebar = page.locator('.graphiql-sidebar button[aria-label^="Show "]');
    expect(await sidebar.evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label')))).toEqual([
      'Show Documentation Explorer',
      'Show GraphiQL Explorer',
      'Show Upstream',
    ]);
    await page.locator('[aria-label="Show Upstream"]').click();
    await expect.poll(() => page.locator('.gateway-upstream').innerText()).toContain('Run an operation');

    const asked = page.waitForRequest(
      (request) => request.method() === 'POST' && request.postDataJSON()?.operationName === 'StreamedApiKeys',
    );
    await page.locator('.graphiql-execute-button').click();
    // Each upstream page is answered only once the result and the tab show the part before it.
    for (const [edges, calls] of [
      [25, 1],
      [50, 2],
      [60, 3],
    ] as const) {
      const shownNow = async () => [edgesIn([await resultIn(page)]), (await callsIn(page)).length];
      await expect.poll(shownNow, { timeout: 15_000 }).toEqual([edges, calls]);
      await held.arrived([await resultIn(page)]);
    }
    const request = await asked;
    const answer = (await request.response())!;
    expect([request.headers()['x-debug-upstream'], answer.headers()['content-type'], answer.headers()['server-timing']]).toEqual([
      '1',
      'multipart/mixed; boundary="-"',
      // Written with the first part, when one call is over.
      expect.stringMatching(/^upstream;dur=[\d.]+;desc="1 call"$/),
    ]);
    await expect.poll(async () => (await resultIn(page)).data?.apiKeys).toMatchObject({ pageInfo: { hasNextPage: false } });
    const urls = ['/api_keys?limit=25', '/api_keys?limit=25&cursor=25', '/api_keys?limit=10&cursor=50'];
    expect(await callsIn(page)).toEqual(urls.map((url, index) => apiKeysCall(index + 1, url)));
    expect(await page.locator('.gateway-upstream-bar').count()).toBe(3);
    // The result pane holds the calls of every part too, not only those of the last.
    const { extensions, ...result } = await resultIn(page);
    expect(extensions.upstream.calls.map((call: { url: string }) => call.url)).toEqual(urls);
    // And what the run cost, in the last part: GraphiQL's asking for the calls shows it.
    expect(extensions.cost).toEqual({ estimatedCalls: 3, actualCalls: 3 });
    upstream.answer(apiKeyList(60));
    const plain = await gateway.graphql('{ apiKeys(first: 60) { edges { node { id name type } } pageInfo { hasNextPage endCursor } } }', {
      headers: AUTH,
    });
    expect(result).toEqual(plain.body);

    // Copy as curl: the upstream and the token are placeholders, never the token of the Headers tab.
    await page.locator('.gateway-upstream-call').nth(1).getByRole('button', { name: 'Copy as curl' }).click();
    const curl = `curl "$UPSTREAM_URL"'/api_keys?limit=25&cursor=25' -H "Authorization: Bearer $TOKEN"`;
    await expect.poll(() => page.locator('.gateway-upstream').innerText()).toContain('Copied to the clipboard.');
    expect([
      await page.locator('.gateway-upstream-curl textarea').inputValue(),
      await page.evaluate(() => navigator.clipboard.readText()),
    ]).toEqual([curl, curl]);
    expect(await page.locator('body').innerText()).toContain(TOKEN);
    expect(await page.locator('.gateway-upstream').innerText()).not.toContain(TOKEN);
    // Nor is the Headers tab kept in the browser's storage (shouldPersistHeaders: false), which holds GraphiQL's tabs.
    const stored = await page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }]));
    expect([stored.includes('StreamedApiKeys'), stored.includes(TOKEN)]).toEqual([true, false]);

    // Closed, the tab still has the calls asked for, and the result pane shows the answer as an app gets it,
    // with what it cost: GraphiQL still asks for the calls, and an answer that shows them shows its cost.
    await page.locator('[aria-label="Hide Upstream"]').click();
    await expect.poll(() => page.locator('.gateway-upstream').count()).toBe(0);
    const unseen = page.waitForRequest(
      (request) => request.method() === 'POST' && request.postDataJSON()?.operationName === 'StreamedApiKeys',
    );
    await page.locator('.graphiql-execute-button').click();
    const again = await unseen;
    expect([again.headers()['x-debug-upstream'], (await again.response())!.headers()['server-timing']]).toEqual([
      '1',
      expect.stringMatching(/^upstream;dur=[\d.]+;desc="1 call"$/),
    ]);
    await expect
      .poll(() => resultIn(page), { timeout: 15_000 })
      .toEqual({
        ...plain.body,
        extensions: { cost: { estimatedCalls: 3, actualCalls: 3 } },
      });
    // The Headers tab is as it was typed: the fetcher adds the header to the request, not to it.
    expect(await shown(headers.locator('.view-lines'))).toBe(JSON.stringify({ Authorization: AUTH.authorization }));
    expect(new Set(requested.filter((url) => /^https?:/.test(url)).map((url) => new URL(url).origin))).toEqual(
      new Set([new URL(gateway.url).origin]),
    );
    expect(violations).toEqual([]);
  });

  it('shows the calls behind a result run before the Upstream tab was opened, as the README’s tour does it', async ({
    freshBrowser,
    gateway,
  }) => {
    // README, tour step 1: "Press Run; the Upstream tab in the sidebar shows the REST calls behind the result."
    // Tall enough for the result pane to hold every line of the answer (Monaco draws only the lines in view).
    const page = await freshBrowser.newPage();
    await page.setViewportSize({ width: 1400, height: 3000 });
    await page.goto(gateway.url);
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 15_000 }).toEqual(TABS);
    await page.locator('.graphiql-execute-button').click();
    // The result pane shows what an app gets: the calls are the tab's.
    const plain = await gateway.graphql(
      'query ApiKeys($first: Int = 5, $after: String) { apiKeys(first: $first, after: $after) { edges { cursor node { id name type permissions createdTime } } pageInfo { hasNextPage endCursor } } }',
      { headers: { ...SANDBOX_AUTH, 'x-cost': '1' } },
    );
    await expect.poll(() => resultIn(page), { timeout: 15_000 }).toEqual(plain.body);
    await page.locator('[aria-label="Show Upstream"]').click();
    await expect.poll(() => callsIn(page)).toEqual([apiKeysCall(1, '/api_keys?limit=5')]);
    expect(await page.locator('.gateway-upstream-summary').innerText()).toMatch(/^1 call, [\d.]+ ms upstream\.$/);
  });

  it('shows every column of the Upstream tab, its copy buttons and its time axis at 1280 px, and the whole tab bar at 1024 px', async ({
    freshBrowser,
    gateway,
  }) => {
    // As a newcomer opens it: a profile of its own, the panel as wide as GraphiQL first makes it.
    const page = await freshBrowser.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(gateway.url);
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 15_000 }).toEqual(TABS);
    await page.locator('[aria-label="Show Upstream"]').click();
    await openTab(page, 'StreamedApiKeys', 'query StreamedApiKeys');
    await page.locator('.graphiql-execute-button').click();
    await expect
      .poll(() => page.locator('.gateway-upstream-summary').innerText(), { timeout: 15_000 })
      .toMatch(/^3 calls, [\d.]+ ms upstream, \d+ parts\.$/);
    // The sandbox's cursors: the offset as base64url JSON.
    const urls = ['/api_keys?limit=25', '/api_keys?limit=25&cursor=eyJvZmZzZXQiOjI1fQ', '/api_keys?limit=10&cursor=eyJvZmZzZXQiOjUwfQ'];
    expect(await callsIn(page)).toEqual(urls.map((url, index) => apiKeysCall(index + 1, url)));
    // Per call: its number, method and URL, six facts, each named, and its button.
    const cells = '.gateway-upstream-call-request > span, .gateway-upstream-call-facts > div, .gateway-upstream-call button';
    expect(await page.locator(cells).count()).toBe(3 * 10);
    expect(await outside(page, '.graphiql-plugin', cells)).toEqual([]);

    // The waterfall's time axis: evenly spaced ticks from 0, labelled in ms, the last at or past the end of the last call.
    const ticks = await page.locator('.gateway-upstream-tick').allInnerTexts();
    const values = ticks.map((tick) => Number(/^(\d+(?:\.\d+)?) ms$/.exec(tick)?.[1]));
    expect(values[0]).toBe(0);
    expect(values.length).toBeGreaterThanOrEqual(2);
    expect(values.map((value, index) => value - values[Math.max(0, index - 1)]!).slice(1)).toEqual(values.slice(1).map(() => values[1]));
    const lastEnd = await page.evaluate(() =>
      Math.max(
        ...[...document.querySelectorAll('.gateway-upstream-lane[title]')].map((lane) => {
          const [, start, duration] = /from ([\d.]+) ms for ([\d.]+) ms/.exec(lane.getAttribute('title')!)!.map(Number);
          return start! + duration!;
        }),
      ),
    );
    expect(values.at(-1)).toBeGreaterThanOrEqual(lastEnd);
    expect(await outside(page, '.graphiql-plugin', '.gateway-upstream-tick')).toEqual([]);

    // Narrower, the panel still shows everything, and every tab and the add button stay whole beside it.
    await page.setViewportSize({ width: 1024, height: 800 });
    await settled(page);
    expect(await outside(page, '.graphiql-plugin', `${cells}, .gateway-upstream-tick`)).toEqual([]);
    expect(await outside(page, '.graphiql-tabs', '.graphiql-tab')).toEqual([]);
    expect(await outside(page, '.graphiql-session-header', '.graphiql-tab-add')).toEqual([]);
  });

  it('copies curl commands that run as pasted against the sandbox of `./run start`, a write with its body', { timeout: 60_000 }, async ({
    freshBrowser,
    gateway,
    sandbox,
  }) => {
    await freshBrowser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(gateway.url).origin });
    const page = await freshBrowser.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(gateway.url);
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 15_000 }).toEqual(TABS);
    await page.locator('[aria-label="Show Upstream"]').click();
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(async () => (await callsIn(page)).length, { timeout: 15_000 }).toBe(1);
    /** What the clipboard holds once the call's Copy as curl has been pressed. */
    const copied = async (call: number) => {
      await page.locator('.gateway-upstream-call').nth(call).getByRole('button', { name: 'Copy as curl' }).click();
      await expect.poll(() => page.locator('.gateway-upstream').innerText()).toContain('Copied to the clipboard.');
      return page.evaluate(() => navigator.clipboard.readText());
    };
    const read = await copied(0);
    // The line the tab gives to type first, then the command, as a person pastes them into a shell.
    const setUp = await page.locator('.gateway-upstream-note code').allInnerTexts();
    expect([setUp, read]).toEqual([
      [`export TOKEN=${SANDBOX_TOKEN}`],
      `curl '${sandbox.url}/api_keys?limit=5' -H "Authorization: Bearer $TOKEN"`,
    ]);
    const pasted = async (command: string) =>
      JSON.parse((await run('sh', ['-c', `${setUp[0]}\n${command}`], { env: { PATH: process.env.PATH } })).stdout) as {
        success: boolean;
        result: any;
      };
    const keys = await pasted(read);
    expect([keys.success, keys.result.map((key: { name: string }) => key.name)]).toEqual([
      true,
      ['API key 1', 'API key 2', 'API key 3', 'API key 4', 'API key 5'],
    ]);

    await openTab(page, 'UpdateCategory', 'mutation UpdateCategory');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(async () => (await callsIn(page)).map((call) => call[1]), { timeout: 15_000 }).toEqual(['PATCH']);
    const write = await copied(0);
    expect(write).toBe(
      `curl -X PATCH '${sandbox.url}/categories/cat_001' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data-raw '{"name":"Renamed in GraphiQL"}'`,
    );
    // Renamed otherwise meanwhile, the category takes the command's name again: its body went with it.
    const renamed = await gateway.graphql(
      'mutation { updateCategory(input: { id: "cat_001", name: "Renamed by hand" }) { category { name } } }',
      {
        headers: SANDBOX_AUTH,
      },
    );
    expect(renamed.body).toEqual({ data: { updateCategory: { category: { name: 'Renamed by hand' } } } });
    expect(await pasted(write)).toMatchObject({ success: true, result: { id: 'cat_001', name: 'Renamed in GraphiQL' } });
  });

  it('shows the write a dry run built, with its body, and sends nothing upstream', { timeout: 60_000 }, async ({ browser, start }) => {
    const upstream = await start.upstream(apiKeyList(1));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    // Wide and tall enough that the result pane wraps none of the answer's lines and holds them all
    // (Monaco draws only the lines in view) once the Upstream tab beside it is closed.
    const { page, violations } = await watchedPage(browser, { width: 2400, height: 2000 });
    await page.goto(gateway.url);
    await expect.poll(() => page.locator('.graphiql-tab').allInnerTexts(), { timeout: 15_000 }).toEqual(TABS);
    await openTab(page, 'UpdateCategory', 'mutation UpdateCategory');
    await typeHeaders(page, { Authorization: AUTH.authorization, 'X-Debug-Upstream': 'dry-run' });
    await page.locator('[aria-label="Show Upstream"]').click();
    const ran = page.waitForRequest(
      (request) => request.method() === 'POST' && request.postDataJSON()?.query.includes('mutation UpdateCategory'),
    );
    await page.locator('.graphiql-execute-button').click();
    // The Headers tab's own header goes out as it was typed, not replaced by the open tab's.
    expect((await ran).headers()['x-debug-upstream']).toBe('dry-run');
    await expect.poll(() => page.locator('.gateway-upstream-dry-run').count(), { timeout: 15_000 }).toBe(1);
    expect([
      await page.locator('.gateway-upstream-dry-run p').innerText(),
      JSON.parse(await page.locator('.gateway-upstream-dry-run pre').innerText()),
      await page.locator('.gateway-upstream-summary').innerText(),
    ]).toEqual(['Dry run: PATCH /categories/cat_001 was built, not sent.', { name: 'Renamed in GraphiQL' }, '0 calls, 0 ms upstream.']);
    await page.locator('.gateway-upstream-dry-run').getByRole('button', { name: 'Copy as curl' }).click();
    expect(await page.locator('.gateway-upstream-curl textarea').inputValue()).toBe(
      `curl -X PATCH "$UPSTREAM_URL"'/categories/cat_001' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data-raw '{"name":"Renamed in GraphiQL"}'`,
    );
    // The result pane shows the same: the field null with DRY_RUN, and the write in extensions.upstream.dryRuns.
    await page.locator('[aria-label="Hide Upstream"]').click();
    await expect
      .poll(() => resultIn(page))
      .toEqual({
        data: { updateCategory: null },
        errors: [
          {
            message: 'Dry run: the upstream request was built, not sent; extensions.upstream.dryRuns holds it.',
            locations: [{ line: 3, column: 3 }],
            path: ['updateCategory'],
            extensions: { code: 'DRY_RUN' },
          },
        ],
        extensions: {
          upstream: { calls: [], dryRuns: [{ method: 'PATCH', path: '/categories/cat_001', body: { name: 'Renamed in GraphiQL' } }] },
          cost: { estimatedCalls: 1, actualCalls: 0 },
        },
      });
    expect(upstream.requests).toEqual([]);
    expect(violations).toEqual([]);
  });
});

/** The button of one of GraphiQL's tabs. */
const tabButton = (page: Page, name: string) => page.locator('.graphiql-tab-button', { hasText: new RegExp(`^${name}$`) });

/** Resolves once the page's fonts have loaded and two frames have been drawn since, so that its layout has settled. */
const settled = (page: Page) =>
  page.evaluate(async () => {
    await document.fonts.ready;
    for (const _ of [1, 2]) await new Promise((drawn) => requestAnimationFrame(drawn));
  });

/**
 * The elements matching `selector` that are not wholly inside the visible box of `container`
 * (its border box, less what is scrolled out of it, and within the window), as `tag: text`.
 */
function outside(page: Page, container: string, selector: string): Promise<string[]> {
  return page.evaluate(
    ([container, selector]) => {
      const box = document.querySelector(container)!.getBoundingClientRect();
      const visible = {
        left: Math.max(0, box.left),
        right: Math.min(innerWidth, box.right),
        top: Math.max(0, box.top),
        bottom: Math.min(innerHeight, box.bottom),
      };
      return [...document.querySelectorAll(selector)]
        .filter((element) => {
          const { left, right, top, bottom } = element.getBoundingClientRect();
          return left < visible.left || right > visible.right || top < visible.top || bottom > visible.bottom;
        })
        .map((element) => `${element.tagName.toLowerCase()}: ${element.textContent}`);
    },
    [container, selector] as const,
  );
}

/** Replaces the text of the open tab's Headers pane by `headers`, typed as a person pastes them; returns the pane. */
async function typeHeaders(page: Page, headers: Record<string, string>): Promise<Locator> {
  const pane = page.locator('.graphiql-editor-tool .monaco-editor[data-uri$="-request-headers.json"]');
  await pane.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(JSON.stringify(headers));
  return pane;
}

/** The result GraphiQL shows, as far as its parts have come; `{}` while it shows none. */
async function resultIn(page: Page): Promise<{ data?: Record<string, any>; errors?: any[]; extensions?: any }> {
  const text = await shown(page.locator('.graphiql-response .view-lines'));
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** The calls the Upstream tab lists: each one's number, method and URL, the values of its facts, and its button. */
const callsIn = (page: Page) =>
  page
    .locator('.gateway-upstream-call')
    .evaluateAll((calls) =>
      calls.map((call) => [...call.querySelectorAll('.gateway-upstream-call-request > span, dd, button')].map((part) => part.textContent)),
    );

/** How the Upstream tab lists call `number`, a read of `url` for apiKeys answered 200 on its first attempt, not from a cache. */
const apiKeysCall = (number: number, url: string) => [
  String(number),
  'GET',
  url,
  '200',
  expect.stringMatching(/^[\d.]+ ms$/),
  '1',
  'miss',
  'apiKeys',
  'none',
  'Copy as curl',
];

/** Opens one of GraphiQL's tabs with one click and returns its editor, once it shows `text`. */
async function openTab(page: Page, name: string, text: string): Promise<Locator> {
  const editor = page.locator('.graphiql-query-editor .view-lines');
  await tabButton(page, name).click();
  await expect.poll(() => shown(editor), { timeout: 5_000 }).toContain(text);
  return editor;
}

/**
 * A new page of the browser, sized, that records the URL of every request and every
 * Content-Security-Policy violation and console error it reports.
 */
async function watchedPage(browser: BrowserContext, size: { width: number; height: number }) {
  const page = await browser.newPage();
  await page.setViewportSize(size);
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
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
  return { page, requested, violations };
}

/** The lines of a Monaco editor whose text runs past its visible width. */
function overflowingLines(editor: Locator): Promise<string[]> {
  return editor.evaluate((element) => {
    const visible = element.querySelector('.monaco-editor .overflow-guard')!.getBoundingClientRect();
    return [...element.querySelectorAll('.view-line')]
      .filter((line) => [...line.querySelectorAll('span span')].some((span) => span.getBoundingClientRect().right > visible.right))
      .map((line) => line.textContent ?? '');
  });
}
