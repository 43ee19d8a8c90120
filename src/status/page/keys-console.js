// The keys console on the status page (docs/runtime-keys.md): for admin keys only, it lists the keys
// and teams issued at runtime (GET /admin/keys, /admin/teams) with the limits used and the spend from
// the page's own status snapshot, and creates, rotates, disables, enables and revokes them through the
// same admin API the command line uses. A new secret is shown once, in a box the admin dismisses; it is
// never stored (not in sessionStorage, not in a variable after the box is filled). Every value is
// rendered as DOM text: names and metadata are chosen by whoever created the key.
'use strict';
(function () {
  const page = window.switchyardPage;
  // "" when this gateway has no admin API (no admin keys, or auth.runtime_keys.enabled: false).
  const adminBase = document.querySelector('meta[name="switchyard-admin"]').content;
  if (!page || !adminBase) return;
  const authRequired = document.querySelector('meta[name="switchyard-auth"]').content === 'required';
  const LIST_EVERY_MS = 10000;
  const { h } = page;
  const $ = (id) => document.getElementById(id);

  let keys = null;
  let teams = null;
  let usage = null;
  let listedAt = 0;
  let listing = null;
  let busy = false;

  const adminUrl = (path) => new URL(adminBase + path, location.href).href;
  const named = (kind, name, rest) => kind + '/' + encodeURIComponent(name) + (rest || '');

  async function api(method, path, body) {
    const key = page.adminKey();
    if (!key) throw Object.assign(new Error('sign in with an admin key'), { status: 401 });
    const headers = { 'x-api-key': key };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(adminUrl(path), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', signal: AbortSignal.timeout(10000) });
    if (res.status === 204) return null;
    const data = await res.json().catch(() => null);
    if (!res.ok) throw Object.assign(new Error((data && data.error && data.error.message) || 'HTTP ' + res.status), { status: res.status });
    return data;
  }

  function showError(message) {
    $('console-error').textContent = message || '';
    $('console-error').hidden = !message;
  }

  function showSecret(title, secret) {
    $('secret-title').textContent = title;
    $('secret-value').value = secret;
    $('secret-box').hidden = false;
    $('secret-value').select();
  }

  function forgetSecret() {
    $('secret-value').value = '';
    $('secret-title').textContent = '';
    $('secret-box').hidden = true;
  }

  /** Refused (401/403): the lists go; on a page whose data is public the console asks for a key. */
  function refused(err) {
    keys = teams = null;
    $('console-body').hidden = true;
    forgetSecret();
    if (!authRequired) {
      page.setAdminKey(null);
      $('console-login').hidden = false;
    }
    showError('This key cannot manage keys: ' + err.message);
  }

  function refresh() {
    listing ??= (async () => {
      try {
        const [k, t] = await Promise.all([api('GET', 'keys'), api('GET', 'teams')]);
        keys = k.data;
        teams = t.data;
        listedAt = Date.now();
        $('console-login').hidden = true;
        $('console-body').hidden = false;
        $('console-updated').textContent = 'listed ' + new Date(listedAt).toLocaleTimeString([], { hour12: false });
        render();
      } catch (err) {
        if (err.status === 401 || err.status === 403) refused(err);
        else showError('Could not list the keys: ' + err.message);
      } finally {
        listing = null;
      }
    })();
    return listing;
  }

  function usageCell(limits, spend) {
    const meters = page.limitMeters(limits, spend);
    const spent = spend.reduce((n, s) => n + s.usd, 0);
    return h('td', { class: 'meters' }, ...(meters.length ? meters : [h('span', { class: 'muted' }, 'no limits · spent ' + page.fmtUsd(spent))]));
  }

  const listOf = (models) => (models && models.length ? models.join(', ') : 'all');

  function metadataCell(metadata) {
    const entries = Object.entries(metadata || {});
    return h('td', { class: 'metadata' }, ...(entries.length ? entries.map(([k, v]) => h('div', null, k + ': ' + String(v))) : ['–']));
  }

  function stateCell(disabled, previous) {
    return h('td', null,
      h('span', { class: 'badge ' + (disabled ? 'open' : 'closed') }, disabled ? 'disabled' : 'active'),
      previous ? h('div', { class: 'muted' }, 'old secret ' + previous.prefix + '… valid until ' + new Date(previous.until).toLocaleString()) : null);
  }

  const button = (action, label, cls) => h('button', { type: 'button', 'data-action': action, class: cls }, label);

  // What each cell was built from (its markup before the meters are sized), to tell whether a new
  // snapshot changed it.
  const shownAs = new WeakMap();

  /**
   * Puts `rows` ({name, cells}) into `tbody` in that order, keyed by name: a row already there stays the
   * same element and only the cells whose content changed are swapped. A poll every 2 s must not
   * replace a button between the press and the release of a click, or the click is lost.
   */
  function patchRows(tbody, rows, empty) {
    if (!rows.length) {
      if (!(tbody.children.length === 1 && tbody.firstElementChild.dataset.empty === '')) tbody.replaceChildren(empty);
      return;
    }
    const before = new Map();
    for (const tr of tbody.querySelectorAll(':scope > tr[data-name]')) before.set(tr.dataset.name, tr);
    rows.forEach(({ name, cells }, i) => {
      for (const td of cells) shownAs.set(td, td.outerHTML);
      let tr = before.get(name);
      if (tr) {
        before.delete(name);
        cells.forEach((td, j) => {
          const cur = tr.children[j];
          if (!cur) tr.append(td);
          else if (shownAs.get(cur) !== shownAs.get(td)) tr.replaceChild(td, cur);
        });
        while (tr.children.length > cells.length) tr.lastElementChild.remove();
      } else tr = h('tr', { 'data-name': name }, ...cells);
      // Moved only when out of place (a new row, a removed one before it).
      if (tbody.children[i] !== tr) tbody.insertBefore(tr, tbody.children[i] || null);
    });
    while (tbody.children.length > rows.length) tbody.lastElementChild.remove();
  }

  let teamOptions = '';

  function render() {
    if (!keys || !teams) return;
    const a = usage || { keys: [], teams: [] };
    const keyUsage = new Map(a.keys.map((u) => [u.key, u]));
    const teamUsage = new Map(a.teams.map((u) => [u.team, u]));
    const now = Date.now();
    patchRows($('rt-keys'), keys.map((k) => {
      const u = keyUsage.get(k.name);
      const expired = k.expires_at && Date.parse(k.expires_at) <= now;
      return { name: k.name, cells: [
        h('td', null, h('div', { class: 'key-name' }, k.name), h('small', { class: 'muted' }, k.prefix + '…')),
        h('td', null, k.team || '–'),
        h('td', null, listOf(k.models)),
        usageCell(u ? u.limits.filter((l) => l.scope === 'key') : [], u ? u.spend.filter((s) => s.scope === 'key') : []),
        h('td', { class: expired ? 'bad-text' : '' }, k.expires_at ? new Date(k.expires_at).toLocaleString() + (expired ? ' (expired)' : '') : 'never'),
        metadataCell(k.metadata),
        stateCell(k.disabled, k.previous),
        h('td', { class: 'actions' }, button('rotate', 'Rotate'), k.disabled ? button('enable', 'Enable') : button('disable', 'Disable'), button('revoke', 'Revoke', 'danger')),
      ] };
    }), h('tr', { 'data-empty': true }, h('td', { colspan: 8, class: 'muted' }, 'No runtime keys yet.')));
    patchRows($('rt-teams'), teams.map((t) => {
      const u = teamUsage.get(t.name);
      return { name: t.name, cells: [
        h('td', { class: 'key-name' }, t.name),
        h('td', null, listOf(t.models)),
        usageCell(u ? u.limits : [], u ? [u.spend] : []),
        h('td', { class: 'num' }, keys.filter((k) => k.team === t.name).length),
        metadataCell(t.metadata),
        stateCell(t.disabled),
        h('td', { class: 'actions' }, t.disabled ? button('enable', 'Enable') : button('disable', 'Disable'), button('delete', 'Delete', 'danger')),
      ] };
    }), h('tr', { 'data-empty': true }, h('td', { colspan: 7, class: 'muted' }, 'No runtime teams yet.')));
    page.sizeMeters($('console-body'));
    const teamNames = [...new Set([...teams.map((t) => t.name), ...a.teams.map((t) => t.team)])].sort();
    // Replaced only when the names change: an open suggestion list would close at every poll.
    if (teamNames.join('\n') !== teamOptions) {
      teamOptions = teamNames.join('\n');
      $('team-names').replaceChildren(...teamNames.map((n) => h('option', { value: n })));
    }
  }

  /** One change through the admin API, then the lists again; errors shown as the API words them. */
  async function change(work) {
    if (busy) return;
    busy = true;
    showError('');
    try {
      await work();
    } catch (err) {
      if (err.status === 401 || err.status === 403) refused(err);
      else showError(err.message);
    } finally {
      busy = false;
    }
    await refresh();
  }

  function onRowAction(kind, event) {
    const b = event.target.closest('button[data-action]');
    const row = b && b.closest('tr[data-name]');
    if (!row) return;
    const name = row.dataset.name;
    const action = b.dataset.action;
    if (kind === 'keys') {
      if (action === 'rotate') {
        const grace = Number($('rotate-grace').value) || 0;
        if (!confirm('Rotate "' + name + '"? ' + (grace ? 'The old secret keeps working for ' + grace + ' s.' : 'The old secret stops working now.'))) return;
        return change(async () => {
          const r = await api('POST', named('keys', name, '/rotate'), grace ? { grace_s: grace } : {});
          showSecret('New secret for "' + r.name + '".', r.key);
        });
      }
      if (action === 'revoke') {
        if (!confirm('Revoke "' + name + '"? Its secret is refused at once.')) return;
        return change(() => api('DELETE', named('keys', name)));
      }
    } else if (action === 'delete') {
      if (!confirm('Delete team "' + name + '"?')) return;
      return change(() => api('DELETE', named('teams', name)));
    }
    if (action === 'enable' || action === 'disable') return change(() => api('PATCH', named(kind, name), { disabled: action === 'disable' }));
  }

  /** The body shared by both create forms; a field left empty is left out. */
  function policyFrom(form) {
    const f = new FormData(form);
    const text = (n) => String(f.get(n) || '').trim();
    const body = { name: text('name') };
    const models = text('models').split(',').map((m) => m.trim()).filter(Boolean);
    if (models.length) body.models = models;
    const limits = {};
    for (const l of ['rpm', 'tpm', 'concurrency']) if (text(l)) limits[l] = Number(text(l));
    if (Object.keys(limits).length) body.limits = limits;
    if (text('budget_usd')) body.budget = { usd: Number(text('budget_usd')), period: text('budget_period') };
    if (text('metadata')) {
      let metadata;
      try {
        metadata = JSON.parse(text('metadata'));
      } catch {
        throw new Error('metadata: not JSON; write an object such as {"owner": "ci"}');
      }
      body.metadata = metadata;
    }
    if (f.has('team') && text('team')) body.team = text('team');
    if (f.has('expires_at') && text('expires_at')) body.expires_at = new Date(text('expires_at')).toISOString();
    return body;
  }

  $('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    change(async () => {
      const r = await api('POST', 'keys', policyFrom(form));
      form.reset();
      showSecret('Secret for "' + r.name + '".', r.key);
    });
  });
  $('team-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    change(async () => {
      await api('POST', 'teams', policyFrom(form));
      form.reset();
    });
  });
  $('rt-keys').addEventListener('click', (e) => onRowAction('keys', e));
  $('rt-teams').addEventListener('click', (e) => onRowAction('teams', e));
  $('secret-done').addEventListener('click', forgetSecret);
  $('console-login').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('console-login-key');
    const key = input.value.trim();
    input.value = '';
    if (!key) return;
    page.setAdminKey(key);
    showError('');
    refresh();
  });

  // Each status snapshot brings the spend and limits used; the lists themselves every 10 s and after each change.
  document.addEventListener('switchyard:status', (e) => {
    usage = e.detail.access;
    $('console').hidden = false;
    if (!page.adminKey()) {
      $('console-login').hidden = false;
      $('console-body').hidden = true;
      return;
    }
    if (Date.now() - listedAt >= LIST_EVERY_MS) refresh();
    else render();
  });
  document.addEventListener('switchyard:signed-out', () => {
    keys = teams = usage = null;
    listedAt = 0;
    forgetSecret();
    showError('');
    $('rt-keys').replaceChildren();
    $('rt-teams').replaceChildren();
    $('team-names').replaceChildren();
    teamOptions = '';
    $('console-body').hidden = true;
    $('console').hidden = true;
  });
})();
