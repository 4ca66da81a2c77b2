import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { transformSync } from 'esbuild';
import { describe, expect, it, vi } from 'vitest';
import { bundleCheckoutSdk, bundleModuleSource, SDK_BUNDLE_MODULE } from '../../scripts/bundle-checkout-sdk.js';
import { CHECKOUT_SDK_ETAG, checkoutSdkSource } from './sdk.js';

interface CheckoutResult {
  url: string;
  target: string;
}
interface PaygateInstance {
  mode: string;
  baseUrl: string;
  checkout(opts: unknown): Promise<CheckoutResult>;
}
type PaygateFactory = (options?: unknown) => PaygateInstance;

interface Env {
  Paygate: PaygateFactory;
  assign: ReturnType<typeof vi.fn>;
  open: ReturnType<typeof vi.fn>;
  warn: ReturnType<typeof vi.fn>;
}

/** Evaluates the SDK in a fresh realm with a fake browser window. */
function load(opts: { scriptSrc?: string | null; popup?: object | null } = {}): Env {
  const assign = vi.fn();
  const warn = vi.fn();
  const popup = opts.popup === undefined ? { opener: {} } : opts.popup;
  const open = vi.fn(() => popup);
  const scriptSrc = opts.scriptSrc === undefined ? 'https://sandbox.paygate.test/sdk/checkout.js?v=1' : opts.scriptSrc;
  const window: Record<string, unknown> = {
    URL,
    console: { warn },
    open,
    location: { href: 'https://shop.example/cart', assign },
    document: { currentScript: scriptSrc === null ? null : { src: scriptSrc } },
  };
  const context = vm.createContext({ window });
  vm.runInContext(checkoutSdkSource(), context, { filename: 'checkout.js' });
  expect(typeof window.Paygate).toBe('function');
  return { Paygate: window.Paygate as PaygateFactory, assign, open, warn };
}

const SID = 'session_' + 'abcDEF123-_'.repeat(3) + 'abcdefghij';

