import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import { meros } from 'meros/browser';
import { FETCHER_SCRIPT } from './fetcher.js';
import { UPSTREAM_TAB_SCRIPT, UPSTREAM_TAB_STYLE } from './upstream-tab.js';

/** Where the assets are served; the shell page links them from here. */
export const ASSETS_PATH = '/graphiql/';

/** One file of GraphiQL, built and compressed once per process. */
interface Asset {
  contentType: string;
  body: Buffer;
  gzipped: Buffer;
  /** Strong ETag: the asset's content hash, which its name carries too. */
  etag: string;
}

export interface GraphiQLAssets {
  /** Asset name (e.g. `graphiql-3f2a….js`) to asset. */
  files: ReadonlyMap<string, Asset>;
  /** Paths the shell page links. */
  stylesheet: string;
  script: string;
  favicon: string;
}

/** The strings Yoga's GraphiQL bundle exports: the app, its style, its icon and Monaco's three workers. */
interface Bundle {
  js: string;
  css: string;
  favicon: string;
  editorWorkerService: string;
  jsonWorker: string;
  graphqlWorker: string;
}

const gzipAsync = promisify(gzip);

async function asset(stem: string, extension: string, contentType: string, body: Buffer): Promise<[string, Asset]> {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  // Level 9 once, on zlib's thread pool: the event loop keeps serving meanwhile.
  const gzipped = await gzipAsync(body, { level: constants.Z_BEST_COMPRESSION });
  return [`${stem}-${hash}.${extension}`, { contentType, body, gzipped, etag: `"${hash}"` }];
}

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/**
 * GraphiQL as separate static files rather than one 9 MB page: the app with its start-up code,
 * its stylesheet, its icon and Monaco's workers, each under a content-hashed name, so that a
 * browser fetches each once and keeps it for a year. Built from the bundle Yoga ships
 * (@graphql-yoga/render-graphiql), so nothing comes from a CDN. Loaded on first use: the bundle's
 * strings hold about 30 MB of heap, needless until someone opens GraphiQL.
 */
export function graphiqlAssets(): Promise<GraphiQLAssets> {
  built ??= buildGraphiQLAssets();
  return built;
}

/** Built once per process: the files are the same for every gateway in it. */
let built: Promise<GraphiQLAssets> | undefined;

async function buildGraphiQLAssets(): Promise<GraphiQLAssets> {
  const require = createRequire(import.meta.url);
  const bundle = require(join(dirname(require.resolve('@graphql-yoga/render-graphiql')), 'graphiql.js')) as Bundle;
  const workers = await Promise.all([
    asset('editor.worker', 'js', JAVASCRIPT, Buffer.from(bundle.editorWorkerService)),
    asset('json.worker', 'js', JAVASCRIPT, Buffer.from(bundle.jsonWorker)),
    asset('graphql.worker', 'js', JAVASCRIPT, Buffer.from(bundle.graphqlWorker)),
  ]);
  const workerUrls = {
    editorWorkerService: ASSETS_PATH + workers[0][0],
    json: ASSETS_PATH + workers[1][0],
    graphql: ASSETS_PATH + workers[2][0],
  };
  // The page's own options come from a JSON block in the shell, so the script is the same for every gateway.
  const app = [
    `self.MonacoEnvironment={globalAPI:false,getWorkerUrl:function(_,label){return ${JSON.stringify(workerUrls)}[label];}};`,
    patched(bundle.js),
    START_UP,
  ].join('\n');
  const icon = /^data:([^;,]+);base64,(.*)$/s.exec(bundle.favicon);
  const [script, stylesheet, favicon] = await Promise.all([
    asset('graphiql', 'js', JAVASCRIPT, Buffer.from(app)),
    asset('graphiql', 'css', 'text/css; charset=utf-8', Buffer.from(bundle.css + UPSTREAM_TAB_STYLE)),
    asset('favicon', 'ico', icon?.[1] ?? 'image/x-icon', Buffer.from(icon?.[2] ?? '', 'base64')),
  ]);
  return {
    files: new Map([...workers, script, stylesheet, favicon]),
    script: ASSETS_PATH + script[0],
    stylesheet: ASSETS_PATH + stylesheet[0],
    favicon: ASSETS_PATH + favicon[0],
  };
}

