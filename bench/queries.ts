// The operations the benchmark sends, shared by its scripts so that every number is about the same work.

const apiKeyFields = 'id name type permissions createdBy createdTime updatedBy updatedTime';
const pageInfo = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

/** A page of API keys with cursors and pageInfo: every field by default, which the floor serves too. */
export const apiKeysQuery = (first: number, fields = apiKeyFields) =>
  `query { apiKeys(first: ${first}) { edges { cursor node { ${fields} } } ${pageInfo} } }`;

// With every field, first: 100 passes the default cost limit (README, "Security and limits"), so it asks for fewer.
const fields100 = 'id name type permissions createdTime';
export const apiKeys100 = apiKeysQuery(100, fields100);

/** apiKeys100 with its edges streamed, the first upstream page's 25 in the first part, and pageInfo deferred (as Relay's @stream_connection). */
export const streamedApiKeys100 = `query { apiKeys(first: 100) { edges @stream(initialCount: 25) { cursor node { ${fields100} } } ... @defer { ${pageInfo} } } }`;

export const createFolder =
  'mutation { createFolder(input: { name: "bench" }) { folder { id name createdBy createdTime updatedBy updatedTime } } }';
