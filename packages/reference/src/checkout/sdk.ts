import { createHash } from 'node:crypto';

/**
 * The browser checkout SDK served at GET /sdk/checkout.js (application/javascript).
 *
 * Kept as a plain-JavaScript string (ES2017, no dependencies, no build step) so `tsc` output and the tsx/vitest
 * runtime serve byte-identical source. Usage:
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
const SOURCE = `/*! Paygate checkout SDK */
(function () {
  'use strict';
  if (typeof window === 'undefined') return;
  var w = window;
  var MODES = ['sandbox', 'production'];
  var TARGETS = ['_self', '_blank'];
  var warnedAlias = false;

  function PaygateError(message) {
    var e = new Error('Paygate: ' + message);
    e.name = 'PaygateError';
    return e;
  }

  function originOf(url) {
    try {
      var base = w.location && w.location.href ? w.location.href : undefined;
      var u = base === undefined ? new w.URL(url) : new w.URL(url, base);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
      return u.origin;
    } catch (e) {
      return null;
    }
  }

  // document.currentScript is only set while this script is being evaluated, so capture it now.
  var script = w.document && w.document.currentScript;
  var scriptOrigin = script && script.src ? originOf(script.src) : null;

  function normalizeBaseUrl(baseUrl) {
    if (typeof baseUrl !== 'string' || baseUrl === '') throw PaygateError('options.baseUrl must be a non-empty string');
    var origin = originOf(baseUrl);
    if (origin === null) throw PaygateError('options.baseUrl must be an absolute http(s) URL, got ' + JSON.stringify(baseUrl));
    return baseUrl.replace(/\\/+$/, '');
  }

  function isSet(value) {
    return value !== undefined && value !== null;
  }

  function resolveSessionId(opts) {
    var documented = opts.paymentSessionId;
    var alias = opts.sessionId;
    if (isSet(alias) && !warnedAlias) {
      warnedAlias = true;
      if (w.console && typeof w.console.warn === 'function') {
        w.console.warn('Paygate: checkout({ sessionId }) is deprecated; use checkout({ paymentSessionId }) instead.');
      }
    }
    if (isSet(documented) && isSet(alias) && documented !== alias) {
      throw PaygateError('paymentSessionId and sessionId (deprecated alias) were both given and differ');
    }
    var id = isSet(documented) ? documented : alias;
    if (!isSet(id)) throw PaygateError('checkout() requires paymentSessionId');
    if (typeof id !== 'string' || id === '') throw PaygateError('paymentSessionId must be a non-empty string');
    return id;
  }

  function Paygate(options) {
    if (options === null || typeof options !== 'object') {
      throw PaygateError("Paygate(options) requires an options object, e.g. Paygate({ mode: 'sandbox' })");
    }
    if (MODES.indexOf(options.mode) === -1) {
      throw PaygateError("options.mode must be 'sandbox' or 'production', got " + JSON.stringify(options.mode));
    }
    var mode = options.mode;
    var baseUrl;
    if (isSet(options.baseUrl)) {
      baseUrl = normalizeBaseUrl(options.baseUrl);
    } else if (scriptOrigin !== null) {
      baseUrl = scriptOrigin;
    } else {
      throw PaygateError('cannot determine the gateway origin from document.currentScript; pass options.baseUrl');
    }

    function checkout(opts) {
      if (opts === null || typeof opts !== 'object') {
        throw PaygateError('checkout(opts) requires an options object with paymentSessionId');
      }
      var id = resolveSessionId(opts);
      var target = isSet(opts.redirectTarget) ? opts.redirectTarget : '_self';
      if (TARGETS.indexOf(target) === -1) {
        throw PaygateError("redirectTarget must be '_self' or '_blank', got " + JSON.stringify(target));
      }
      var url = baseUrl + '/checkout/' + encodeURIComponent(id);
      return new Promise(function (resolve, reject) {
        if (target === '_blank') {
          var popup = w.open(url, '_blank');
          if (!popup) {
            reject(PaygateError('the checkout window was blocked by the browser; call checkout() from a click handler'));
            return;
          }
          try { popup.opener = null; } catch (e) { /* ignore */ }
        } else {
          w.location.assign(url);
        }
        resolve({ url: url, target: target });
      });
    }

    return { mode: mode, baseUrl: baseUrl, checkout: checkout };
  }

  w.Paygate = Paygate;
})();
`;

/** The SDK source (what GET /sdk/checkout.js serves, `Content-Type: application/javascript; charset=utf-8`). */
export function checkoutSdkSource(): string {
  return SOURCE;
}

/** Strong ETag (quoted, ready for the `ETag` header): `"sha256-<base64url of sha256(source)>"`. */
export const CHECKOUT_SDK_ETAG = `"sha256-${createHash('sha256').update(SOURCE, 'utf8').digest('base64url')}"`;
