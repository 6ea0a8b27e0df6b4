/** A `Vary` value that names `header`: as it is when it names it already, in any case or place, else with it added. */
export function varyingOn(vary: string | null | undefined, header: string): string {
  if (vary === null || vary === undefined) return header;
  const named = vary.split(',').some((name) => name.trim().toLowerCase() === header.toLowerCase());
  return named ? vary : `${vary}, ${header}`;
}
