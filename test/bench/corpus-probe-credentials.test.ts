import { describe, expect, it } from 'vitest';
import { accepts, credentialsFor, GOOD, withQueryCredentials } from '../../bench/corpus/probe-credentials.js';

describe('withQueryCredentials', () => {
  const key: [string, string][] = [['apikey', GOOD]];
  it.each([
    ['no query yet', 'http://h/live', key, undefined, `http://h/live?apikey=${GOOD}`],
    ['beside other parameters', 'http://h/live?base=USD&target=EUR', key, undefined, `http://h/live?base=USD&target=EUR&apikey=${GOOD}`],
    // CurrencyTick declares `apikey` as a query parameter too: its sample is replaced, the key is sent once
    [
      'replacing the sample of a declared parameter of the same name',
      'http://h/live?apikey=YOUR_API_KEY&base=USD',
      key,
      undefined,
      `http://h/live?base=USD&apikey=${GOOD}`,
    ],
    ['the field the invalid request broke kept', 'http://h/live?apikey=x%20y', key, 'apikey', 'http://h/live?apikey=x%20y'],
    ['other terms left byte for byte', 'http://h/q?a=%7Bb%7D&c', [['k', 'v w']], undefined, 'http://h/q?a=%7Bb%7D&c&k=v+w'],
    [
      'several keys of one alternative',
      'http://h/q',
      [
        ['api_key', 'a'],
        ['api_secret', 'b'],
      ],
      undefined,
      'http://h/q?api_key=a&api_secret=b',
    ],
  ] as const)('%s', (_name, url, query, broken, expected) => {
    expect(withQueryCredentials(url, query, broken)).toBe(expected);
  });
});

describe('credentialsFor', () => {
  it('puts each scheme of the first usable alternative where it says', () => {
    const schemes = {
      q: { type: 'apiKey', in: 'query', name: 'key' },
      h: { type: 'apiKey', in: 'header', name: 'X-Key' },
      b: { type: 'http', scheme: 'bearer' },
    };
    expect(credentialsFor({ security: [['missing'], ['q', 'h']] }, schemes)).toEqual({
      headers: { 'x-key': GOOD },
      query: [['key', GOOD]],
    });
    expect(credentialsFor({ security: [['b']] }, schemes)).toEqual({ headers: { authorization: `bearer ${GOOD}` }, query: [] });
  });
});

describe('an API key in the header an HTTP scheme of the same requirement writes (Conjur, Azure Container Registry)', () => {
  const basic = `Basic ${Buffer.from(`probe:${GOOD}`).toString('base64')}`;
  it.each([
    ['basic first', ['basic', 'token']],
    ['the API key first', ['token', 'basic']],
  ])("%s: one Authorization value, the HTTP scheme's, and both authenticators accept it", (_name, alternative) => {
    const schemes = { basic: { type: 'http', scheme: 'basic' }, token: { type: 'apiKey', in: 'header', name: 'Authorization' } };
    const { headers } = credentialsFor({ security: [alternative] }, schemes);
    expect(headers).toEqual({ authorization: basic });
    // the API key's authenticator is handed the header; basic's, the decoded password
    expect(accepts(headers['authorization'])).toBe(true);
    expect(accepts({ username: 'probe', password: GOOD })).toBe(true);
  });

  it.each([
    ['another token', 'other', false],
    ['a bearer token', `Bearer ${GOOD}`, true],
    ['no credential', undefined, false],
  ])('accepts %s: %s', (_name, credential, expected) => {
    expect(accepts(credential)).toBe(expected);
  });
});
