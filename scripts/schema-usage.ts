/**
 * `npm run schema:usage -- <metrics URL or file>... --out usage.json`: the usage file that
 * `npm run schema:breaking -- --usage` reads, made of the gateway's field-usage counter
 * (`FIELD_USAGE_METRIC` in src/field-usage.ts). Each source is a `/metrics` scrape of one gateway
 * (Prometheus' text format) or the answer of Prometheus' query API to a query that keeps the
 * counter's `coordinate` and `client` labels (docs/schema.md has it); counts of several sources
 * are added up.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { FIELD_USAGE_METRIC, SCHEMA_COORDINATE } from '../src/field-usage.js';
import { type CommandResult, InputError, plural, readInput, runAsScript, writeOutput } from './schema-changes.js';
import { type UsageCounts, usageCount, usageFileText } from './usage-file.js';

/** One count of the counter: a sample of a scrape or a series of a query's answer. */
interface Sample {
  coordinate: string;
  client: string;
  value: number;
}

const [COORDINATE, CLIENT] = FIELD_USAGE_METRIC.labelNames;
/** A sample's value or timestamp: a decimal float (`NaN` and `Inf`, which no count is, are not taken). */
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The counter's samples in a scrape, in Prometheus' text exposition format (or OpenMetrics', which
 * writes a counter's samples the same way). Other metrics' lines are skipped unread; a line of
 * the counter that is not well formed is an error, and so is a scrape without the counter's
 * `# TYPE` line, which a gateway writes even before it has counted anything.
 */
export function samplesOfScrape(source: string, text: string): Sample[] {
  const samples: Sample[] = [];
  let typed = false;
  for (const [index, line] of text.split('\n').entries()) {
    const where = `${source}, line ${index + 1}`;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)\s*$/.exec(line);
      // OpenMetrics names a counter's family without the `_total` its samples end in.
      if (type && (type[1] === FIELD_USAGE_METRIC.name || `${type[1]}_total` === FIELD_USAGE_METRIC.name)) {
        if (type[2] !== 'counter') throw new InputError(`${where}: ${type[1]} is a ${type[2]}, not a counter.`);
        typed = true;
      }
      continue;
    }
    if (!line.startsWith(FIELD_USAGE_METRIC.name) || !/^[{ \t]/.test(line.slice(FIELD_USAGE_METRIC.name.length))) continue;
    const { labels, rest } = labelsOf(where, line.slice(FIELD_USAGE_METRIC.name.length));
    const [value, timestamp, extra] = rest.trim().split(/[ \t]+/);
    if (!NUMBER.test(value ?? '') || extra !== undefined || (timestamp !== undefined && !NUMBER.test(timestamp))) {
      throw new InputError(`${where}: not a sample line.`);
    }
    samples.push(sampleOf(where, labels[COORDINATE], labels[CLIENT], Number(value)));
  }
  if (!typed) throw new InputError(`${source}: holds no counter ${FIELD_USAGE_METRIC.name} (no "# TYPE" line for it).`);
  return samples;
}

/** The label set `{name="value",…}` at the start of `text` (none when it does not start with `{`), with the escapes `\\`, `\"` and `\n`. */
function labelsOf(where: string, text: string): { labels: Record<string, string>; rest: string } {
  // Keyed by the scrape's label names: no prototype to write into or read from.
  const labels: Record<string, string> = Object.create(null);
  if (!text.startsWith('{')) return { labels, rest: text };
  let at = 1;
  const fail = (): never => {
    throw new InputError(`${where}: malformed labels at column ${FIELD_USAGE_METRIC.name.length + at + 1}.`);
  };
  for (;;) {
    at += /^[ \t]*/.exec(text.slice(at))![0].length;
    if (text[at] === '}') return { labels, rest: text.slice(at + 1) };
    const name = /^([a-zA-Z_]\w*)[ \t]*=[ \t]*"/.exec(text.slice(at)) ?? fail();
    at += name[0].length;
    let value = '';
    for (;;) {
      const char = text[at] ?? fail();
      if (char === '"') break;
      if (char === '\\') {
        const escaped = text[at + 1];
        if (escaped === 'n') value += '\n';
        else if (escaped === '\\' || escaped === '"') value += escaped;
        else fail();
        at += 2;
      } else {
        value += char;
        at += 1;
      }
    }
    if (Object.hasOwn(labels, name[1]!)) fail();
    labels[name[1]!] = value;
    at += 1 + /^[ \t]*/.exec(text.slice(at + 1))![0].length;
    if (text[at] === ',') at += 1;
    else if (text[at] !== '}') fail();
  }
}

/** Prometheus' answer to an instant query (`/api/v1/query`): a vector whose series carry the counter's two labels. */
const queryAnswer = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('vector'),
    result: z.array(z.object({ metric: z.record(z.string(), z.string()), value: z.tuple([z.number(), z.string()]) })),
  }),
});

