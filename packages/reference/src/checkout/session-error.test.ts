import { describe, expect, it } from 'vitest';
import { renderSessionErrorPage, SESSION_ERROR_PAGE_CSP, sessionProblemOf } from './session-error.js';

describe('session error page', () => {
  it.each([
    ['has expired; create a new order', 'expired', 'This payment link has expired'],
    ['has already been used', 'used', 'This payment link has already been used'],
    ['is invalid', 'invalid', 'This payment link is not valid'],
    ['is malformed', 'invalid', 'This payment link is not valid'],
    [undefined, 'invalid', 'This payment link is not valid'],
  ] as const)('reason %j -> %s: "%s"', (reason, problem, heading) => {
    expect(sessionProblemOf(reason)).toBe(problem);
    const html = renderSessionErrorPage(problem);
    expect(html).toContain(`<title>${heading}</title>`);
    expect(html).toContain(`data-status="session_${problem}">${heading}</h1>`);
    expect(html).not.toContain('ERR_AUTH_000');
    expect(html).not.toContain('<script');
  });

  it('is served under a CSP without script or form', () => {
    expect(SESSION_ERROR_PAGE_CSP).toContain("script-src 'none'");
    expect(SESSION_ERROR_PAGE_CSP).toContain("form-action 'none'");
  });
});
