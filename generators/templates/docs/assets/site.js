// The docs site's own script (every page, loaded `defer`; no inline script, so the site runs under script-src 'self').
// Copy buttons of the code samples, and the search box: MiniSearch and the prebuilt index are loaded the first time
// the reader uses the box, so a page costs nothing for search until then. Generated with the site: do not edit.
(() => {
  // ----- Copy buttons: <button data-copy="ID"> copies the text of the element with that id.
  const copyText = async (text) => {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return;
    }
    // file:// and plain-http hosts: the selection and the older command
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  };
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.addEventListener('click', async () => {
      const target = document.getElementById(button.dataset.copy);
      // only the visible word changes: the button's name stays "Copy/Copied the <label> sample"
      const state = button.querySelector('.copy-state') ?? button;
      if (!target) return;
      try {
        await copyText(target.textContent);
        state.textContent = 'Copied';
      } catch {
        state.textContent = 'Select and copy';
      }
      setTimeout(() => {
        state.textContent = 'Copy';
      }, 2000);
    });
  }

  // ----- Search
  const input = document.getElementById('site-search');
  const list = document.getElementById('site-search-results');
  const status = document.getElementById('site-search-status');
  if (!input || !list || !status) return;

  const loadScript = (src) =>
    new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.onload = resolve;
      script.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.appendChild(script);
    });

  // what a reader of an API reference looks for first: operations, then the names they meet in answers and events
  const KIND_BOOST = { Operation: 3, 'Error code': 2, Event: 2, Schema: 1.5, Diagram: 1.5, Decision: 0.6, Change: 0.6 };

  let engine;
  const searchEngine = () => {
    engine ??= loadScript('minisearch.js')
      .then(() => loadScript('search-index.js'))
      .then(() => {
        const { options, index } = window.__PAYGATE_SEARCH__;
        return window.MiniSearch.loadJS(index, options);
      });
    return engine;
  };

  const render = (results, query) => {
    list.replaceChildren();
    for (const result of results.slice(0, 12)) {
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = result.url;
      const kind = document.createElement('span');
      kind.className = 'kind';
      kind.textContent = result.kind;
      link.append(kind, document.createTextNode(` ${result.title}`));
      item.appendChild(link);
      list.appendChild(item);
    }
    list.hidden = query === '';
    if (query !== '' && results.length === 0) {
      const item = document.createElement('li');
      item.textContent = `Nothing matches “${query}”.`;
      item.style.padding = '.45rem .7rem';
      list.appendChild(item);
    }
    status.textContent = query === '' ? '' : `${results.length} result${results.length === 1 ? '' : 's'}`;
  };

  let last = '';
  const run = async () => {
    const query = input.value.trim();
    last = query;
    if (query === '') {
      render([], '');
      return;
    }
    try {
      const search = await searchEngine();
      if (last !== query) return; // a later keystroke won
      render(search.search(query, { boostDocument: (_id, _term, stored) => KIND_BOOST[stored?.kind] ?? 1 }), query);
    } catch (error) {
      status.textContent = 'Search is unavailable on this copy of the site.';
      console.warn(error);
    }
  };
  input.addEventListener('focus', () => {
    searchEngine().catch(() => {});
  });
  input.addEventListener('input', run);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      input.value = '';
      render([], '');
    } else if (event.key === 'Enter') {
      const first = list.querySelector('a');
      if (first) first.click();
    } else if (event.key === 'ArrowDown') {
      const first = list.querySelector('a');
      if (first) {
        event.preventDefault();
        first.focus();
      }
    }
  });
  list.addEventListener('keydown', (event) => {
    const links = [...list.querySelectorAll('a')];
    const at = links.indexOf(document.activeElement);
    if (event.key === 'ArrowDown' && at < links.length - 1) {
      event.preventDefault();
      links[at + 1].focus();
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      (at > 0 ? links[at - 1] : input).focus();
    } else if (event.key === 'Escape') {
      input.focus();
      render([], '');
    }
  });
  document.addEventListener('click', (event) => {
    if (!event.target.closest('.site-search')) list.hidden = true;
  });
})();
