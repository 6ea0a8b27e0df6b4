/** Whether a document's text is over `maxDocumentBytes` in UTF-8 (MAX_DOCUMENT_BYTES): such a document is refused before it is parsed. */
export function isOversized(query: string, maxDocumentBytes: number): boolean {
  // Most documents are far below the bound in characters already: no need to count their bytes.
  return query.length * 3 > maxDocumentBytes && Buffer.byteLength(query) > maxDocumentBytes;
}
