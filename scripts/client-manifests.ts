/**
 * The operations clients registered, read from the manifests their build tools write: graphql-codegen's
 * client preset (`persisted-documents.json`, `{ "<hash>": "<document>" }`) and Apollo's
 * `@apollo/generate-persisted-query-manifest` (`{ "format": "apollo-persisted-query-manifest",
 * "version": 1, "operations": [{ "id", "name", "type", "body" }] }`).
 */
import { type DocumentNode, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { z } from 'zod';
import { InputError, readJson } from './schema-changes.js';

export const MANIFEST_FORMATS = { codegen: 'graphql-codegen-persisted-documents', apollo: 'apollo-persisted-query-manifest' } as const;

export interface RegisteredOperation {
  /** The manifest file, as given. */
  manifest: string;
  /** The operation's name; `(anonymous)` for an operation without one. */
  name: string;
  /** The id a client sends for it: the codegen manifest's key, the Apollo manifest's `id`. */
  hash: string;
  document: DocumentNode;
}

export interface ClientManifest {
  file: string;
  format: (typeof MANIFEST_FORMATS)[keyof typeof MANIFEST_FORMATS];
  operations: RegisteredOperation[];
}

const codegenManifest = z.record(z.string().min(1), z.string().min(1));
const apolloManifest = z.object({
  format: z.literal(MANIFEST_FORMATS.apollo),
  version: z.literal(1),
  operations: z.array(
    z.object({ id: z.string().min(1), name: z.string(), type: z.enum(['query', 'mutation', 'subscription']), body: z.string().min(1) }),
  ),
});

/** Reads one manifest; anything that is not one of the two formats, or a document that does not parse, is an `InputError`. */
export function readClientManifest(file: string): ClientManifest {
  const json = readJson(file);
  const entries = isApollo(json) ? apolloEntries(file, json) : codegenEntries(file, json);
  if (entries.length === 0) throw new InputError(`${file}: the manifest holds no operation.`);
  const format = isApollo(json) ? MANIFEST_FORMATS.apollo : MANIFEST_FORMATS.codegen;
  const operations = entries.map(({ hash, body, name }) => operationOf(file, hash, body, name));
  // By name, then id: each tool lists them in its own order, the report lists them in one.
  operations.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  return { file, format, operations };
}

const isApollo = (json: unknown) => typeof json === 'object' && json !== null && 'format' in json;

function apolloEntries(file: string, json: unknown) {
  const manifest = apolloManifest.safeParse(json);
  if (!manifest.success) {
    const [issue] = manifest.error.issues;
    throw new InputError(
      `${file}: not an Apollo persisted query manifest (version 1): ${issue!.path.join('.') || 'the file'}: ${issue!.message}.`,
    );
  }
  return manifest.data.operations.map((operation) => ({ hash: operation.id, body: operation.body, name: operation.name }));
}

function codegenEntries(file: string, json: unknown) {
  const manifest = codegenManifest.safeParse(json);
  if (!manifest.success) {
    throw new InputError(
      `${file}: neither an Apollo persisted query manifest nor a graphql-codegen one (an object of hashes to documents).`,
    );
  }
  return Object.entries(manifest.data).map(([hash, body]) => ({ hash, body, name: undefined }));
}

/** One document of one operation, with the fragments it spreads: what a client sends under one id. */
function operationOf(file: string, hash: string, body: string, name: string | undefined): RegisteredOperation {
  let document: DocumentNode;
  try {
    document = parse(body);
  } catch (error) {
    throw new InputError(`${file}: the document ${hash} does not parse (${(error as Error).message.split('\n')[0]}).`);
  }
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (operations.length !== 1) throw new InputError(`${file}: the document ${hash} holds ${operations.length} operations, not one.`);
  return { manifest: file, name: name || operations[0]!.name?.value || '(anonymous)', hash, document };
}
