import type { DocumentNode, Token } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { defaultSettings } from '../config/settings.js';
import { limitExceeded, refusedBeforeRunning } from '../errors.js';
import { isOversized } from '../http/document-size.js';
import { OperationSlot, recordOf } from '../operation-record.js';

export interface DocumentCacheOptions {
  /** Largest document, in UTF-8 bytes of its text, refused before it is parsed (MAX_DOCUMENT_BYTES). @default 65536 */
  maxDocumentBytes?: number;
  /** Memory for valid documents kept parsed between requests, estimated as below (DOCUMENT_CACHE_BYTES). @default 16777216 */
  documentCacheBytes?: number;
}

const DEFAULTS = defaultSettings();

/**
 * Heap a parsed document holds beyond its text, per lexical token: graphql-js keeps every token
 * (a linked list, for error locations) and a node for most of them. Measured: 270-340 bytes a
 * token over dense selections, argument lists and the introspection query alike; a string
 * literal's characters cost about what the text does.
 */
const BYTES_PER_TOKEN = 400;

/**
 * What the gateway keeps of the documents callers send, bounded in bytes, in place of Yoga's
 * parse and validation caches (1,024 entries each, keyed by the full text, with no bound on
 * bytes, and filled before any token or limit check: about 230 distinct 1 MB documents filled a
 * 768 MiB container).
 *
 * - A document over `maxDocumentBytes` is refused `LIMIT_EXCEEDED` (`limit: documentBytes`) before
 *   anything parses, registers or keeps it.
 * - A document is kept only once it has passed validation, so nothing is kept for one that fails;
 *   the cache holds at most `documentCacheBytes` by the estimate of `costOf`, least recently used
 *   dropped first. A kept document is the same object on every request, so the compiled function
 *   graphql-jit keeps for it (by document) is found again, and is released with it.
 */
export function useDocumentCache({
  maxDocumentBytes = DEFAULTS.maxDocumentBytes,
  documentCacheBytes = DEFAULTS.documentCacheBytes,
}: DocumentCacheOptions = {}): Plugin {
  const documents =
    documentCacheBytes > 0
      ? new LRUCache<string, DocumentNode>({ maxSize: documentCacheBytes, sizeCalculation: (document, text) => costOf(text, document) })
      : undefined;
  /** An operation's document as parsed from its text, until it is validated: kept if it is valid. */
  const parsed = new OperationSlot<{ document: DocumentNode; text: string }>();
  /** Documents kept: they passed validation under these very rules, which never change for a gateway. */
  const valid = new WeakSet<DocumentNode>();
  return {
    onParams: ({ params }) => {
      const { query } = params;
      if (typeof query !== 'string' || !isOversized(query, maxDocumentBytes)) return;
      const error = limitExceeded(
        'documentBytes',
        maxDocumentBytes,
        `The document is larger than ${maxDocumentBytes} bytes (MAX_DOCUMENT_BYTES).`,
      );
      throw refusedBeforeRunning(error);
    },
    onParse: ({ params, context, setParsedDocument }) => {
      if (!documents) return;
      const text = typeof params.source === 'string' ? params.source : params.source.body;
      const kept = documents.get(text);
      if (kept) return setParsedDocument(kept);
      const record = recordOf(context);
      return ({ result }) => {
        if (result && !(result instanceof Error)) parsed.set(record, { document: result as DocumentNode, text });
      };
    },
    onValidate: ({ params, context, setResult }) => {
      if (!documents) return;
      const document = params.documentAST;
      if (valid.has(document)) return setResult([]);
      const record = recordOf(context);
      return ({ valid: passed }) => {
        const kept = parsed.take(record);
        if (!passed || !kept || kept.document !== document) return;
        valid.add(document);
        documents.set(kept.text, document);
      };
    },
  };
}

/** The heap a kept document holds: its text, twice for good measure (the source and the key), and its tokens. */
function costOf(text: string, document: DocumentNode): number {
  let tokens = 0;
  for (let token: Token | null | undefined = document.loc?.startToken; token; token = token.next) tokens++;
  return 2 * text.length + BYTES_PER_TOKEN * tokens;
}
