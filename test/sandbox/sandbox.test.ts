import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect } from 'vitest';
import { SANDBOX_TOKEN, type Sandbox } from '../../src/sandbox/server.js';
import { AUTH } from '../support/auth.js';
import { sandboxTest } from '../support/fixtures.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SEED = '2025-01-01T00:00:00.000Z';
const seedAudit = {
  created_by: 'usr_owner',
  created_time: SEED,
  updated_by: 'usr_owner',
  updated_time: SEED,
};

interface CallOptions {
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  raw?: string;
  /** null sends no Authorization header. */
  auth?: string | null;
}

interface Response {
  status: number;
  headers: Headers;
  body: any;
}

async function call(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  const auth = options.auth === undefined ? `Bearer ${sandbox.token}` : options.auth;
  if (auth !== null) headers.authorization = auth;
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(sandbox.url + path, { method, headers, body: payload });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const failure = (...errors: object[]) => ({ success: false, result: null, errors, links: {} });
const success = (result: unknown, links = {}) => ({ success: true, result, errors: [], links });
const invalid = (field: string, message: string) => ({ code: 'invalid_field', field, message });

const callerId = (token: string) => `usr_${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;

function expectFreshAudit(record: any, by: string, since: number): void {
  expect(record.created_by).toBe(by);
  expect(record.updated_by).toBe(by);
  expect(record.created_time).toMatch(ISO_MS);
  expect(record.updated_time).toBe(record.created_time);
  expect(Date.parse(record.created_time)).toBeGreaterThanOrEqual(since);
  expect(Date.parse(record.created_time)).toBeLessThanOrEqual(Date.now());
}

const it = sandboxTest;

describe('startSandbox', () => {
  it('exposes a /v2 base URL on loopback and the sandbox token', ({ sandbox }) => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
    expect(sandbox.token).toBe(SANDBOX_TOKEN);
    expect(SANDBOX_TOKEN).toBe('sandbox-token');
  });

  it('answers with JSON, a Content-Length and keep-alive', async ({ sandbox }) => {
    const res = await fetch(`${sandbox.url}/api_keys?limit=1`, {
      headers: { authorization: `Bearer ${sandbox.token}` },
    });
    const text = await res.text();
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.get('connection')).not.toBe('close');
  });

  it('keeps a separate store per instance', async ({ sandbox, start }) => {
    const other = await start.sandbox();
    await call(other, 'PATCH', '/categories/cat_001', { body: { name: 'Changed' } });
    const mine = await call(sandbox, 'PATCH', '/categories/cat_001', { body: {} });
    expect(mine.body.result.name).toBe('Category 1');
  });

  it('delays every response by latencyMs', async ({ start }) => {
    const slow = await start.sandbox({ latencyMs: 150 });
    const started = performance.now();
    const res = await call(slow, 'GET', '/api_keys', { auth: null });
    expect(res.status).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('close() resolves promptly despite keep-alive and in-flight requests, and is idempotent', async ({ start }) => {
    const temp = await start.sandbox({ latencyMs: 3000 });
    const pending = fetch(`${temp.url}/api_keys`); // held open by the latency delay
    const outcome = pending.then(
      () => 'answered',
      () => 'aborted',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await temp.close();
    await temp.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await outcome).toBe('aborted');
    await expect(fetch(`${temp.url}/api_keys`)).rejects.toThrow();
  });
});

describe('authentication', () => {
  const unauthorized = failure({ code: 'unauthorized', message: 'Missing or invalid bearer token' });

  it.for<[string, string | null]>([
    ['no header', null],
    ['an empty token', 'Bearer '],
    ['a blank token', 'Bearer    '],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a bare token', 'sandbox-token'],
  ])('rejects %s with 401', async ([_, auth], { sandbox }) => {
    const res = await call(sandbox, 'GET', '/api_keys', { auth });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body).toEqual(unauthorized);
  });

  it('checks auth before routing', async ({ sandbox }) => {
    const res = await call(sandbox, 'GET', '/nowhere', { auth: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
  });

  it('accepts any non-empty token, case-insensitive scheme', async ({ sandbox }) => {
    const res = await call(sandbox, 'GET', '/api_keys?limit=1', { auth: 'bearer anything' });
    expect(res.status).toBe(200);
  });

  it('maps the sandbox token to usr_owner and other tokens to a sha256-derived id', async ({ sandbox }) => {
    const owner = await call(sandbox, 'POST', '/folders', { body: { name: 'Mine' } });
    expect(owner.body.result.created_by).toBe('usr_owner');
    const alice = await call(sandbox, 'POST', '/folders', { body: { name: 'Hers' }, auth: 'Bearer alice' });
    expect(alice.body.result.created_by).toBe(callerId('alice'));
    expect(callerId('alice')).toMatch(/^usr_[0-9a-f]{12}$/);
  });
});

describe('routing', () => {
  it.for(['/nope', '/api_keys/extra', '/categories/', '/videos/vid_001/hotspots', '/users/%E0%A4%A'])(
    '404s unknown path /v2%s',
    async (path, { sandbox }) => {
      const res = await call(sandbox, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(failure({ code: 'not_found', message: `No resource at /v2${path}` }));
    },
  );

  it('404s paths outside /v2', async ({ sandbox }) => {
    const res = await fetch(sandbox.url.replace(/\/v2$/, '/v1/api_keys'), {
      headers: AUTH,
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(failure({ code: 'not_found', message: 'No resource at /v1/api_keys' }));
  });

  it.for<[string, string, string]>([
    ['GET', '/folders', 'POST'],
    ['DELETE', '/categories/cat_001', 'PATCH'],
    ['POST', '/api_keys', 'GET'],
    ['PUT', '/videos/vid_001/hotspots/hs_001', 'PATCH'],
  ])('405s %s %s', async ([method, path, allow], { sandbox }) => {
    const res = await call(sandbox, method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.body).toEqual(failure({ code: 'method_not_allowed', message: `${method} is not allowed on /v2${path}` }));
  });
});

describe('request bodies', () => {
  const invalidJson = failure({ code: 'invalid_json', message: 'Request body must be a JSON object' });

  it.for(['{', '[]', 'null', '"name"', '42', ' '])('rejects body %j with 400', async (raw, { sandbox }) => {
    const res = await call(sandbox, 'POST', '/folders', { raw });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidJson);
  });

  it('treats a missing body like {}', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/categories/cat_005');
    expect(res.status).toBe(200);
    expect(res.body.result.updated_time).toBe(SEED);
  });
});

describe('GET /v2/api_keys', () => {
  const ids = (res: Response) => res.body.result.map((k: { id: string }) => k.id);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `ak_${String(from + i).padStart(3, '0')}`);

  it('pages through all 62 keys, 25 at a time, following links.next', async ({ sandbox }) => {
    const first = await call(sandbox, 'GET', '/api_keys');
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual(range(1, 25));
    expect(first.body.errors).toEqual([]);
    const next = new URL(first.body.links.next);
    expect(`${next.origin}/v2`).toBe(sandbox.url);
    expect(next.pathname).toBe('/v2/api_keys');
    expect(next.searchParams.get('limit')).toBe('25');
    expect(next.searchParams.get('cursor')).toMatch(/.+/);

    const secondRes = await fetch(first.body.links.next, { headers: AUTH });
    const second = { status: secondRes.status, headers: secondRes.headers, body: await secondRes.json() };
    expect(second.status).toBe(200);
    expect(ids(second)).toEqual(range(26, 50));

    const third = await call(sandbox, 'GET', new URL(second.body.links.next).href.slice(sandbox.url.length));
    expect(third.status).toBe(200);
    expect(third.body.result).toHaveLength(12);
    expect(ids(third)).toEqual(range(51, 62));
    expect(third.body.links).toEqual({});
  });

  it('returns exact API key records', async ({ sandbox }) => {
    const res = await call(sandbox, 'GET', '/api_keys?limit=2');
    expect(res.body.result).toEqual([
      { id: 'ak_001', name: 'API key 1', type: 'api', permissions: [], ...seedAudit },
      {
        id: 'ak_002',
        name: 'API key 2',
        type: 'api',
        permissions: ['fetch'],
        ...seedAudit,
        created_time: '2025-01-01T00:01:00.000Z',
        updated_time: '2025-01-01T00:01:00.000Z',
      },
    ]);
    const last = await call(sandbox, 'GET', `/api_keys?limit=2&cursor=${new URL(res.body.links.next).searchParams.get('cursor')}`);
    expect(ids(last)).toEqual(['ak_003', 'ak_004']);
  });

  it('keeps the limit in links.next', async ({ sandbox }) => {
    const res = await call(sandbox, 'GET', '/api_keys?limit=10');
    expect(ids(res)).toEqual(range(1, 10));
    const next = new URL(res.body.links.next);
    expect(next.searchParams.get('limit')).toBe('10');
    const page = await call(sandbox, 'GET', `/api_keys${next.search}`);
    expect(ids(page)).toEqual(range(11, 20));
  });

  it('omits links.next when the page ends exactly at the last key', async ({ sandbox }) => {
    const first = await call(sandbox, 'GET', '/api_keys?limit=25');
    const second = await call(sandbox, 'GET', `/api_keys${new URL(first.body.links.next).search}`);
    const cursor = new URL(second.body.links.next).searchParams.get('cursor');
    const last = await call(sandbox, 'GET', `/api_keys?limit=12&cursor=${cursor}`);
    expect(ids(last)).toEqual(range(51, 62));
    expect(last.body).toEqual(success(last.body.result));
  });

  it('builds links.next from the Host header', async ({ sandbox }) => {
    const port = new URL(sandbox.url).port;
    const body = await new Promise<any>((resolve, reject) => {
      request(
        {
          host: '127.0.0.1',
          port,
          path: '/v2/api_keys?limit=5',
          headers: { host: 'gateway.example:8080', ...AUTH },
        },
        (res) => {
          let data = '';
          res.on('data', (chunk) => (data += chunk));
          res.on('end', () => resolve(JSON.parse(data)));
        },
      )
        .on('error', reject)
        .end();
    });
    expect(body.links.next).toMatch(/^http:\/\/gateway\.example:8080\/v2\/api_keys\?limit=5&cursor=[^&]+$/);
  });

  it.for(['0', '26', '-1', '1.5', 'abc', '', '1e1'])('rejects limit=%j with 422', async (limit, { sandbox }) => {
    const res = await call(sandbox, 'GET', `/api_keys?limit=${limit}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(failure({ code: 'invalid_parameter', field: 'limit', message: 'limit must be an integer from 1 to 25' }));
  });

  it.for([
    ['garbage', 'not*a*cursor'],
    ['empty', ''],
    ['non-JSON', Buffer.from('hello').toString('base64url')],
    ['negative offset', Buffer.from('{"offset":-1}').toString('base64url')],
    ['fractional offset', Buffer.from('{"offset":1.5}').toString('base64url')],
  ])('rejects a %s cursor with 400', async ([_, cursor], { sandbox }) => {
    const res = await call(sandbox, 'GET', `/api_keys?cursor=${cursor}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failure({ code: 'invalid_cursor', field: 'cursor', message: 'cursor is not a valid paging cursor' }));
  });
});

describe('PATCH /v2/videos/{VIDEO_ID}/hotspots/{HOTSPOT_ID}', () => {
  const seeded = (n: number) => ({
    id: `hs_00${n}`,
    name: `Hotspot ${n}`,
    show_at: '00:00:05',
    hide_at: '00:00:15',
    x: 50,
    y: 50,
    action: 'link',
    link: `https://example.com/hotspot-${n}`,
    target: '_blank',
    opacity: 'translucent',
  });

  it('returns the hotspot unchanged, without audit fields, for an empty body', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/videos/vid_001/hotspots/hs_001', { body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(success(seeded(1)));
  });

  it('updates the given fields and keeps the others', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/videos/vid_001/hotspots/hs_002', {
      body: { name: 'Buy now', x: 25.5, opacity: 'opaque' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(success({ ...seeded(2), name: 'Buy now', x: 25.5, opacity: 'opaque' }));
    const again = await call(sandbox, 'PATCH', '/videos/vid_001/hotspots/hs_002', { body: {} });
    expect(again.body.result).toEqual(res.body.result);
  });

  it('accepts every field at its limits', async ({ sandbox }) => {
    const body = {
      name: 'n'.repeat(100),
      show_at: '99:59:59',
      hide_at: '00:00:00',
      x: -10,
      y: 1000,
      action: 'link',
      link: `https://example.com/${'l'.repeat(80)}`,
      target: '_parent',
      opacity: 'invisible',
    };
    const res = await call(sandbox, 'PATCH', '/videos/vid_001/hotspots/hs_003', { body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(success({ id: 'hs_003', ...body }));
  });

  it('percent-decodes path segments', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/videos/vid%5F001/hotspots/hs%5f001', { body: {} });
    expect(res.status).toBe(200);
    expect(res.body.result.id).toBe('hs_001');
  });

  it('404s an unknown video or hotspot', async ({ sandbox }) => {
    const video = await call(sandbox, 'PATCH', '/videos/vid_999/hotspots/hs_001', { body: {} });
    expect(video.status).toBe(404);
    expect(video.body).toEqual(failure({ code: 'not_found', message: 'Video vid_999 not found' }));
    const hotspot = await call(sandbox, 'PATCH', '/videos/vid_001/hotspots/hs_999', { body: {} });
    expect(hotspot.status).toBe(404);
    expect(hotspot.body).toEqual(failure({ code: 'not_found', message: 'Hotspot hs_999 not found on video vid_001' }));
  });

  it('reports one 422 error per invalid field, in body order', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/videos/vid_001/hotspots/hs_001', {
      body: {
        name: 'n'.repeat(101),
        show_at: '0:00:05',
        hide_at: '00:00:60',
        x: '50',
        y: null,
        action: 'play',
        link: 'l'.repeat(101),
        target: '_self',
        opacity: 'clear',
        color: 'red',
      },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      failure(
        invalid('name', 'name must be at most 100 characters long'),
        invalid('show_at', 'show_at must be a time-code formatted as HH:MM:SS'),
        invalid('hide_at', 'hide_at must be a time-code formatted as HH:MM:SS'),
        invalid('x', 'x must be a number'),
        invalid('y', 'y must be a number'),
        invalid('action', 'action must be one of: link'),
        invalid('link', 'link must be at most 100 characters long'),
        invalid('target', 'target must be one of: _blank, _parent'),
        invalid('opacity', 'opacity must be one of: invisible, translucent, opaque'),
        invalid('color', 'color is not an accepted field'),
      ),
    );
    const unchanged = await call(sandbox, 'PATCH', '/videos/vid_001/hotspots/hs_001', { body: {} });
    expect(unchanged.body.result).toEqual(seeded(1));
  });

  it('puts an unknown field at its place in the body, and takes neither null nor 1e999 (Infinity) for a value', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/videos/vid_001/hotspots/hs_001', { raw: '{"color":"red","x":1e999,"name":null}' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      failure(
        invalid('color', 'color is not an accepted field'),
        invalid('x', 'x must be a number'),
        invalid('name', 'name must be a string'),
      ),
    );
  });
});

