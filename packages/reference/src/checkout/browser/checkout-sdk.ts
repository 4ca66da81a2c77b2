/**
 * The browser checkout SDK served at GET /sdk/checkout.js: a plain browser program (no imports, no framework),
 * type-checked here against the DOM library only (tsconfig.json beside it) and bundled to ES2017 by
 * `npm run build:sdk` into ../generated/checkout-sdk.gen.ts, which the gateway serves. Usage on a merchant page:
 *
 *   const paygate = Paygate({ mode: 'sandbox' });             // `new Paygate(...)` works too
 *   await paygate.checkout({ paymentSessionId: 'session_…' }); // navigates to {baseUrl}/checkout/{id}
 *
 * - `options.mode` must be 'sandbox' or 'production' (Error otherwise).
 * - `options.baseUrl` defaults to the origin the script was loaded from (document.currentScript.src, captured at
 *   load time); if neither is available, Paygate() throws.
 * - `checkout(opts)`: `paymentSessionId` is documented; `sessionId` is a deprecated alias (console.warn once per
 *   page); both given and different, or neither given, throws synchronously. `redirectTarget` is '_self' (default)
 *   or '_blank'. Returns a Promise resolved with `{ url, target }` once navigation has started (rejected if a popup
 *   was blocked).
 */

type Mode = 'sandbox' | 'production';
type RedirectTarget = '_self' | '_blank';

export interface PaygateOptions {
  mode: Mode;
  baseUrl?: string;
}

export interface CheckoutOptions {
  paymentSessionId?: string;
  /** @deprecated use paymentSessionId */
  sessionId?: string;
  redirectTarget?: RedirectTarget;
}

export interface CheckoutStarted {
  url: string;
  target: RedirectTarget;
}

export interface PaygateInstance {
  mode: Mode;
  baseUrl: string;
  checkout(opts: CheckoutOptions): Promise<CheckoutStarted>;
}

declare global {
  interface Window {
    Paygate?: (options: PaygateOptions) => PaygateInstance;
  }
}

const MODES: readonly string[] = ['sandbox', 'production'];
const TARGETS: readonly string[] = ['_self', '_blank'];

function paygateError(message: string): Error {
  const e = new Error(`Paygate: ${message}`);
  e.name = 'PaygateError';
  return e;
}

function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** The page's window (its globals included: URL, console). */
type BrowserWindow = Window & typeof globalThis;

function install(w: BrowserWindow): void {
  let warnedAlias = false;

  function originOf(url: string): string | null {
    try {
      const base = w.location && w.location.href ? w.location.href : undefined;
      const u = base === undefined ? new w.URL(url) : new w.URL(url, base);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
      return u.origin;
    } catch {
      return null;
    }
  }

  // document.currentScript is only set while this script is being evaluated, so capture it now.
  const script = w.document && (w.document.currentScript as HTMLScriptElement | null);
  const scriptOrigin = script && script.src ? originOf(script.src) : null;

  function normalizeBaseUrl(baseUrl: unknown): string {
    if (typeof baseUrl !== 'string' || baseUrl === '') throw paygateError('options.baseUrl must be a non-empty string');
    const origin = originOf(baseUrl);
    if (origin === null) throw paygateError(`options.baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
    return baseUrl.replace(/\/+$/, '');
  }

  function resolveSessionId(opts: CheckoutOptions): string {
    const documented = opts.paymentSessionId;
    const alias = opts.sessionId;
    if (isSet(alias) && !warnedAlias) {
      warnedAlias = true;
      if (w.console && typeof w.console.warn === 'function') {
        w.console.warn('Paygate: checkout({ sessionId }) is deprecated; use checkout({ paymentSessionId }) instead.');
      }
    }
    if (isSet(documented) && isSet(alias) && documented !== alias) {
      throw paygateError('paymentSessionId and sessionId (deprecated alias) were both given and differ');
    }
    const id: unknown = isSet(documented) ? documented : alias;
    if (!isSet(id)) throw paygateError('checkout() requires paymentSessionId');
    if (typeof id !== 'string' || id === '') throw paygateError('paymentSessionId must be a non-empty string');
    return id;
  }

  function Paygate(options: PaygateOptions): PaygateInstance {
    if (options === null || typeof options !== 'object') {
      throw paygateError("Paygate(options) requires an options object, e.g. Paygate({ mode: 'sandbox' })");
    }
    if (MODES.indexOf(options.mode) === -1) {
      throw paygateError(`options.mode must be 'sandbox' or 'production', got ${JSON.stringify(options.mode)}`);
    }
    const mode = options.mode;
    let baseUrl: string;
    if (isSet(options.baseUrl)) {
      baseUrl = normalizeBaseUrl(options.baseUrl);
    } else if (scriptOrigin !== null) {
      baseUrl = scriptOrigin;
    } else {
      throw paygateError('cannot determine the gateway origin from document.currentScript; pass options.baseUrl');
    }

    function checkout(opts: CheckoutOptions): Promise<CheckoutStarted> {
      if (opts === null || typeof opts !== 'object') {
        throw paygateError('checkout(opts) requires an options object with paymentSessionId');
      }
      const id = resolveSessionId(opts);
      const target = isSet(opts.redirectTarget) ? opts.redirectTarget : '_self';
      if (TARGETS.indexOf(target) === -1) {
        throw paygateError(`redirectTarget must be '_self' or '_blank', got ${JSON.stringify(target)}`);
      }
      const url = `${baseUrl}/checkout/${encodeURIComponent(id)}`;
      return new Promise((resolve, reject) => {
        if (target === '_blank') {
          const popup = w.open(url, '_blank');
          if (!popup) {
            reject(paygateError('the checkout window was blocked by the browser; call checkout() from a click handler'));
            return;
          }
          try {
            popup.opener = null;
          } catch {
            /* a cross-origin window may refuse it; the URL is ours anyway */
          }
        } else {
          w.location.assign(url);
        }
        resolve({ url, target });
      });
    }

    return { mode, baseUrl, checkout };
  }

  w.Paygate = Paygate;
}

if (typeof window !== 'undefined') install(window);
