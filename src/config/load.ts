import { ConfigError, RETIRED_VARIABLES, SETTINGS, type Settings, settingsWith } from './settings.js';

/** The names of every environment variable the gateway reads. */
export const ENVIRONMENT_VARIABLES: readonly string[] = Object.values(SETTINGS).map((spec) => spec.env);

/**
 * Reads every setting from the environment. An unset variable takes its default; a set one must
 * parse, and an empty one is an error too (an empty ConfigMap value is a mistake, not "unset").
 * The first bad value throws a ConfigError naming the variable, and so does a combination that
 * SETTING_RULES refuses.
 */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const parsed: Partial<Record<keyof Settings, unknown>> = {};
  for (const [key, spec] of Object.entries(SETTINGS)) {
    const raw = env[spec.env];
    if (raw === undefined) continue;
    if (raw === '') throw new ConfigError(`Invalid configuration: ${spec.env} must not be empty; unset it to take the default.`);
    const result = spec.parse.safeParse(raw);
    if (!result.success) throw new ConfigError(`Invalid configuration: ${spec.env} ${result.error.issues[0]?.message}.`);
    parsed[key as keyof Settings] = result.data;
  }
  return settingsWith(parsed as Partial<Settings>);
}

/** A warning for each retired variable (RETIRED_VARIABLES) that is still set. */
export function retiredVariableWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(RETIRED_VARIABLES)
    .filter(([variable]) => env[variable] !== undefined)
    .map(([, warning]) => warning);
}