describe('POST /v2/idps', () => {
  const certificate = '-----BEGIN CERTIFICATE-----\nMIIB\r\nabc==\n-----END CERTIFICATE-----\n';
  const body = {
    name: 'Corporate SSO',
    company: 'okta',
    type: 'saml2',
    certificate,
    entity_id: 'https://app.example.com/saml',
    signin_url: 'https://example.okta.com/app/sso/saml',
  };

  it('creates an identity provider with a new id and audit fields', async ({ sandbox }) => {
    const since = Date.now();
    const res = await call(sandbox, 'POST', '/idps', { body });
    expect(res.status).toBe(200);
    const { id, created_by, created_time, updated_by, updated_time, ...fields } = res.body.result;
    expect(id).toMatch(/^idp_[0-9a-f]{16}$/);
    expect(fields).toEqual(body);
    expect(res.body.result.certificate).toBe(certificate);
    expect(res.body).toEqual(success(res.body.result));
    expectFreshAudit(res.body.result, 'usr_owner', since);

    const second = await call(sandbox, 'POST', '/idps', { body });
    expect(second.body.result.id).not.toBe(id);
  });

  it('requires every field', async ({ sandbox }) => {
    const res = await call(sandbox, 'POST', '/idps', { body: {} });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      failure(...['name', 'company', 'type', 'certificate', 'entity_id', 'signin_url'].map((f) => invalid(f, `${f} is required`))),
    );
  });

  it('validates enums, lengths and types', async ({ sandbox }) => {
    const res = await call(sandbox, 'POST', '/idps', {
      body: { ...body, name: '', company: 'azure', type: 'oidc', certificate: 42 },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      failure(
        invalid('name', 'name must be 1-40 characters long'),
        invalid('company', 'company must be one of: google, okta'),
        invalid('type', 'type must be one of: saml2'),
        invalid('certificate', 'certificate must be a string'),
      ),
    );
  });
});

