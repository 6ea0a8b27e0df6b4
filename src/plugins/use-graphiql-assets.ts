import type { Plugin } from 'graphql-yoga';
import { ASSETS_PATH, graphiqlAssets } from '../graphiql/assets.js';
import { acceptsGzip } from '../http/accept-encoding.js';
import { ifNoneMatchMatches } from '../http/if-none-match.js';

/**
 * Serves GraphiQL's static files under /graphiql/: content-hashed names, so each is cached for a
 * year and never revalidated (`immutable`), with a strong ETag for caches that ask anyway (304 to a
 * matching If-None-Match, weak or `*` included, as RFC 9110 compares them); gzipped
 * once at build for every caller that accepts gzip. An unknown name is 404.
 */
export function useGraphiQLAssets(): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(ASSETS_PATH)) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
      }
      const asset = (await graphiqlAssets()).files.get(url.pathname.slice(ASSETS_PATH.length));
      if (!asset) return endResponse(new fetchAPI.Response(null, { status: 404 }));
      const headers: Record<string, string> = {
        'content-type': asset.contentType,
        'cache-control': 'public, max-age=31536000, immutable',
        etag: asset.etag,
        vary: 'Accept-Encoding',
        'x-content-type-options': 'nosniff',
      };
      if (ifNoneMatchMatches(request.headers.get('if-none-match'), asset.etag)) {
        return endResponse(new fetchAPI.Response(null, { status: 304, headers }));
      }
      const gzipped = acceptsGzip(request.headers.get('accept-encoding'));
      const body = gzipped ? asset.gzipped : asset.body;
      if (gzipped) headers['content-encoding'] = 'gzip';
      headers['content-length'] = String(body.length);
      endResponse(new fetchAPI.Response(request.method === 'HEAD' ? null : new Uint8Array(body), { headers }));
    },
  };
}
