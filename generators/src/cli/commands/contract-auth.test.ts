import { describe, expect, it } from 'vitest';
import { UsageError } from '../command.js';
import { authEnvName, authFromFlags } from './contract.js';

const DOC = {
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer' },
      basic: { type: 'http', scheme: 'Basic' },
      'api-key': { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
    },
  },
};

describe('paygate contract --spec credentials: per security scheme, from --auth or PAYGATE_AUTH_<SCHEME>', () => {
  it.each([
    ['a bearer token from a flag', ['bearerAuth=t1'], {}, { bearerAuth: 't1' }],
    [
      'HTTP basic as USER:PASSWORD (the password may contain colons)',
      ['basic=ada:p:w'],
      {},
      { basic: { username: 'ada', password: 'p:w' } },
    ],
    [
      'from the environment (kept out of the process list)',
      [],
      { PAYGATE_AUTH_API_KEY: 'k1', PAYGATE_AUTH_BEARERAUTH: 't2' },
      { 'api-key': 'k1', bearerAuth: 't2' },
    ],
    ['a flag wins over the environment', ['bearerAuth=flag'], { PAYGATE_AUTH_BEARERAUTH: 'env' }, { bearerAuth: 'flag' }],
  ] as const)('%s', async (_name, flags, env, expected) => {
    expect(await authFromFlags(DOC, flags, env)).toEqual(expected);
  });

  it.each([
    ['an undeclared scheme', ['bearer=t'], /declares no security scheme "bearer" \(it declares bearerAuth, basic, api-key\)/],
    ['no value', ['bearerAuth'], /--auth takes SCHEME=VALUE/],
    ['basic without a colon', ['basic=ada'], /give basic=USER:PASSWORD/],
  ] as const)('refuses %s with a usage error', async (_name, flags, message) => {
    await expect(authFromFlags(DOC, flags, {})).rejects.toThrow(UsageError);
    await expect(authFromFlags(DOC, flags, {})).rejects.toThrow(message);
  });

  it('names the variable after the scheme', () => {
    expect(authEnvName('oauth2.client-creds')).toBe('PAYGATE_AUTH_OAUTH2_CLIENT_CREDS');
  });
});
