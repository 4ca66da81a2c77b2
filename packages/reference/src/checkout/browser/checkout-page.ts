/**
 * The hosted payment page's script (decision D294), bundled to ES2017 by `npm run build:sdk` into
 * ../generated/checkout-page.gen.ts and inlined in the page (page.ts) with its CSP hash. Type-checked against the DOM
 * library only (tsconfig.json beside it). The page works without it: the form posts and the server answers with the
 * same messages. With it:
 *
 * - each field says what is wrong in the page's own words, next to it, as the shopper types or leaves it: the rules
 *   and messages are the server's own (../methods/field-checks.ts, imported and bundled, never copied), so Luhn, the
 *   expiry (against the order's clock, which a sandbox may have moved), the CVC length of the card's network and the
 *   UPI ID are checked here exactly as the server will check them; the browser's generic "Please match the requested
 *   format." never shows (the form is `novalidate` once this runs);
 * - Pay with an error shows every error of the chosen method, the summary (role=alert) and focuses the first field:
 *   nothing is posted, so what the shopper typed stays (the card number included) to be corrected;
 * - the card number is spaced as it is typed and its brand shown;
 * - the countdown runs and, at zero, disables the buttons; a second submission is blocked (buttons are never disabled
 *   on submit: a disabled submitter would drop `outcome` from the form data).
 *
 * The markup it fills is the server's: every field has its `<p class="field-error" id="<field>-error" hidden>` and
 * the form its hidden `.error-summary` (page.ts renders them), so both paths show errors the same way.
 */
import { CARD_NETWORK_NAMES, cardNetwork } from '../methods/cards.js';
import {
  bankCodeError,
  cardCvcError,
  cardExpiryError,
  cardNameError,
  cardNumberError,
  vpaError,
  type CheckoutField,
} from '../methods/field-checks.js';

type FieldElement = HTMLInputElement | HTMLSelectElement;

/** The fields Pay sends for each method, in the order the page shows them. */
const METHOD_FIELDS: Readonly<Record<string, readonly CheckoutField[]>> = {
  UPI: ['vpa'],
  QR: [],
  CREDIT_CARD: ['card_number', 'card_expiry', 'card_cvc', 'card_name'],
  DEBIT_CARD: ['card_number', 'card_expiry', 'card_cvc', 'card_name'],
  NET_BANKING: ['bank_code'],
};

/** When a number is long enough to be whole for its network, it is checked as the last digit is typed. */
function completeLength(digits: string): number {
  const network = cardNetwork(digits);
  return network === 'amex' ? 15 : network === 'diners' ? 14 : 16;
}

