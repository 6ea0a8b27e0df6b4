import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** The client preset's persisted-documents.json: document id ("sha256:<hex>") -> document text. */
const manifestSchema = z.record(z.string().min(1), z.string().min(1));

/**
 * Reads and checks the manifests once, at start-up, so a bad file stops the gateway before it
 * serves. Each path is a manifest, or a folder whose `*.json` files are manifests: one per app,
 * so that each frontend team ships its own. Their documents are merged; one id is one text, in
 * whichever manifest it appears.
 */
export function loadTrustedDocuments(paths: readonly string[]): ReadonlyMap<string, string> {
  const documents = new Map<string, string>();
  for (const file of paths.flatMap(manifestFiles)) {
    for (const [id, text] of Object.entries(readManifest(file))) {
      if (documents.has(id) && documents.get(id) !== text) {
        throw new Error(`TRUSTED_DOCUMENTS: ${file} gives document ${id} another text than an earlier manifest.`);
      }
      documents.set(id, text);
    }
  }
  return documents;
}

function manifestFiles(path: string): string[] {
  let folder: boolean;
  try {
    folder = statSync(path).isDirectory();
  } catch (error) {
    throw unreadable(path, error);
  }
  if (!folder) return [path];
  const files = readdirSync(path)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(path, name));
  if (files.length === 0) throw new Error(`TRUSTED_DOCUMENTS: the folder ${path} holds no .json manifest.`);
  return files;
}

/** Names the file and the system's error code, never its message, which may quote more than needed. */
const unreadable = (path: string, error: unknown) =>
  new Error(`TRUSTED_DOCUMENTS: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}).`);

function readManifest(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: it quotes the file, which may be anything, a secret included.
    throw new Error(`TRUSTED_DOCUMENTS: ${path} is not JSON.`);
  }
  const manifest = manifestSchema.safeParse(parsed);
  if (!manifest.success || Object.keys(manifest.data).length === 0) {
    throw new Error(`TRUSTED_DOCUMENTS: ${path} must be a non-empty JSON object mapping document ids to document text.`);
  }
  return manifest.data;
}
