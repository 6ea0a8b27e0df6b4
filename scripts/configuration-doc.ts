/**
 * `npm run docs:write`: writes docs/configuration.md from the settings table
 * (src/config/settings.ts). test/unit/docs.test.ts fails when the committed file differs.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { RETIRED_VARIABLES, SECTIONS, SETTING_RULES, SETTINGS } from '../src/config/settings.js';

export const CONFIGURATION_DOC = new URL('../docs/configuration.md', import.meta.url);

function shown(value: unknown): string {
  if (value === undefined) return 'unset';
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

/** The whole of docs/configuration.md. */
export function renderConfiguration(): string {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config/settings.ts by `./run npm run docs:write`; edit the table there, not this file. -->',
    '',
    'The gateway reads only environment variables, each of them optional. A value that does not parse,',
    'or an empty one, stops start-up with exit status 1 and a line naming the variable, one for each such',
    'variable: `Invalid configuration: PORT must be a port number from 0 to 65535.` Unset the variable to',
    'take its default. `node dist/main.js --check-config` checks them without starting, and prints each',
    'setting as the gateway would run with it, secrets `[redacted]`',
    '([operations](operations.md#what-the-process-says-about-itself)).',
    '',
  ];
  for (const [section, title] of Object.entries(SECTIONS)) {
    lines.push(`## ${title}`, '', '| Variable | Default | Values | Meaning |', '|---|---|---|---|');
    for (const spec of Object.values(SETTINGS)) {
      if (spec.section !== section) continue;
      const fallback = spec.defaultText ?? shown(spec.default);
      lines.push(`| \`${spec.env}\` | ${fallback} | ${spec.parse.description} | ${spec.doc} |`);
    }
    lines.push('');
  }
  lines.push(
    '## Combinations refused at start',
    '',
    'Each value above can be valid on its own and still be refused with another, with one of these lines for each combination refused:',
    '',
    ...SETTING_RULES.map((rule) => `- ${rule.message}`),
    '',
    'Not settings: the OpenTelemetry exporter also reads the standard `OTEL_EXPORTER_OTLP_*` variables',
    '(headers, timeout, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and with `WORKERS` above 1 the cluster',
    'primary passes `GATEWAY_PRIMARY_SANDBOX_URL` to its workers so that they share one sandbox; do not set it yourself.',
    '',
    '## Retired variables',
    '',
    'No longer read; what each configured holds without it. One that is still set is named in a warning at start-up:',
    '',
    ...Object.values(RETIRED_VARIABLES).map((warning) => `- ${warning}`),
    '',
  );
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(CONFIGURATION_DOC, renderConfiguration());
  console.log('Wrote docs/configuration.md.');
}