describe('PATCH /v2/categories/{CATEGORY_ID}', () => {
  it('updates name and value and stamps updated_by/updated_time', async ({ sandbox }) => {
    const since = Date.now();
    const res = await call(sandbox, 'PATCH', '/categories/cat_002', {
      body: { name: 'c'.repeat(40), value: 'Drama' },
      auth: 'Bearer editor',
    });
    expect(res.status).toBe(200);
    const { updated_time, ...rest } = res.body.result;
    expect(rest).toEqual({
      id: 'cat_002',
      name: 'c'.repeat(40),
      value: 'Drama',
      created_by: 'usr_owner',
      created_time: SEED,
      updated_by: callerId('editor'),
    });
    expect(updated_time).toMatch(ISO_MS);
    expect(Date.parse(updated_time)).toBeGreaterThanOrEqual(since);
  });

  it('returns the seeded record unchanged for an empty body', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/categories/cat_003', { body: {} });
    expect(res.body).toEqual(success({ id: 'cat_003', name: 'Category 3', value: 'category-3', ...seedAudit }));
  });

  it('counts length in characters, not UTF-16 units', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/categories/cat_004', { body: { name: '🎬'.repeat(40) } });
    expect(res.status).toBe(200);
  });

  it('rejects out-of-range lengths and non-strings', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/categories/cat_001', {
      body: { name: 'c'.repeat(41), value: 7 },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(failure(invalid('name', 'name must be 1-40 characters long'), invalid('value', 'value must be a string')));
    const empty = await call(sandbox, 'PATCH', '/categories/cat_001', { body: { value: '' } });
    expect(empty.body.errors).toEqual([invalid('value', 'value must be 1-40 characters long')]);
  });

  it('404s an unknown category', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/categories/cat_999', { body: { name: 'x' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(failure({ code: 'not_found', message: 'Category cat_999 not found' }));
  });
});

