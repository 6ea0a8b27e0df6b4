// Given to a gateway started by a test with `--import`: appends the URL of every module the process
// loads, imported or required, to the file LOADED_MODULES_FILE names, one per line.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.LOADED_MODULES_FILE;
if (!file) throw new Error('test/support/loaded-modules.ts needs LOADED_MODULES_FILE');
registerHooks({
  load(url, context, next) {
    appendFileSync(file, `${url}\n`);
    return next(url, context);
  },
});
