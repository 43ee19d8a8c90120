// Switchyard status page: polls status.json (next to this page) every 2 s while the tab is visible and
// renders it with DOM text only (never HTML from data). With admin keys the key is kept in this tab's
// sessionStorage and sent in the x-api-key header.
'use strict';
(function () {
  const POLL_MS = 2000;
  const KEY_ITEM = 'switchyard-status-key';
  const authRequired = document.querySelector('meta[name="switchyard-auth"]').content === 'required';
  const dataUrl = new URL('status.json', location.href).href;
  let windowName = '1m';
  let timer = 0;
  let inflight = null;
  let last = null;

  const $ = (id) => document.getElementById(id);

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    if (attrs) for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children) {
      if (c === undefined || c === null) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  const fmtMs = (v) => (v === null || v === undefined ? '–' : v < 1000 ? Math.round(v) + ' ms' : (v / 1000).toFixed(v < 10000 ? 2 : 1) + ' s');
  const fmtPct = (v) => (v === 0 ? '0 %' : v < 0.001 ? '<0.1 %' : (v * 100).toFixed(v < 0.1 ? 1 : 0) + ' %');
  const fmtRate = (v) => (v === 0 ? '0' : v < 0.1 ? v.toFixed(3) : v < 10 ? v.toFixed(2) : v.toFixed(1));
  const fmtUsd = (v) => (v === null || v === undefined ? '–' : '$' + (v < 0.01 && v > 0 ? v.toFixed(5) : v.toFixed(2)));
  const fmtTime = (iso) => new Date(iso).toLocaleTimeString([], { hour12: false });
  function fmtDuration(s) {
    if (s < 60) return s + ' s';
    const d = Math.floor(s / 86400), hrs = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    return (d ? d + 'd ' : '') + (d || hrs ? hrs + 'h ' : '') + m + 'm';
  }

  function sparkline(values) {
    const ns = 'http://www.w3.org/2000/svg';
    const W = 180, H = 28;
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'spark');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('preserveAspectRatio', 'none');
    const max = Math.max(1, ...values);
    const step = values.length > 1 ? W / (values.length - 1) : W;
    const pts = values.map((v, i) => `${(i * step).toFixed(1)},${(H - 1 - (v / max) * (H - 3)).toFixed(1)}`);
    const area = document.createElementNS(ns, 'polygon');
    area.setAttribute('points', `0,${H} ${pts.join(' ')} ${W},${H}`);
    const line = document.createElementNS(ns, 'polyline');
    line.setAttribute('points', pts.join(' '));
    const title = document.createElementNS(ns, 'title');
    title.textContent = `peak ${max} requests per 10 s`;
    svg.append(title, area, line);
    return svg;
  }

  function fill(tbody, rows) {
    tbody.replaceChildren(...rows);
  }

  function pill(text, cls) {
    return h('span', { class: 'pill ' + (cls || '') }, text);
  }

  function renderSummary(s) {
    const i = s.instance;
    const open = s.deployments.filter((d) => d.circuit !== 'closed').length;
    $('summary').replaceChildren(...[
      pill('v' + i.version),
      pill('up ' + fmtDuration(i.uptime_s)),
      pill(i.state.backend + (i.state.reachable ? ' reachable' : ' unreachable'), i.state.reachable ? 'ok' : 'bad'),
      pill(i.workers + (i.workers === 1 ? ' process' : ' workers')),
      open ? pill(open + (open === 1 ? ' circuit open' : ' circuits open'), 'bad') : pill('all circuits closed', 'ok'),
      i.draining ? pill('draining', 'warn') : null,
    ].filter(Boolean));
  }

  function renderInstance(s) {
    const i = s.instance;
    const facts = [
      ['version', i.version + ' (node ' + i.node + ')'],
      ['started', new Date(i.started_at).toLocaleString() + ' · up ' + fmtDuration(i.uptime_s)],
      ['config', i.config.source + ' · ' + i.config.sha256 + (i.config.workers_agree ? '' : ' (workers differ)')],
      ['loaded', new Date(i.config.loaded_at).toLocaleString()],
      ['last reload', i.last_reload ? fmtTime(i.last_reload.at) + ' · ' + i.last_reload.why + ' · ' + (i.last_reload.ok ? 'ok' : 'refused: ' + i.last_reload.error) : 'none since start'],
      ['state', i.state.backend + ' · ' + (i.state.reachable ? 'reachable' : 'unreachable' + (i.state.error ? ': ' + i.state.error : ''))],
      ['workers', i.workers === 1 ? '1 (single process)' : i.workers_answering + ' of ' + i.workers + ' answering'],
      ['instances', i.instances === null ? 'not shared (Redis only)' : i.instances.map((x) => x.id).join(', ') || 'none heard yet'],
      ['draining', i.draining ? 'yes' : 'no'],
    ];
    $('instance').replaceChildren(...facts.flatMap(([k, v]) => [h('dt', null, k), h('dd', { 'data-fact': k }, v)]));
    const lr = $('instance').querySelector('[data-fact="last reload"]');
    if (i.last_reload && !i.last_reload.ok) lr.className = 'bad-text';
  }

  function renderTraffic(t) {
    $('in-flight').textContent = t.in_flight;
    $('open-streams').textContent = t.open_streams;
    $('rps-total').textContent = fmtRate(t.doors.reduce((n, d) => n + d.windows['1m'].rps, 0));
    const shown = t.doors.filter((d) => d.door === 'messages' || d.door === 'responses' || d.windows['15m'].requests > 0 || d.in_flight > 0);
    fill($('doors'), shown.map((d) => h('tr', { 'data-door': d.door },
      h('td', null, d.door === 'messages' ? '/v1/messages' : d.door === 'responses' ? '/v1/responses' : d.door),
      h('td', { class: 'num in-flight' }, d.in_flight),
      h('td', { class: 'num' }, d.open_streams),
      h('td', { class: 'num rps' }, fmtRate(d.windows['1m'].rps)),
      h('td', { class: 'num' }, fmtRate(d.windows['5m'].rps)),
      h('td', { class: 'num' }, fmtRate(d.windows['15m'].rps)),
      h('td', { class: 'num' + (d.windows['5m'].errors ? ' bad-text' : '') }, d.windows['5m'].errors),
      h('td', null, sparkline(d.series)),
    )));
  }

  function renderDeployments(s) {
    fill($('deployments'), s.deployments.map((d) => {
      const w = d.windows[windowName];
      return h('tr', { 'data-deployment': d.deployment },
        h('td', null, d.deployment),
        h('td', null, d.protocol || '–'),
        h('td', { class: 'circuit' }, h('span', { class: 'badge ' + d.circuit }, d.circuit)),
        h('td', { class: 'num' }, d.in_flight),
        h('td', { class: 'num' }, fmtRate(w.rps)),
        h('td', { class: 'num error-rate' + (w.error_rate >= 0.05 ? ' bad-text' : '') }, w.requests ? fmtPct(w.error_rate) : '–'),
        h('td', { class: 'num' + (w.rate_limited ? ' warn-text' : '') }, w.requests ? fmtPct(w.rate_limited_rate) : '–'),
        h('td', { class: 'num' }, fmtMs(w.p50_ms)),
        h('td', { class: 'num' }, fmtMs(w.p95_ms)),
        h('td', { class: 'num' }, fmtMs(w.ttft_p50_ms)),
        h('td', { class: 'num' }, fmtMs(w.ttft_p95_ms)),
      );
    }));
  }

  function renderRoutes(s) {
    const lanes = (r, door) => {
      const set = [...new Set(r.targets.map((t) => t.lanes[door]))];
      return h('td', null, ...set.map((l) => h('span', { class: 'lane ' + l }, l)));
    };
    fill($('routes'), s.routes.map((r) => h('tr', { 'data-alias': r.alias },
      h('td', null, r.alias),
      h('td', null, r.targets.length > 1 ? r.strategy : '–'),
      h('td', null, ...r.targets.map((t, i) => h('div', null, (i ? '→ ' : '') + [t.provider, t.protocol, t.model ?? '(caller’s model)', r.targets.length > 1 ? 'w' + t.weight : null].filter(Boolean).join(' · ')))),
      lanes(r, 'messages'),
      lanes(r, 'responses'),
      lanes(r, 'chat'),
      lanes(r, 'gemini'),
    )));
  }

  function meter(label, used, max, text) {
    const frac = max > 0 ? Math.min(1, used / max) : 0;
    const cls = 'meter' + (frac >= 1 ? ' full' : frac >= 0.8 ? ' high' : '');
    return h('div', { class: cls, 'data-limit': label, role: 'meter', 'aria-label': label, 'aria-valuenow': used, 'aria-valuemin': 0, 'aria-valuemax': max },
      h('div', { class: 'cap' }, h('span', null, label), h('span', { class: 'value' }, text)),
      h('div', { class: 'track' }, h('div', { class: 'fill', style: null, 'data-frac': frac.toFixed(3) })),
    );
  }

  function limitMeters(limits, spend) {
    const out = limits.map((l) => meter(l.limit, l.used, l.max, l.used + ' / ' + l.max));
    for (const sp of spend) if (sp.budget_usd !== null) out.push(meter('budget ' + sp.period, sp.usd, sp.budget_usd, fmtUsd(sp.usd) + ' / ' + fmtUsd(sp.budget_usd)));
    return out;
  }

  // Widths through CSSOM (the page's CSP allows no inline style attributes).
  function sizeMeters(root) {
    for (const f of root.querySelectorAll('.fill')) f.style.width = (Number(f.dataset.frac) * 100).toFixed(1) + '%';
  }

  function renderAccess(s) {
    const a = s.access;
    $('access-scope').textContent = a.backend + ' · ' + (a.scope === 'cluster' ? 'cluster-wide' : 'this machine only (local)') + (a.error ? ' · ' + a.error : '');
    const rows = [];
    for (const k of a.keys) {
      const own = k.limits.filter((l) => l.scope === 'key');
      const spend = k.spend.filter((x) => x.scope === 'key');
      rows.push(h('div', { class: 'who', 'data-key': k.key }, k.key, k.team ? h('small', null, ' · team ' + k.team) : null));
      const meters = limitMeters(own, spend);
      rows.push(h('div', { class: 'meters', 'data-key-usage': k.key }, ...(meters.length ? meters : [h('span', { class: 'muted' }, 'no limits · spent ' + fmtUsd(spend[0] ? spend[0].usd : 0))])));
    }
    for (const t of a.teams) {
      rows.push(h('div', { class: 'who', 'data-team': t.team }, 'team ' + t.team));
      const meters = limitMeters(t.limits, [t.spend]);
      rows.push(h('div', { class: 'meters' }, ...(meters.length ? meters : [h('span', { class: 'muted' }, 'no limits · spent ' + fmtUsd(t.spend.usd))])));
    }
    $('access').replaceChildren(rows.length ? h('div', { class: 'usage' }, ...rows) : h('p', { class: 'muted' }, 'No keys configured: the gateway is open.'));
    sizeMeters($('access'));
    if (a.truncated) $('access').append(h('p', { class: 'muted' }, a.truncated + ' more not shown'));
  }

  function renderRecent(s) {
    fill($('recent'), s.recent.map((r) => h('tr', { 'data-request': r.request_id },
      h('td', null, fmtTime(r.at)),
      h('td', null, r.door),
      h('td', null, r.alias !== 'other' && r.alias !== r.model ? r.model + ' (' + r.alias + ')' : r.model),
      h('td', null, r.deployment ?? '–'),
      h('td', null, r.lane === 'none' ? '–' : h('span', { class: 'lane ' + r.lane }, r.lane)),
      h('td', { class: r.error ? 'bad-text' : '' }, (r.error ? r.status + ' ' + r.error : r.status + (r.stream ? ' stream' : '')) + (r.attempts > 1 ? ' · ' + r.attempts + ' attempts' : '') + (r.client_aborted ? ' · client left' : '')),
      h('td', { class: 'num' }, fmtMs(r.duration_ms)),
      h('td', { class: 'num' }, fmtMs(r.ttft_ms)),
      h('td', { class: 'num' }, r.input_tokens === null ? '–' : r.input_tokens + ' / ' + r.output_tokens),
      h('td', { class: 'num' }, fmtUsd(r.cost_usd)),
      h('td', null, r.key ?? '–'),
      h('td', { class: r.warnings.length ? 'warn-text' : '' }, r.warnings.length ? r.warnings.join(', ') : ''),
    )));
  }

  function render(s) {
    last = s;
    renderSummary(s);
    renderInstance(s);
    renderTraffic(s.traffic);
    renderDeployments(s);
    renderRoutes(s);
    renderAccess(s);
    renderRecent(s);
    $('updated').textContent = 'updated ' + fmtTime(s.generated_at);
    // The keys console (keys-console.js) joins its lists with this snapshot's spend and limits.
    document.dispatchEvent(new CustomEvent('switchyard:status', { detail: s }));
  }

  function showLogin(message) {
    $('dashboard').hidden = true;
    $('logout').hidden = true;
    $('login').hidden = false;
    $('login-error').hidden = !message;
    $('login-error').textContent = message || '';
    $('updated').textContent = 'signed out';
    $('login-key').focus();
    document.dispatchEvent(new CustomEvent('switchyard:signed-out'));
  }

  function schedule(ms) {
    clearTimeout(timer);
    timer = 0;
    if (!document.hidden) timer = setTimeout(poll, ms);
  }

  async function poll() {
    const key = sessionStorage.getItem(KEY_ITEM);
    if (authRequired && !key) return showLogin('');
    if (inflight) inflight.abort();
    inflight = new AbortController();
    const abortTimer = setTimeout(() => inflight && inflight.abort(), 8000);
    try {
      const res = await fetch(dataUrl, { headers: key ? { 'x-api-key': key } : {}, cache: 'no-store', signal: inflight.signal });
      if (res.status === 401 || res.status === 403) {
        sessionStorage.removeItem(KEY_ITEM);
        const body = await res.json().catch(() => ({}));
        return showLogin((body.error && body.error.message) || 'not allowed');
      }
      if (!res.ok) throw new Error('HTTP ' + res.status);
      const data = await res.json();
      $('login').hidden = true;
      $('dashboard').hidden = false;
      $('logout').hidden = !authRequired;
      render(data);
    } catch (err) {
      if (err.name !== 'AbortError') $('updated').textContent = 'no answer (' + err.message + '), retrying';
    } finally {
      clearTimeout(abortTimer);
      inflight = null;
    }
    schedule(POLL_MS);
  }

  // What the keys console shares with this page: the element builder, the meters, the signed-in key.
  window.switchyardPage = Object.freeze({
    h, fmtUsd, limitMeters, sizeMeters,
    adminKey: () => sessionStorage.getItem(KEY_ITEM),
    setAdminKey: (key) => (key ? sessionStorage.setItem(KEY_ITEM, key) : sessionStorage.removeItem(KEY_ITEM)),
  });

  $('login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('login-key');
    const key = input.value.trim();
    input.value = '';
    if (!key) return;
    sessionStorage.setItem(KEY_ITEM, key);
    $('login-error').hidden = true;
    poll();
  });
  $('logout').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_ITEM);
    clearTimeout(timer);
    showLogin('');
  });
  for (const b of document.querySelectorAll('#window-tabs button')) {
    b.addEventListener('click', () => {
      windowName = b.dataset.window;
      for (const o of document.querySelectorAll('#window-tabs button')) o.setAttribute('aria-selected', String(o === b));
      if (last) renderDeployments(last);
    });
  }
  document.addEventListener('visibilitychange', () => {
    if (document.hidden) {
      clearTimeout(timer);
      timer = 0;
    } else poll();
  });
  poll();
})();
