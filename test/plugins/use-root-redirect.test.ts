import { describe, expect, it } from 'vitest';
import { useRootRedirect } from '../../src/plugins/use-root-redirect.js';
import { send, yogaWith } from '../support/yoga.js';

describe('useRootRedirect', () => {
  const yoga = yogaWith([useRootRedirect()]);

  it('redirects a GET of the root to GraphiQL', async () => {
    expect(await send(yoga, 'http://yoga/')).toEqual({ status: 302, headers: { location: '/graphql', 'content-length': '0' }, body: null });
  });

  it('leaves other paths and methods alone', async () => {
    expect((await send(yoga, 'http://yoga/elsewhere')).status).toBe(404);
    expect((await send(yoga, 'http://yoga/', { method: 'POST' })).status).toBe(404);
  });
});
