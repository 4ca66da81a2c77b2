export {
  renderCheckoutPage,
  CHECKOUT_PAGE_CSP,
  CHECKOUT_METHOD_LABELS,
  type CheckoutMethod,
  type CheckoutPageView,
} from './page.js';
export {
  renderRedirectForm,
  renderResultPage,
  REDIRECT_PAGE_CSP,
  RESULT_PAGE_CSP,
  type CheckoutResultStatus,
} from './redirect.js';
export { checkoutSdkSource, CHECKOUT_SDK_ETAG } from './sdk.js';
