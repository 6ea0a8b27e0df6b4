import { describe, expect, it } from 'vitest';
import { redactedPath } from '../../src/observability/upstream-view.js';

describe('the url of a call shown with X-Debug-Upstream', () => {
  it('redacts the values of query parameters named like a secret, and keeps the others and the path as they are', () => {
    expect(redactedPath('/api_keys?limit=25&cursor=abc')).toBe('/api_keys?limit=25&cursor=abc');
    expect(redactedPath('/videos/v1/hotspots')).toBe('/videos/v1/hotspots');
    expect(redactedPath('/files?access_token=t0k3n&apiKey=k&signature=s&Password=p&page=2')).toBe(
      '/files?access_token=[redacted]&apiKey=[redacted]&signature=[redacted]&Password=[redacted]&page=2',
    );
  });
});