/**
 * What runs once the bundle has: the page's options come as JSON; the fetcher and the Upstream
 * tab, functions, are added to them, and what is not GraphiQL's is taken out: the endpoint the
 * fetcher uses (Yoga's GraphiQL warns when given both) and the sandbox the tab names (options.ts). Their functions are put here as source text, in one scope, and
 * that text is as this process was compiled: tsx (`npm run dev`) keeps function names with
 * esbuild's `__name` helper, which is defined here as what it is to them, nothing.
 */
const START_UP = `;(function(){
var __name=function(target){return target;};
${[...FETCHER_SCRIPT, ...UPSTREAM_TAB_SCRIPT].join('\n')}
var options=JSON.parse(document.getElementById('graphiql-options').textContent);
var endpoint=options.endpoint||location.pathname;delete options.endpoint;
var upstream=upstreamTab(React,options.sandbox);delete options.sandbox;YogaGraphiQL.plugins=[upstream.plugin];
options.fetcher=graphiqlFetcher(endpoint,${meros},upstream.calls);
YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'),options);
})();`;

/** A change to Yoga's GraphiQL bundle: the one place it applies to, and what that place becomes. */
interface BundlePatch {
  /** What the bundle does there, as the error that stops the build says it. */
  does: string;
  at: RegExp;
  becomes: string;
}

const BUNDLE_PATCHES: Record<string, BundlePatch> = {
  /**
   * Yoga's GraphiQL hands GraphiQL its Explorer alone, then every option it was given, so a
   * `plugins` option would take the Explorer away. The list is extended there instead, by the
   * plugins the start-up code leaves in `YogaGraphiQL.plugins` (the Upstream tab).
   */
  plugins: {
    does: 'gives GraphiQL its plugins',
    at: /plugins:\[(\w+)\],schemaDescription:!0/g,
    becomes: 'plugins:[$1].concat(YogaGraphiQL.plugins),schemaDescription:!0',
  },
  /**
   * GraphiQL's tabs are a list reordered by dragging (framer-motion's Reorder), each tab held
   * within the tab bar (`dragConstraints`). Whenever a tab or the bar changes size, framer-motion
   * moves each tab to where it was within the bar, and puts an undragged one at the bar's end: a
   * first visit's tabs narrow once GraphiQL's font has loaded (later visits have it at once), and
   * resizing the window does it too. GraphiQL's stylesheet shows that offset only on a focused
   * tab, so it shows on the press of a click, which jumps the tab away from the pointer and loses
   * the click. Without the constraint a tab is still dragged along the bar and snaps back to its
   * place when let go, and nothing moves it unasked.
   */
  tabsInPlace: {
    does: 'holds its tabs within the tab bar',
    at: /\{dragConstraints:\w+,value:/g,
    becomes: '{value:',
  },
};

/** The bundle with every patch applied; one that no longer reads as a patch expects stops the build, rather than breaking unnoticed. */
function patched(js: string): string {
  let text = js;
  for (const [name, { does, at, becomes }] of Object.entries(BUNDLE_PATCHES)) {
    const found = text.match(at)?.length ?? 0;
    if (found !== 1) {
      throw new Error(
        `@graphql-yoga/render-graphiql's bundle ${does} in ${found} places, not one: see BUNDLE_PATCHES.${name} in src/graphiql/assets.ts.`,
      );
    }
    text = text.replace(at, becomes);
  }
  return text;
}

/** JSON that may stand inside a <script> element: no `<` to close it early. */
const scriptSafeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page Yoga answers a browser's GET /graphql with: two kilobytes or so (mostly the example tabs), linking the assets. */
export function graphiqlShell(assets: GraphiQLAssets, options: { title?: string } & Record<string, unknown>): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="${assets.favicon}" />
    <link rel="stylesheet" href="${assets.stylesheet}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run GraphiQL.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-options">${scriptSafeJson(options)}</script>
    <script src="${assets.script}"></script>
  </body>
</html>
`;
}
