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

describe('paygate contract --spec: credential sets, filters and --dry-run (D273, D274)', () => {
  const SHELF = 'test/fixtures/shelf/openapi.yaml';
  const ROOT = new URL('../../../../', import.meta.url).pathname;
  const cli = async (args: string[]) => {
    const { runCli } = await import('../main.js');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['contract', '--spec', SHELF, '--base-url', 'http://127.0.0.1:9', ...args], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      cwd: ROOT,
    });
    return { code, out: out.join(''), err: err.join('') };
  };

  it('--dry-run prints the plan and sends nothing (the base URL is not even reachable)', async () => {
    const { code, out } = await cli([
      '--auth',
      'reader:bearerAuth=t1',
      '--auth',
      'writer:bearerAuth=t2',
      '--use',
      'writer=tag:books',
      '--exclude',
      'op:getHealth',
      '--dry-run',
    ]);
    expect(code).toBe(0);
    expect(out).toMatch(/dry run: nothing is sent/);
    expect(out).toMatch(/createItem\s+POST \/items\s+as writer/);
    expect(out).toMatch(/getItem\s+GET \/items\/\{item_id\}\s+as writer\s+\(item_id <- (listItems \| )?createItem\)/);
    expect(out).not.toMatch(/getHealth/);
    expect(out).toMatch(/paygate-contract\.invalid/);
  });

  it.each([
    ['a rule for a set with no credentials', ['--use', 'admin=tag:books'], /credential set "admin" is named but has no credentials/],
    ['an unknown check', ['--checks', 'positive,telepathy'], /--checks takes .*unknown: telepathy/],
    ['a bad time bound', ['--max-time', 'soon'], /--max-time takes a number of seconds/],
  ] as const)('refuses %s (exit 2)', async (_name, args, message) => {
    const { code, err } = await cli([...args, '--dry-run']);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });
});
