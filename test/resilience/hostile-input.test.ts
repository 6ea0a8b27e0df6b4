import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { envelope } from '../support/recording-upstream.js';
import { CERTIFICATE, identityProviderRecord, userRecord } from '../support/records.js';

/**
 * What a hostile caller sends on purpose: ids no URL can hold, certificates wrapped in something
 * else, typos to map a production schema, introspection multiplied. Each is refused before
 * anything goes upstream, with a documented code, and nothing the caller sent is echoed back.
 */
const it = gatewayOverUpstream(() => ({ body: envelope(userRecord({ id: 'u_1', name: 'N', role: 'admin' })) }), {
  production: true,
});

const UPDATE_USER = 'mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { id } } }';
const CREATE_IDP = 'mutation ($input: CreateIdentityProviderInput!) { createIdentityProvider(input: $input) { identityProvider { id } } }';

describe('ids', () => {
  it.for<[string, string]>([
    ['a lone surrogate', 'u_\uD800'],
    ['a lone low surrogate', '\uDC00'],
    ['200,000 characters', 'u'.repeat(200_000)],
  ])('with %s are BAD_USER_INPUT, and nothing goes upstream', async ([, id], { gateway, upstream }) => {
    const answer = await gateway.graphql(UPDATE_USER, { variables: { input: { id, name: 'N' } }, headers: AUTH });
    expect(answer.body).toEqual({
      data: { updateUser: null },
      errors: [
        {
          message: 'The input is invalid: see extensions.issues.',
          locations: [{ line: 1, column: 39 }],
          path: ['updateUser'],
          extensions: {
            code: 'BAD_USER_INPUT',
            issues: [
              {
                path: 'input.id',
                message:
                  'must be a non-empty id of at most 256 characters, without "/", "?", "#", control characters or unpaired surrogates, and not "." or ".."',
              },
            ],
          },
        },
      ],
    });
    expect(upstream.requests).toEqual([]);
  });

  it('of 256 characters, with a pair of surrogates, are sent', async ({ gateway, upstream }) => {
    const id = `${'u'.repeat(254)}😀`;
    upstream.answer(() => ({ body: envelope(userRecord({ id, name: 'N', role: 'admin' })) }));
    const answer = await gateway.graphql(UPDATE_USER, { variables: { input: { id, name: 'N' } }, headers: AUTH });
    expect(answer.body).toEqual({ data: { updateUser: { user: { id } } } });
    expect(upstream.requests.map((request) => decodeURIComponent(request.path))).toEqual([`/v2/users/${id}`]);
  });
});

describe('certificates', () => {
  const input = (certificate: string) => ({
    name: 'IdP',
    company: 'OKTA',
    type: 'SAML2',
    certificate,
    entityId: 'urn:e',
    signinUrl: 'https://idp.example/sso',
  });
  const KEY = '-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEA\n-----END PRIVATE KEY-----\n';

  it.for<[string, string]>([
    ['a <script> tag around it', `<script>alert(1)</script>\n${CERTIFICATE}`],
    ['a private key after it', `${CERTIFICATE}${KEY}`],
    ['900 KB of padding', `${CERTIFICATE}${' '.repeat(900_000)}x`],
    ['two certificates', `${CERTIFICATE}${CERTIFICATE}`],
    ['no certificate at all', 'MIIDFTCCAf2gAwIBAgIU'],
  ])('with %s are BAD_USER_INPUT naming the field, never echoed', async ([, certificate], { gateway, upstream }) => {
    const answer = await gateway.graphql(CREATE_IDP, { variables: { input: input(certificate) }, headers: AUTH });
    expect(answer.body.errors).toEqual([
      {
        message: 'The input is invalid: see extensions.issues.',
        locations: [{ line: 1, column: 51 }],
        path: ['createIdentityProvider'],
        extensions: {
          code: 'BAD_USER_INPUT',
          issues: [
            { path: 'input.certificate', message: 'must be exactly one PEM-encoded X.509 certificate block, at most 16384 characters' },
          ],
        },
      },
    ]);
    expect(JSON.stringify(answer.body)).not.toMatch(/script|PRIVATE|MIID/);
    expect(upstream.requests).toEqual([]);
  });

  it('with exactly one certificate block is sent as given', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope(identityProviderRecord({ id: 'idp_1', certificate: CERTIFICATE })) }));
    const answer = await gateway.graphql(CREATE_IDP, { variables: { input: input(CERTIFICATE) }, headers: AUTH });
    expect(answer.body).toEqual({ data: { createIdentityProvider: { identityProvider: { id: 'idp_1' } } } });
    expect((upstream.requests[0]!.body as { certificate: string }).certificate).toBe(CERTIFICATE);
  });
});

describe('suggestions in production', () => {
  it('are hidden for enum values written in the document', async ({ gateway }) => {
    const answer = await gateway.graphql('mutation { updateUser(input: { id: "u_1", role: ADMN }) { user { id } } }', { headers: AUTH });
    expect(answer.body.errors?.map((error) => error.message)).toEqual([
      'Value "ADMN" does not exist in "UserRole" enum. [Suggestion hidden]',
    ]);
  });

  it('are hidden for enum values sent in variables', async ({ gateway }) => {
    const answer = await gateway.graphql(UPDATE_USER, { variables: { input: { id: 'u_1', role: 'ADMN' } }, headers: AUTH });
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.map((error) => error.message)).toEqual([
      'Variable "$role" got invalid value "ADMN"; Expected type UserRole.',
    ]);
  });

  it('are hidden for fields, arguments and types', async ({ gateway }) => {
    const answer = await gateway.graphql('{ apiKey { id } apiKeys(frist: 1) { nodes { id } } ... on Querry { __typename } }', {
      headers: AUTH,
    });
    expect(answer.body.errors?.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(answer.body)).not.toContain('Did you mean');
  });
});