describe('PATCH /v2/users/{USER_ID}', () => {
  it('updates name and role, returning email', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/users/usr_viewer', {
      body: { name: 'Victor Promoted', role: 'uploader' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      id: 'usr_viewer',
      name: 'Victor Promoted',
      email: 'viewer@example.com',
      role: 'uploader',
      created_by: 'usr_owner',
      created_time: SEED,
      updated_by: 'usr_owner',
      updated_time: expect.stringMatching(ISO_MS),
    });
  });

  it('seeds the four users', async ({ sandbox }) => {
    const users = await Promise.all(
      ['owner', 'admin', 'uploader'].map((role) => call(sandbox, 'PATCH', `/users/usr_${role}`, { body: {} })),
    );
    expect(users.map((u) => u.body.result)).toEqual([
      { id: 'usr_owner', name: 'Olivia Owner', email: 'owner@example.com', role: 'owner', ...seedAudit },
      { id: 'usr_admin', name: 'Adam Admin', email: 'admin@example.com', role: 'admin', ...seedAudit },
      { id: 'usr_uploader', name: 'Uma Uploader', email: 'uploader@example.com', role: 'uploader', ...seedAudit },
    ]);
  });

  it('rejects email and unknown roles', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/users/usr_admin', {
      body: { email: 'new@example.com', role: 'superuser' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      failure(invalid('email', 'email is not an accepted field'), invalid('role', 'role must be one of: viewer, uploader, admin, owner')),
    );
  });

  it('404s an unknown user', async ({ sandbox }) => {
    const res = await call(sandbox, 'PATCH', '/users/usr_nobody', { body: {} });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(failure({ code: 'not_found', message: 'User usr_nobody not found' }));
  });
});

