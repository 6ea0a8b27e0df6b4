import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { isSecret } from './parsers.js';
import { ConfigError, RENAMED_VARIABLES, RETIRED_VARIABLES, SETTINGS, type Settings, settingsWith } from './settings.js';

/** The names of every environment variable the gateway reads. */
export const ENVIRONMENT_VARIABLES: readonly string[] = Object.values(SETTINGS).map((spec) => spec.env);

/**
 * Reads every setting from the environment. An unset variable takes its default; a set one must
 * parse, and an empty one is an error too (an empty ConfigMap value is a mistake, not "unset").
 * Bad values throw one ConfigError with a line naming each variable, so that a deployment learns
 * of all its mistakes at once; once every value parses, so does each combination SETTING_RULES
 * refuses.
 */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const parsed: Partial<Record<keyof Settings, unknown>> = {};
  const problems: string[] = [];
  const renamedFrom = Object.fromEntries(Object.entries(RENAMED_VARIABLES).map(([old, name]) => [name, old]));
  for (const [old, name] of Object.entries(RENAMED_VARIABLES)) {
    if (env[old] !== undefined && env[name] !== undefined && env[old] !== env[name])
      problems.push(`Invalid configuration: ${old} is ${name}'s old name, set to another value; set ${name} alone.`);
  }
  for (const [key, spec] of Object.entries(SETTINGS)) {
    const old = renamedFrom[spec.env];
    // A mistake is named under the variable that was set, the old name when only it was.
    const variable = env[spec.env] === undefined && old !== undefined ? old : spec.env;
    const raw = env[variable];
    if (raw === undefined) continue;
    if (raw === '') {
      problems.push(`Invalid configuration: ${variable} must not be empty; unset it to take the default.`);
      continue;
    }
    const result = spec.parse.safeParse(raw);
    if (result.success) parsed[key as keyof Settings] = result.data;
    // Each entry of a list that is wrong, FORWARD_HEADERS' say, is a line of its own.
    else problems.push(...new Set(result.error.issues.map((issue) => `Invalid configuration: ${variable} ${issue.message}.`)));
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return settingsWith(parsed as Partial<Settings>);
}

/** What stands for a secret, or for the user and password of a URL, wherever a setting is shown. */
const HIDDEN = '[redacted]';

/**
 * Every setting as the gateway would run with it, one `VARIABLE=value` line each in the table's
 * order: the variable's text as set, or its default followed by `(default)`. A default is shown as
 * the text that would set it (`4000`, `*`), or as `unset` where no text would (none at all, an
 * empty list, NODE_ENV's development). What `--check-config` prints. A secret (`isSecret`) is
 * never shown, nor the user and password of a URL (REDIS_URL's, an OTLP endpoint's).
 */
export function shownSettings(settings: Settings, env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(SETTINGS).map(([key, spec]) => {
    const raw = env[spec.env];
    if (raw !== undefined) return `${spec.env}=${isSecret(spec.parse) ? HIDDEN : withoutCredentials(raw)}`;
    const value = settings[key as keyof Settings] as unknown;
    const text = Array.isArray(value) ? value.join(',') : String(value);
    const read = value === undefined || text === '' ? undefined : (spec.parse as z.ZodType).safeParse(text);
    return `${spec.env}=${read?.success && isDeepStrictEqual(read.data, value) ? text : 'unset'} (default)`;
  });
}

/** Text as written, but for the user and password of a URL in it, replaced by HIDDEN. */
function withoutCredentials(text: string): string {
  const url = /^[a-z][a-z\d+.-]*:\/\//i.test(text) && URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.username === '' && url.password === '')) return text;
  url.username = '';
  url.password = '';
  return url.href.replace('//', `//${HIDDEN}@`);
}

/** A warning for each retired variable (RETIRED_VARIABLES) that is still set. */
export function retiredVariableWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(RETIRED_VARIABLES)
    .filter(([variable]) => env[variable] !== undefined)
    .map(([, warning]) => warning);
}
