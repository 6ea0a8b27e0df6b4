import { meros } from 'meros/browser';
import {
  type FetchFunction,
  type GraphQLSingularResponse,
  type INetwork,
  Network,
  Observable,
  type PayloadData,
  type PayloadError,
} from 'relay-runtime';

/** One part of the gateway's answer in parts: the first has `data`, later ones `incremental` results. */
interface Part {
  data?: PayloadData | null;
  errors?: PayloadError[];
  incremental?: Array<{
    data?: PayloadData | null;
    items?: unknown[] | null;
    path: Array<string | number>;
    label?: string;
    errors?: PayloadError[];
  }>;
  hasNext?: boolean;
}

/**
 * Relay's network layer for the gateway, incremental delivery included (`@defer`, `@stream`,
 * `@stream_connection`): it asks for `multipart/mixed` and hands Relay each part as it arrives.
 * The gateway sends each part as the incremental delivery RFC of 2022 writes it (`incremental`,
 * `items`), the form Apollo Client and urql read; relay-runtime reads one payload per deferred
 * fragment or streamed item, with its `label` and `path`, so each part is split into those.
 */
export function gatewayNetwork(url: string, headers: Record<string, string>): INetwork {
  const fetchFunction: FetchFunction = (params, variables) =>
    Observable.create<GraphQLSingularResponse>((sink) => {
      const abort = new AbortController();
      (async () => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'multipart/mixed, application/graphql-response+json', ...headers },
          body: JSON.stringify({ query: params.text, variables }),
          signal: abort.signal,
        });
        const parts = await meros<Part>(response);
        if (parts instanceof Response) {
          sink.next(await parts.json());
        } else {
          for await (const part of parts) if (part.json) for (const payload of relayPayloads(part.body)) sink.next(payload);
        }
        sink.complete();
      })().catch((error: unknown) => sink.error(error as Error));
      return () => abort.abort();
    });
  return Network.create(fetchFunction);
}

/** The payloads relay-runtime reads for one part: the first as it is, each increment's fragment or items one by one. */
function relayPayloads({ data, errors, incremental }: Part): GraphQLSingularResponse[] {
  if (!incremental) return [{ data: data ?? {}, ...(errors ? { errors } : {}) }];
  return incremental.flatMap(({ data, items, path, label, errors }) => {
    const failed = errors ? { errors } : {};
    if (items === undefined) return [{ data: data ?? {}, path, label, ...failed }];
    // A streamed list's path ends with the index of its first item.
    const first = path.at(-1) as number;
    return (items ?? []).map((item, index) => ({
      data: item as PayloadData,
      path: [...path.slice(0, -1), first + index],
      label,
      ...failed,
    }));
  });
}
