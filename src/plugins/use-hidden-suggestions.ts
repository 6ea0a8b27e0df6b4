import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/** graphql-js' hints: "Did you mean "name"?", "Did you mean the enum value "ADMIN"?", and the like. */
const SUGGESTION = /\s*Did you mean .+\?$/s;
const HIDDEN = ' [Suggestion hidden]';

/**
 * Hides every "Did you mean ...?" graphql-js adds to an error, of fields, arguments, types and
 * enum values, in validation and in variable coercion alike, so that a stranger cannot map the
 * schema by typos (FIELD_SUGGESTIONS=false). The errors were made for this request alone, so they
 * are amended in place.
 */
export function useHiddenSuggestions(): Plugin {
  return {
    onResultProcess({ result }) {
      if (isAsyncIterable(result)) return;
      for (const one of Array.isArray(result) ? result : [result]) {
        for (const error of one.errors ?? []) {
          if (SUGGESTION.test(error.message)) (error as { message: string }).message = error.message.replace(SUGGESTION, HIDDEN);
        }
      }
    },
  };
}