describe('POST /v2/services', () => {
  it('creates a service', async ({ sandbox }) => {
    const since = Date.now();
    const res = await call(sandbox, 'POST', '/services', { body: { name: 'Channel', provider: 'youtube' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ name: 'Channel', provider: 'youtube' });
    expect(Object.keys(res.body.result)).toEqual(['id', 'name', 'provider', 'created_by', 'created_time', 'updated_by', 'updated_time']);
    expect(res.body.result.id).toMatch(/^svc_[0-9a-f]{16}$/);
    expectFreshAudit(res.body.result, 'usr_owner', since);
  });

  it('validates provider and requires name', async ({ sandbox }) => {
    const res = await call(sandbox, 'POST', '/services', { body: { provider: 'vimeo' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      failure(
        invalid('provider', 'provider must be one of: campaign_monitor, mailchimp, tiktok, youtube'),
        invalid('name', 'name is required'),
      ),
    );
  });
});

describe('POST /v2/folders', () => {
  it('creates a folder', async ({ sandbox }) => {
    const since = Date.now();
    const res = await call(sandbox, 'POST', '/folders', { body: { name: 'Webinars' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result)).toEqual(['id', 'name', 'created_by', 'created_time', 'updated_by', 'updated_time']);
    expect(res.body.result.id).toMatch(/^fld_[0-9a-f]{16}$/);
    expect(res.body.result.name).toBe('Webinars');
    expectFreshAudit(res.body.result, 'usr_owner', since);
  });

  it('requires a name of 1-40 characters and nothing else', async ({ sandbox }) => {
    const missing = await call(sandbox, 'POST', '/folders', { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual(failure(invalid('name', 'name is required')));
    const tooLong = await call(sandbox, 'POST', '/folders', { body: { name: 'f'.repeat(41), parent: 'x' } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toEqual(
      failure(invalid('name', 'name must be 1-40 characters long'), invalid('parent', 'parent is not an accepted field')),
    );
  });

  it('reports the fields sent before the missing ones, and a null name as given, not as missing', async ({ sandbox }) => {
    const unknown = await call(sandbox, 'POST', '/folders', { body: { parent: 'x' } });
    expect(unknown.body).toEqual(failure(invalid('parent', 'parent is not an accepted field'), invalid('name', 'name is required')));
    const nullName = await call(sandbox, 'POST', '/folders', { body: { name: null } });
    expect(nullName.body).toEqual(failure(invalid('name', 'name must be a string')));
  });
});
