import type { Plugin } from 'graphql-yoga';

/**
 * With an allow-list, CORS headers depend on the Origin header, yet Yoga only says so when it
 * reflects several origins. Any cache between browser and gateway must not mix them up.
 */
export function useVaryOrigin(): Plugin {
  return {
    onResponse: ({ response }) => {
      const vary = response.headers.get('vary');
      if (vary === null) response.headers.set('vary', 'Origin');
      else if (!/(^|,)\s*origin\s*(,|$)/i.test(vary)) response.headers.set('vary', `${vary}, Origin`);
    },
  };
}
