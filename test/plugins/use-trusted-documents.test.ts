import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTrustedDocuments } from '../../src/config/trusted-documents.js';
import { useTrustedDocuments } from '../../src/plugins/use-trusted-documents.js';
import { answerTo, ENDPOINT, send, yogaWith } from '../support/yoga.js';

const documents = new Map([
  ['sha256:aa', '{ hello }'],
  ['sha256:bb', 'query Greet($name: String) { hello(name: $name) }'],
]);

const refused = (code: string, message: string) => ({ status: 400, body: { errors: [{ message, extensions: { code } }] } });
const QUERY_SENT = refused(
  'TRUSTED_DOCUMENT_REQUIRED',
  'Only trusted documents run here: send the operation\'s "documentId" instead of "query".',
);
const NO_ID = refused('TRUSTED_DOCUMENT_REQUIRED', 'Only trusted documents run here: the request has no "documentId".');
const UNKNOWN = refused(
  'TRUSTED_DOCUMENT_NOT_FOUND',
  'This documentId is not a trusted document of this gateway: regenerate the client against its manifest.',
);

describe('useTrustedDocuments', () => {
  const yoga = yogaWith([useTrustedDocuments({ documents })]);
  const answer = (body: unknown) => answerTo(yoga, body);

  it('runs a listed document sent by documentId in a POST body, with its variables', async () => {
    expect(await answer({ documentId: 'sha256:aa' })).toEqual({ status: 200, body: { data: { hello: 'Hello world' } } });
    expect(await answer({ documentId: 'sha256:bb', operationName: 'Greet', variables: { name: 'Ada' } })).toEqual({
      status: 200,
      body: { data: { hello: 'Hello Ada' } },
    });
  });

  it('runs a listed document sent by documentId in a GET URL', async () => {
    const variables = encodeURIComponent(JSON.stringify({ name: 'Ada' }));
    const { status, body } = await send(yoga, `${ENDPOINT}?documentId=sha256:bb&variables=${variables}`);
    expect({ status, body }).toEqual({ status: 200, body: { data: { hello: 'Hello Ada' } } });
  });

  it('refuses query text, even the text of a listed document, and even beside a documentId', async () => {
    expect(await answer({ query: '{ text(length: 1) }' })).toEqual(QUERY_SENT);
    expect(await answer({ query: '{ hello }' })).toEqual(QUERY_SENT);
    expect(await answer({ documentId: 'sha256:aa', query: '{ text(length: 1) }' })).toEqual(QUERY_SENT);
  });

  it('refuses a request without a documentId: none, empty, not a string, or an APQ hash', async () => {
    expect(await answer({})).toEqual(NO_ID);
    expect(await answer({ documentId: '' })).toEqual(NO_ID);
    expect(await answer({ documentId: 42 })).toEqual(NO_ID);
    expect(await answer({ extensions: { persistedQuery: { version: 1, sha256Hash: 'aa' } } })).toEqual(NO_ID);
  });

  it('reads the URL only of a GET: a POST names its document in the body', async () => {
    const { status, body } = await send(yoga, `${ENDPOINT}?documentId=sha256:aa`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: '{}',
    });
    expect({ status, body }).toEqual(NO_ID);
  });

  it('refuses a documentId the manifest does not list', async () => {
    expect(await answer({ documentId: 'sha256:zz' })).toEqual(UNKNOWN);
  });
});

describe('loadTrustedDocuments', () => {
  const made: string[] = [];
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'trusted-documents-'));
    made.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true });
  });

  it('reads a manifest into document id -> text, and the same text under one id in two manifests', () => {
    const dir = folder();
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ 'sha256:aa': '{ hello }' }));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ 'sha256:aa': '{ hello }', 'sha256:bb': '{ text(length: 1) }' }));
    expect(loadTrustedDocuments([dir])).toEqual(
      new Map([
        ['sha256:aa', '{ hello }'],
        ['sha256:bb', '{ text(length: 1) }'],
      ]),
    );
  });

  it('refuses a folder without a .json manifest', () => {
    const dir = folder();
    writeFileSync(join(dir, 'notes.txt'), '{}');
    expect(() => loadTrustedDocuments([dir])).toThrow(`TRUSTED_DOCUMENTS: the folder ${dir} holds no .json manifest.`);
  });

  it('refuses a manifest that is empty, or maps an id to anything but non-empty text', () => {
    for (const manifest of [{}, { 'sha256:aa': 1 }, { 'sha256:aa': '' }, { '': '{ hello }' }, ['{ hello }']]) {
      const file = join(folder(), 'manifest.json');
      writeFileSync(file, JSON.stringify(manifest));
      expect(() => loadTrustedDocuments([file])).toThrow(
        `TRUSTED_DOCUMENTS: ${file} must be a non-empty JSON object mapping document ids to document text.`,
      );
    }
  });
});