export function samplesOfQueryAnswer(source: string, json: unknown): Sample[] {
  const answer = queryAnswer.safeParse(json);
  if (!answer.success) throw new InputError(`${source}: not a successful answer of Prometheus' query API with a vector result.`);
  const { result } = answer.data.data;
  // A query for a counter no gateway has kept answers nothing, like a mistyped one: neither is "nothing used".
  if (result.length === 0) throw new InputError(`${source}: the query answered no series.`);
  return result.map((series, index) =>
    sampleOf(`${source}, series ${index + 1}`, series.metric[COORDINATE], series.metric[CLIENT], Number(series.value[1])),
  );
}

function sampleOf(where: string, coordinate: string | undefined, client: string | undefined, value: number): Sample {
  if (coordinate === undefined || client === undefined) throw new InputError(`${where}: no "${COORDINATE}" and "${CLIENT}" labels.`);
  if (!SCHEMA_COORDINATE.test(coordinate)) throw new InputError(`${where}: ${JSON.stringify(coordinate)} is not a schema coordinate.`);
  if (!Number.isFinite(value) || value < 0) throw new InputError(`${where}: the count is not a finite number of at least 0.`);
  return { coordinate, client, value };
}

/**
 * The counts of all sources added up, per coordinate and client. A count that is not whole, as
 * PromQL's `increase` extrapolates, is rounded up: any increase at all is a use. A sum the usage
 * file cannot hold (`usageCount`) is an error, never a file that schema:breaking would refuse.
 */
export function usageOf(samples: Sample[]): UsageCounts {
  const counts: UsageCounts = new Map();
  for (const { coordinate, client, value } of samples) {
    const clients = counts.get(coordinate) ?? counts.set(coordinate, new Map()).get(coordinate)!;
    const sum = (clients.get(client) ?? 0) + Math.ceil(value);
    if (!usageCount.safeParse(sum).success) {
      throw new InputError(
        `the count of ${coordinate} by ${JSON.stringify(client)} adds up to more than ${Number.MAX_SAFE_INTEGER}, more than a usage file holds.`,
      );
    }
    clients.set(client, sum);
  }
  return counts;
}

/** A source's samples: a file or an http(s) URL, a scrape or a query's JSON answer. */
async function samplesOf(source: string): Promise<Sample[]> {
  const text = /^https?:\/\//.test(source) ? await fetched(source) : readInput(source);
  if (!text.trimStart().startsWith('{')) return samplesOfScrape(source, text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InputError(`${source}: starts like JSON but is not JSON.`);
  }
  return samplesOfQueryAnswer(source, json);
}

async function fetched(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new InputError(`${url}: cannot be fetched (${whyNotFetched(error)}).`);
  }
  if (!response.ok) throw new InputError(`${url}: answered HTTP ${response.status}.`);
  return response.text();
}

const USAGE = 'usage: npm run schema:usage -- <metrics URL or file>... [--out <usage.json>]';

/** The sources, and the file to write the usage file to (standard output without `--out`). */
function optionsOf(argv: string[]): { sources: string[]; out: string | undefined } {
  let parsed: ReturnType<typeof parseWith>;
  try {
    parsed = parseWith(argv);
  } catch (error) {
    throw new InputError(`${(error as Error).message}\n${USAGE}`);
  }
  if (parsed.positionals.length === 0) throw new InputError(USAGE);
  return { sources: parsed.positionals, out: parsed.values.out };
}

const parseWith = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' } } });

/**
 * Why fetch failed, in a word: its TypeError says only "fetch failed", so the system error code of
 * its cause (ECONNREFUSED, ENOTFOUND, through an AggregateError of the addresses tried), else the
 * cause's own message (fetch refuses some ports itself: "bad port"), else the error's name
 * (TimeoutError).
 */
function whyNotFetched(error: unknown): string {
  const causes: unknown[] = [];
  for (let at: unknown = error; at instanceof Error && causes.length < 8; at = at.cause) causes.push(at);
  const coded = causes.flatMap((cause) => [cause, ...(cause instanceof AggregateError ? cause.errors : [])]);
  const code = coded.map((cause) => (cause as NodeJS.ErrnoException).code).find((value) => typeof value === 'string');
  const innermost = causes.at(-1) as Error | undefined;
  return code ?? (causes.length > 1 && innermost?.message ? innermost.message : (innermost?.name ?? String(error)));
}

export async function runSchemaUsage(argv: string[]): Promise<CommandResult> {
  try {
    const { sources, out } = optionsOf(argv);
    const samples = (await Promise.all(sources.map(samplesOf))).flat();
    const counts = usageOf(samples);
    if (out === undefined) return { code: 0, stdout: usageFileText(counts), stderr: '' };
    writeOutput(out, usageFileText(counts));
    const clients = new Set([...counts.values()].flatMap((byClient) => [...byClient.keys()]));
    const coordinates = counts.size;
    return {
      code: 0,
      stdout: `schema:usage: wrote ${out}: ${plural(coordinates, 'coordinate')}, ${plural(clients.size, 'client')}.\n`,
      stderr: '',
    };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { code: 2, stdout: '', stderr: `schema:usage: ${error.message}\n` };
  }
}

await runAsScript(import.meta.url, runSchemaUsage);
