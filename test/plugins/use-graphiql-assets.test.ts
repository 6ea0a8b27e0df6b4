import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ASSETS_PATH, type GraphiQLAssets, graphiqlAssets } from '../../src/graphiql/assets.js';
import { useGraphiQLAssets } from '../../src/plugins/use-graphiql-assets.js';
import { post, send, sendForBytes, yogaWith } from '../support/yoga.js';

describe('useGraphiQLAssets', () => {
  const yoga = yogaWith([useGraphiQLAssets()]);
  let assets: GraphiQLAssets;
  /** The app's script: the largest file, and the one every page links. */
  let script: { url: string; body: Buffer; gzipped: Buffer; etag: string };
  beforeAll(async () => {
    assets = await graphiqlAssets();
    const asset = assets.files.get(assets.script.slice(ASSETS_PATH.length))!;
    script = { url: `http://yoga${assets.script}`, body: asset.body, gzipped: asset.gzipped, etag: asset.etag };
  });

  /** What every answer with a file says of it, whatever its encoding. */
  const cached = () => ({
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=31536000, immutable',
    etag: script.etag,
    vary: 'Accept-Encoding',
    'x-content-type-options': 'nosniff',
  });

  it('serves a file as it is to a caller that does not take gzip, cached for a year', async () => {
    const answer = await sendForBytes(yoga, script.url);
    expect([answer.status, answer.headers]).toEqual([200, { ...cached(), 'content-length': String(script.body.length) }]);
    expect(answer.bytes.equals(script.body)).toBe(true);
  });

  it('serves the file gzipped at build to a caller that takes gzip', async () => {
    const answer = await sendForBytes(yoga, script.url, { headers: { 'accept-encoding': 'br, gzip' } });
    expect([answer.status, answer.headers]).toEqual([
      200,
      { ...cached(), 'content-encoding': 'gzip', 'content-length': String(script.gzipped.length) },
    ]);
    expect(gunzipSync(answer.bytes).equals(script.body)).toBe(true);
  });

  it('serves the file as it is to a caller that refuses gzip', async () => {
    const answer = await sendForBytes(yoga, script.url, { headers: { 'accept-encoding': 'gzip;q=0, br' } });
    expect(answer.headers).not.toHaveProperty('content-encoding');
    expect(answer.bytes.equals(script.body)).toBe(true);
  });

  it('serves every file with its own type', async () => {
    for (const [name, asset] of assets.files) {
      const answer = await sendForBytes(yoga, `http://yoga${ASSETS_PATH}${name}`);
      expect([name, answer.status, answer.headers['content-type'], answer.bytes.equals(asset.body)]).toEqual([
        name,
        200,
        asset.contentType,
        true,
      ]);
    }
  });

  it('answers 304 without a body when If-None-Match holds its ETag', async () => {
    for (const ifNoneMatch of [script.etag, `"stale", ${script.etag}`, `"stale",${script.etag}`]) {
      const answer = await sendForBytes(yoga, script.url, { headers: { 'if-none-match': ifNoneMatch, 'accept-encoding': 'gzip' } });
      expect([ifNoneMatch, answer.status, answer.headers, answer.bytes.length]).toEqual([ifNoneMatch, 304, cached(), 0]);
    }
  });

  it('answers 304 when If-None-Match holds its ETag as weak, or is *: RFC 9110 compares weakly', async () => {
    for (const ifNoneMatch of [`W/${script.etag}`, '*', ' * ', `W/"stale", W/${script.etag}`, `"a,b", ${script.etag}`]) {
      const answer = await sendForBytes(yoga, script.url, { headers: { 'if-none-match': ifNoneMatch } });
      expect([ifNoneMatch, answer.status, answer.headers, answer.bytes.length]).toEqual([ifNoneMatch, 304, cached(), 0]);
    }
  });

  it('serves the file again when If-None-Match holds another ETag, weak or strong', async () => {
    for (const ifNoneMatch of ['"stale"', 'W/"stale"', `"${script.etag}"`, script.etag.slice(1, -1), '"*"']) {
      const answer = await sendForBytes(yoga, script.url, { headers: { 'if-none-match': ifNoneMatch } });
      expect([ifNoneMatch, answer.status, answer.bytes.equals(script.body)]).toEqual([ifNoneMatch, 200, true]);
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const answer = await sendForBytes(yoga, script.url, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    expect([answer.status, answer.headers, answer.bytes.length]).toEqual([
      200,
      { ...cached(), 'content-encoding': 'gzip', 'content-length': String(script.gzipped.length) },
      0,
    ]);
  });

  it('answers 405, naming GET and HEAD, to any other method', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      expect([method, await send(yoga, script.url, { method })]).toEqual([
        method,
        { status: 405, headers: { allow: 'GET, HEAD' }, body: null },
      ]);
    }
  });

  it('answers 404 to a name it does not hold', async () => {
    for (const path of [
      `${ASSETS_PATH}graphiql-0000000000000000.js`,
      ASSETS_PATH,
      `${ASSETS_PATH}nested/${assets.script.slice(ASSETS_PATH.length)}`,
    ]) {
      // Asked as a browser asks: Yoga's own 404 would be its landing page.
      expect([path, await send(yoga, `http://yoga${path}`, { headers: { accept: 'text/html' } })]).toEqual([
        path,
        { status: 404, headers: {}, body: null },
      ]);
    }
  });

  it('leaves every other path to Yoga', async () => {
    expect((await post(yoga, { query: '{ hello }' })).body).toEqual({ data: { hello: 'Hello world' } });
  });
});
