import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { gatewayOverSandbox } from '../support/fixtures.js';

/**
 * The README's tour, run as written: each `curl` of a `sh` block is sent to the gateway in front of
 * the sandbox, in order, and must answer exactly the `json` block that follows it.
 */
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const examples = [...readme.matchAll(/```sh\n(curl [^`]*?)```\n+```json\n([^`]*?)```/g)].map(([, command, answer]) => ({
  // Inside single quotes the shell passes every character as it stands.
  body: /-d '([^']*)'/.exec(command!)![1]!,
  authorization: /-H 'authorization: ([^']*)'/.exec(command!)![1]!,
  answer: JSON.parse(answer!) as unknown,
}));

// With what `./run start` shows outside production: every answer tells what it cost.
const it = gatewayOverSandbox({ costShown: 'always' });

it('has a query, a mutation and a refused input to show', () => {
  expect(examples.map((example) => JSON.parse(example.body).query.split(/[ {(]/)[0])).toEqual(['', 'mutation', 'mutation']);
});

it('answers every curl of the tour exactly as the README shows', async ({ gateway }) => {
  for (const { body, authorization, answer } of examples) {
    const response = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body });
    expect(await response.json(), body).toEqual(answer);
  }
});
