import { CLIENT_NAME } from '../config/parsers.js';

/** The app that calls, as it names itself; `other` for a value that is not a plain short token. */
export interface ClientIdentity {
  name: string | undefined;
  version: string | undefined;
}

const plain = (value: string | null): string | undefined => {
  if (value === null) return undefined;
  return CLIENT_NAME.test(value) ? value : 'other';
};

/**
 * The calling app from Apollo Client's client awareness (`apollographql-client-name`, `-version`)
 * or the GraphQL-over-HTTP names (`graphql-client-name`, `-version`). Callers choose these, so
 * anything but a plain token of at most 64 characters is `other`: it may be logged, traced and
 * counted without escaping or bounds of its own.
 */
export function clientOf(headers: Pick<Headers, 'get'>): ClientIdentity {
  return {
    name: plain(headers.get('apollographql-client-name') ?? headers.get('graphql-client-name')),
    version: plain(headers.get('apollographql-client-version') ?? headers.get('graphql-client-version')),
  };
}
