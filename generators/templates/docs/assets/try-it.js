// Try-it on an operation page (loaded `defer`; no inline script). Shown only when the page is served by a sandbox
// gateway: the gateway's /healthz (same origin, beside /docs) must answer {"mode": "sandbox"}. A static copy of the
// site, a production gateway or any other host leaves the form hidden. The request goes to the same origin with the
// credentials the reader typed (kept in sessionStorage: this tab only); the answer's status, headers and body are
// shown and the body is checked against the schema the document declares for that status.
//
// The check is a small interpreter of the JSON Schema keywords the document uses (type, enum, const, required,
// properties, additionalProperties, items, allOf/anyOf/oneOf, min/max, lengths, pattern): Ajv compiles validators with
// `new Function`, which the docs' Content-Security-Policy (no 'unsafe-eval') rightly forbids. Generated with the site.
(() => {
  const section = document.getElementById('try-it');
  if (!section) return;
  const root = new URL('../', window.location.href); // the gateway's root: the site is served under /docs/
  const STORE = 'paygate-docs-credentials';

  const enable = async () => {
    if (!/^https?:$/.test(window.location.protocol)) return false;
    try {
      const res = await fetch(new URL('healthz', root), { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (!res.ok) return false;
      const body = await res.json();
      return body !== null && typeof body === 'object' && body.mode === 'sandbox';
    } catch {
      return false;
    }
  };

  // ----- the declared document (openapi.js, the same file Redoc reads), loaded only when try-it is on
  let documentPromise;
  const loadDocument = () => {
    documentPromise ??= new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = 'openapi.js';
      script.onload = () => resolve(window.__PAYGATE_OPENAPI__);
      script.onerror = () => reject(new Error('could not load openapi.js'));
      document.head.appendChild(script);
    });
    return documentPromise;
  };

  const pointer = (doc, ref) => {
    if (!ref.startsWith('#')) return undefined;
    let node = doc;
    for (const raw of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object') return undefined;
      node = node[key];
    }
    return node;
  };

  const typeOf = (value) => {
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'array';
    if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
    return typeof value;
  };

  /** Errors of `value` against `schema` as "where: what" lines (at most 20). */
  const validate = (doc, schema, value, where, errors, depth = 0) => {
    if (errors.length >= 20 || depth > 64 || schema === true || schema === undefined) return;
    if (schema === false) {
      errors.push(`${where}: not allowed`);
      return;
    }
    if (typeof schema.$ref === 'string') {
      validate(doc, pointer(doc, schema.$ref), value, where, errors, depth + 1);
      return;
    }
    const actual = typeOf(value);
    const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
    if (schema.nullable === true) types.push('null');
    if (types.length > 0 && !types.some((t) => t === actual || (t === 'number' && actual === 'integer'))) {
      errors.push(`${where}: expected ${types.join(' or ')}, got ${actual}`);
      return;
    }
    if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value))
      errors.push(`${where}: expected ${JSON.stringify(schema.const)}`);
    if (Array.isArray(schema.enum) && !schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) {
      errors.push(`${where}: ${JSON.stringify(value)} is not one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    if (Array.isArray(schema.allOf)) for (const part of schema.allOf) validate(doc, part, value, where, errors, depth + 1);
    for (const key of ['anyOf', 'oneOf']) {
      if (!Array.isArray(schema[key])) continue;
      const fits = schema[key].some((option) => {
        const inner = [];
        validate(doc, option, value, where, inner, depth + 1);
        return inner.length === 0;
      });
      if (!fits) errors.push(`${where}: matches none of the ${key} alternatives`);
    }
    if (actual === 'object') {
      const properties = schema.properties ?? {};
      for (const name of Array.isArray(schema.required) ? schema.required : []) {
        if (!(name in value)) errors.push(`${where}: missing required field ${name}`);
      }
      for (const [name, item] of Object.entries(value)) {
        if (name in properties) validate(doc, properties[name], item, `${where}.${name}`, errors, depth + 1);
        else if (schema.additionalProperties === false) errors.push(`${where}: unknown field ${name}`);
        else if (typeof schema.additionalProperties === 'object')
          validate(doc, schema.additionalProperties, item, `${where}.${name}`, errors, depth + 1);
      }
    }
    if (actual === 'array' && schema.items !== undefined) {
      value.forEach((item, i) => validate(doc, schema.items, item, `${where}[${i}]`, errors, depth + 1));
    }
    if (actual === 'string') {
      if (typeof schema.minLength === 'number' && value.length < schema.minLength)
        errors.push(`${where}: shorter than ${schema.minLength}`);
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) errors.push(`${where}: longer than ${schema.maxLength}`);
      if (typeof schema.pattern === 'string') {
        try {
          if (!new RegExp(schema.pattern, 'u').test(value)) errors.push(`${where}: does not match ${schema.pattern}`);
        } catch {
          // a pattern the browser cannot read is not the response's fault
        }
      }
    }
    if (actual === 'integer' || actual === 'number') {
      if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${where}: below ${schema.minimum}`);
      if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${where}: above ${schema.maximum}`);
    }
  };

  /** The response the document declares for a status: exact, then its range (4XX), then default. */
  const declaredResponse = (doc, method, path, status) => {
    const operation = doc.paths?.[path]?.[method.toLowerCase()];
    const responses = operation?.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default'].find((k) => responses[k] !== undefined);
    if (key === undefined) return undefined;
    let response = responses[key];
    if (typeof response?.$ref === 'string') response = pointer(doc, response.$ref);
    return { key, response };
  };

  const credentialInputs = [...section.querySelectorAll('input[data-auth-in]')];

  // The samples with the reader's sandbox: this gateway's address and the credentials typed below in place of the
  // environment variables they read (Stripe shows its samples with the reader's test key). Only in this tab.
  const samples = [...document.querySelectorAll('figure.sample code')];
  for (const code of samples) code.dataset.original = code.textContent;
  const fillSamples = () => {
    const origin = root.href.replace(/\/$/, '');
    const values = [
      [section.dataset.urlEnv, origin],
      ...credentialInputs.filter((i) => i.value !== '').map((i) => [i.dataset.env, i.value]),
    ];
    for (const code of samples) {
      let text = code.dataset.original;
      for (const [env, value] of values) {
        if (!env) continue;
        // TypeScript: `process.env.X ?? "..."` -> the value; shell: "$X" -> the value (quoted as it stands in the sample)
        // (replacer functions: a value holding `$&` is inserted as it is)
        text = text.replace(new RegExp(`process\\.env\\.${env} \\?\\? "[^"\\n]*"`, 'g'), () => JSON.stringify(value));
        text = text.replace(new RegExp(`\\$${env}\\b`, 'g'), () => value.replace(/["$`\\]/g, (c) => `\\${c}`));
      }
      code.textContent = text;
    }
  };
  const saved = (() => {
    try {
      return JSON.parse(sessionStorage.getItem(STORE) ?? '{}');
    } catch {
      return {};
    }
  })();
  for (const input of credentialInputs) {
    input.value = saved[input.dataset.authScheme] ?? '';
    input.addEventListener('input', () => {
      saved[input.dataset.authScheme] = input.value;
      sessionStorage.setItem(STORE, JSON.stringify(saved));
      fillSamples();
    });
  }

  const show = (id, text) => {
    document.getElementById(id).textContent = text;
  };

  const send = async () => {
    const method = section.dataset.method;
    const template = section.dataset.path;
    const result = document.getElementById('try-result');
    const validation = document.getElementById('try-validation');
    validation.className = '';
    let path = template;
    const query = new URLSearchParams();
    const headers = new Headers({ accept: 'application/json' });
    for (const input of section.querySelectorAll('input[data-in]')) {
      const value = input.value;
      if (input.dataset.in === 'path') path = path.replace(`{${input.dataset.name}}`, encodeURIComponent(value));
      else if (value === '') continue;
      else if (input.dataset.in === 'query') query.append(input.dataset.name, value);
      else if (input.dataset.in === 'header') headers.set(input.dataset.name, value);
    }
    for (const input of credentialInputs) {
      if (input.value === '') continue;
      const where = input.dataset.authIn;
      if (where === 'header') headers.set(input.dataset.authName, input.value);
      else if (where === 'query') query.append(input.dataset.authName, input.value);
      else if (where === 'bearer') headers.set('authorization', `Bearer ${input.value}`);
    }
    if (section.dataset.idempotency) headers.set(section.dataset.idempotency, crypto.randomUUID());
    const init = { method, headers, credentials: 'omit', cache: 'no-store' };
    const bodyInput = document.getElementById('try-body');
    if (bodyInput && bodyInput.value.trim() !== '') {
      try {
        JSON.parse(bodyInput.value);
      } catch (error) {
        result.hidden = false;
        show('try-status', '(not sent)');
        validation.textContent = `The request body is not JSON: ${error.message}`;
        validation.className = 'bad';
        return;
      }
      headers.set('content-type', 'application/json');
      init.body = bodyInput.value;
    }
    const url = new URL(path.replace(/^\//, '') + (query.toString() !== '' ? `?${query}` : ''), root);
    show('try-status', '…');
    result.hidden = false;
    let res;
    try {
      res = await fetch(url, init);
    } catch (error) {
      show('try-status', '(no answer)');
      validation.textContent = `The request failed: ${error.message}`;
      validation.className = 'bad';
      return;
    }
    const text = await res.text();
    show('try-status', `${res.status} ${res.statusText}`);
    result.dataset.status = String(res.status);
    show('try-headers', [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n'));
    let body;
    try {
      body = JSON.parse(text);
      show('try-response', JSON.stringify(body, null, 2));
    } catch {
      show('try-response', text);
    }
    try {
      const doc = await loadDocument();
      const declared = declaredResponse(doc, method, template, res.status);
      if (declared === undefined) {
        validation.textContent = `Status ${res.status} is not declared for this operation.`;
        validation.className = 'bad';
        return;
      }
      const content = declared.response?.content ?? {};
      const mediaType = Object.keys(content).find((m) => /json/.test(m));
      if (mediaType === undefined || body === undefined) {
        validation.textContent = `Status ${res.status} is declared (${declared.key}).`;
        validation.className = 'ok';
        return;
      }
      const errors = [];
      validate(doc, content[mediaType].schema, body, 'body', errors);
      validation.textContent =
        errors.length === 0
          ? `The body matches the schema declared for ${declared.key}.`
          : `The body does not match the schema declared for ${declared.key}: ${errors.join('; ')}`;
      validation.className = errors.length === 0 ? 'ok' : 'bad';
    } catch (error) {
      validation.textContent = `The declared schema could not be read: ${error.message}`;
    }
  };

  enable().then(
    (on) => {
      if (!on) return;
      section.hidden = false;
      fillSamples();
      document.getElementById('try-send').addEventListener('click', send);
    },
    () => {}, // enable() answers false on every failure; nothing to report
  );
})();