function start(doc: Document): void {
  const form = doc.getElementById('checkout-form') as HTMLFormElement | null;
  if (!form) return;
  form.noValidate = true;

  // the order's clock (a sandbox clock may be ahead of the shopper's): the server's now at render, moved on by ours
  const serverNow = Number(form.getAttribute('data-now-ms'));
  const loadedAt = Date.now();
  const now = () => (serverNow > 0 ? serverNow + (Date.now() - loadedAt) : Date.now());

  const element = (name: string) => doc.getElementById(name) as FieldElement | null;
  const value = (name: string) => element(name)?.value ?? '';
  const checks: Partial<Record<CheckoutField, () => string | undefined>> = {
    vpa: () => vpaError(value('vpa')),
    card_number: () => cardNumberError(value('card_number')),
    card_expiry: () => cardExpiryError(value('card_expiry'), now()),
    card_cvc: () => cardCvcError(value('card_cvc'), value('card_number')),
    card_name: () => cardNameError(value('card_name')),
    bank_code: () => bankCodeError(value('bank_code')),
  };

  const summary = form.querySelector('.error-summary') as HTMLElement | null;

  function describedBy(input: FieldElement, id: string, on: boolean): void {
    const ids = (input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter((t) => t !== '' && t !== id);
    if (on) ids.push(id);
    if (ids.length > 0) input.setAttribute('aria-describedby', ids.join(' '));
    else input.removeAttribute('aria-describedby');
  }

  const shown = (name: CheckoutField) => {
    const p = doc.getElementById(`${name}-error`);
    return p !== null && !p.hidden && (p.textContent ?? '') !== '';
  };

  /** The error next to a field (or none), as the server renders it. */
  function show(name: CheckoutField, message: string | undefined): void {
    const input = element(name);
    const p = doc.getElementById(`${name}-error`);
    if (!input || !p) return;
    p.textContent = message ?? '';
    p.hidden = message === undefined;
    const wrapper = input.closest('.field');
    if (wrapper) wrapper.classList.toggle('has-error', message !== undefined);
    if (message === undefined) input.removeAttribute('aria-invalid');
    else input.setAttribute('aria-invalid', 'true');
    describedBy(input, `${name}-error`, message !== undefined);
    if (summary && !summary.hidden) renderSummary();
  }

  const chosenMethod = () => (form.querySelector('input[name="mop_type"]:checked') as HTMLInputElement | null)?.value ?? '';

  /** The summary lists the errors shown for the chosen method, each linking to its field; hidden when there is none. */
  function renderSummary(): void {
    if (!summary) return;
    const list = summary.querySelector('ul');
    if (!list) return;
    while (list.firstChild) list.removeChild(list.firstChild);
    const fields: readonly CheckoutField[] = ['mop_type', ...(METHOD_FIELDS[chosenMethod()] ?? [])];
    for (const name of fields) {
      if (!shown(name)) continue;
      const item = doc.createElement('li');
      const link = doc.createElement('a');
      link.href = `#${name}`;
      link.textContent = doc.getElementById(`${name}-error`)?.textContent ?? '';
      item.appendChild(link);
      list.appendChild(item);
    }
    summary.hidden = list.childNodes.length === 0;
  }

  function check(name: CheckoutField): string | undefined {
    const message = checks[name]?.();
    show(name, message);
    return message;
  }

  // as the shopper types: a field showing an error is checked again at each change (the error goes as soon as it is
  // right); a card number is checked once it has all its digits, an expiry once it reads MM/YY
  const checkedNames = new Set<string>(Object.keys(checks));
  const checked = (name: string): name is CheckoutField => checkedNames.has(name);
  form.addEventListener('input', (event) => {
    const target = event.target as FieldElement;
    const name = target.name;
    if (name === 'mop_type' && summary && !summary.hidden) renderSummary();
    if (!checked(name)) return;
    if (name === 'card_number') formatCardNumber(target as HTMLInputElement);
    const digits = value('card_number').replace(/\D/g, '');
    const complete =
      (name === 'card_number' && digits.length >= completeLength(digits)) ||
      (name === 'card_expiry' && /^\s*\d{2}\s*\/\s*\d{2}\s*$/.test(target.value));
    if (shown(name) || complete) check(name);
    if (name === 'card_number' && shown('card_cvc')) check('card_cvc');
  });
  // leaving a field: anything typed is checked (an empty field waits for Pay)
  form.addEventListener('focusout', (event) => {
    const target = event.target as FieldElement;
    if (checked(target.name) && target.value.trim() !== '') check(target.name);
  });

  const brand = doc.getElementById('card-brand');
  function formatCardNumber(input: HTMLInputElement): void {
    const digits = input.value.replace(/\D/g, '').slice(0, 19);
    const network = cardNetwork(digits);
    const groups = network === 'amex' ? [4, 6, 5] : [4, 4, 4, 4, 3];
    const out: string[] = [];
    let at = 0;
    for (let g = 0; g < groups.length && at < digits.length; g++) {
      out.push(digits.slice(at, at + (groups[g] ?? 4)));
      at += groups[g] ?? 4;
    }
    const formatted = out.join(' ');
    if (formatted !== input.value) {
      const atEnd = input.selectionStart === input.value.length;
      input.value = formatted;
      if (atEnd) input.setSelectionRange(formatted.length, formatted.length);
    }
    if (brand) brand.textContent = network === 'unknown' ? '' : CARD_NETWORK_NAMES[network];
  }

  // Pay: every field of the chosen method; with an error, nothing is posted and the first field takes the focus
  let clicked: HTMLButtonElement | null = null;
  form.addEventListener('click', (event) => {
    const button = (event.target as Element).closest('button');
    if (button) clicked = button as HTMLButtonElement;
  });
  let submitted = false;
  form.addEventListener('submit', (event) => {
    if (submitted) {
      event.preventDefault();
      return;
    }
    const submitter = ((event as SubmitEvent).submitter as HTMLButtonElement | null) ?? clicked;
    if (!submitter || submitter.value === 'success') {
      const invalid = (METHOD_FIELDS[chosenMethod()] ?? []).filter((name) => element(name) !== null && check(name) !== undefined);
      if (invalid.length > 0) {
        event.preventDefault();
        if (summary) {
          summary.hidden = false;
          renderSummary();
        }
        element(invalid[0] ?? '')?.focus();
        return;
      }
    }
    submitted = true;
  });

  countdown(form, doc);
}

/** The remaining time from `data-remaining-seconds` (computed by the server: the shopper's clock skew does not matter). */
function countdown(form: HTMLFormElement, doc: Document): void {
  const timer = doc.querySelector('[data-remaining-seconds]');
  if (!timer) return;
  const remaining = Number.parseInt(timer.getAttribute('data-remaining-seconds') ?? '', 10);
  if (!(remaining >= 0)) return;
  const end = Date.now() + remaining * 1000;
  const fmt = (s: number) => `${Math.floor(s / 60)}:${`0${s % 60}`.slice(-2)}`;
  function tick(): void {
    const s = Math.max(0, Math.ceil((end - Date.now()) / 1000));
    if (timer) timer.textContent = fmt(s);
    if (s > 0) {
      setTimeout(tick, (end - Date.now()) % 1000 || 1000);
      return;
    }
    const buttons = form.querySelectorAll('button');
    for (let i = 0; i < buttons.length; i++) (buttons[i] as HTMLButtonElement).disabled = true;
    const msg = doc.getElementById('expired');
    if (msg) {
      msg.hidden = false;
      msg.setAttribute('role', 'alert');
    }
  }
  tick();
}

start(document);