describe('checkout SDK', () => {
  it('navigates to {script origin}/checkout/{paymentSessionId}', async () => {
    const env = load();
    const paygate = env.Paygate({ mode: 'sandbox' });
    expect(paygate.baseUrl).toBe('https://sandbox.paygate.test');
    const result = await paygate.checkout({ paymentSessionId: SID });
    const url = `https://sandbox.paygate.test/checkout/${SID}`;
    expect(env.assign).toHaveBeenCalledExactlyOnceWith(url);
    expect(result).toEqual({ url, target: '_self' });
    expect(env.warn).not.toHaveBeenCalled();
  });

  it('accepts the deprecated sessionId alias and warns once', async () => {
    const env = load();
    const paygate = env.Paygate({ mode: 'production' });
    await paygate.checkout({ sessionId: SID });
    await paygate.checkout({ sessionId: SID, paymentSessionId: SID });
    await env.Paygate({ mode: 'production' }).checkout({ sessionId: 'session_other' });
    expect(env.assign.mock.calls).toEqual([
      [`https://sandbox.paygate.test/checkout/${SID}`],
      [`https://sandbox.paygate.test/checkout/${SID}`],
      ['https://sandbox.paygate.test/checkout/session_other'],
    ]);
    expect(env.warn).toHaveBeenCalledOnce();
    expect(env.warn.mock.calls[0]![0]).toMatch(/sessionId.*deprecated.*paymentSessionId/);
  });

  it('throws when paymentSessionId and sessionId differ', () => {
    const env = load();
    const paygate = env.Paygate({ mode: 'sandbox' });
    expect(() => paygate.checkout({ paymentSessionId: SID, sessionId: 'session_other' })).toThrow(
      /Paygate: paymentSessionId and sessionId .* differ/,
    );
    expect(env.assign).not.toHaveBeenCalled();
  });

  it('throws when no session id is given or it is not a non-empty string', () => {
    const env = load();
    const paygate = env.Paygate({ mode: 'sandbox' });
    expect(() => paygate.checkout({})).toThrow(/requires paymentSessionId/);
    expect(() => paygate.checkout({ paymentSessionId: null })).toThrow(/requires paymentSessionId/);
    expect(() => paygate.checkout(undefined)).toThrow(/requires an options object/);
    expect(() => paygate.checkout({ paymentSessionId: '' })).toThrow(/non-empty string/);
    expect(() => paygate.checkout({ paymentSessionId: 42 })).toThrow(/non-empty string/);
    expect(env.assign).not.toHaveBeenCalled();
  });

  it('throws a clear error for a bad or missing mode', () => {
    const env = load();
    expect(() => env.Paygate({ mode: 'live' })).toThrow(/options\.mode must be 'sandbox' or 'production', got "live"/);
    expect(() => env.Paygate({})).toThrow(/options\.mode must be 'sandbox' or 'production'/);
    expect(() => env.Paygate()).toThrow(/requires an options object/);
    try {
      env.Paygate({ mode: 'SANDBOX' });
      expect.unreachable();
    } catch (e) {
      expect((e as Error).name).toBe('PaygateError');
    }
  });

  it('works with new, honours baseUrl (trailing slash trimmed) and encodes the id', async () => {
    const env = load();
    const paygate = new (env.Paygate as unknown as new (o: unknown) => PaygateInstance)({
      mode: 'sandbox',
      baseUrl: 'http://localhost:8080/gw/',
    });
    await paygate.checkout({ paymentSessionId: 'a/b?c#d' });
    expect(env.assign).toHaveBeenCalledWith('http://localhost:8080/gw/checkout/a%2Fb%3Fc%23d');
    expect(() => env.Paygate({ mode: 'sandbox', baseUrl: 'javascript:alert(1)' })).toThrow(/absolute http\(s\) URL/);
    expect(() => env.Paygate({ mode: 'sandbox', baseUrl: 5 })).toThrow(/baseUrl/);
  });

  it('requires baseUrl when the script origin is unknown', async () => {
    const env = load({ scriptSrc: null });
    expect(() => env.Paygate({ mode: 'sandbox' })).toThrow(/pass options\.baseUrl/);
    await env.Paygate({ mode: 'sandbox', baseUrl: 'https://gw.example' }).checkout({ paymentSessionId: SID });
    expect(env.assign).toHaveBeenCalledWith(`https://gw.example/checkout/${SID}`);
  });

  it("redirectTarget '_blank' opens a window without opener; a blocked popup rejects; others throw", async () => {
    const popup = { opener: {} as unknown };
    const env = load({ popup });
    const paygate = env.Paygate({ mode: 'sandbox' });
    const result = await paygate.checkout({ paymentSessionId: SID, redirectTarget: '_blank' });
    expect(env.open).toHaveBeenCalledWith(`https://sandbox.paygate.test/checkout/${SID}`, '_blank');
    expect(popup.opener).toBeNull();
    expect(result.target).toBe('_blank');
    expect(env.assign).not.toHaveBeenCalled();
    expect(() => paygate.checkout({ paymentSessionId: SID, redirectTarget: '_top' })).toThrow(/redirectTarget/);

    const blocked = load({ popup: null }).Paygate({ mode: 'sandbox' });
    await expect(blocked.checkout({ paymentSessionId: SID, redirectTarget: '_blank' })).rejects.toThrow(/blocked/);
  });

  it('is a no-op outside a browser', () => {
    expect(() => vm.runInContext(checkoutSdkSource(), vm.createContext({}))).not.toThrow();
  });

  it('uses only ES2017 syntax (esbuild lowers nothing at target es2017)', () => {
    const src = checkoutSdkSource();
    const at2017 = transformSync(src, { loader: 'js', target: 'es2017' }).code;
    const atNext = transformSync(src, { loader: 'js', target: 'esnext' }).code;
    expect(at2017).toBe(atNext);
  });

  it('serves exactly what its TypeScript source bundles to (the committed bundle is not stale)', () => {
    expect(bundleModuleSource(bundleCheckoutSdk())).toBe(readFileSync(SDK_BUNDLE_MODULE, 'utf8'));
    expect(checkoutSdkSource()).toBe(bundleCheckoutSdk());
  });

  it('exports a sha256 ETag of the source', () => {
    const digest = createHash('sha256').update(checkoutSdkSource()).digest('base64url');
    expect(CHECKOUT_SDK_ETAG).toBe(`"sha256-${digest}"`);
    expect(checkoutSdkSource()).toBe(checkoutSdkSource());
  });
});
