// The pages' own script (restful_pages.py serves it as ui/pages.js): the jobs table and the nodes
// refresh themselves, and a job's page follows its state and streams its output while it runs.
// Every value is set as text (textContent), never as HTML; every URL is relative.
'use strict';

(() => {
  const REFRESH_MS = 2000;

  async function getJson(url) {
    const answer = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
    if (answer.status === 401) {
      window.location.assign('login');
      return undefined;
    }
    return answer.ok ? answer.json() : undefined;
  }

  const COLUMNS = ['name', 'user', 'state', 'result', 'nnodes', 'submitted', 'started', 'ended', 'runtime'];

  async function refreshJobs(table) {
    const data = await getJson('jobs.json');
    if (data === undefined) return;
    const body = document.createElement('tbody');
    for (const job of data.jobs) {
      const row = body.insertRow();
      row.dataset.state = job.state ?? '';
      row.dataset.result = job.result ?? '';
      const link = document.createElement('a');
      link.href = `job?id=${encodeURIComponent(job.id)}`;
      link.textContent = job.jobid;
      row.insertCell().appendChild(link);
      for (const key of COLUMNS) row.insertCell().textContent = String(job[key] ?? '');
    }
    table.tBodies[0].replaceWith(body);
  }

  async function refreshNodes(section) {
    const data = await getJson('nodes.json');
    if (data === undefined) return;
    for (const key of ['up', 'down', 'drained']) {
      const names = data[key] ?? [];
      const list = section.querySelector(`[data-nodes="${key}"]`);
      const count = section.querySelector(`[data-count="${key}"]`);
      if (count) count.textContent = String(names.length);
      if (!list) continue;
      list.replaceChildren(
        ...names.map((name) => {
          const item = document.createElement('li');
          item.textContent = name;
          return item;
        }),
      );
    }
  }

  function every(action) {
    const tick = () => {
      action()
        .catch(() => undefined)
        .finally(() => window.setTimeout(tick, REFRESH_MS));
    };
    window.setTimeout(tick, REFRESH_MS);
  }

  async function refreshJob(article) {
    const job = await getJson(`job.json?id=${encodeURIComponent(article.dataset.job)}`);
    if (job === undefined) return undefined;
    for (const cell of article.querySelectorAll('[data-field]')) {
      cell.textContent = String(job[cell.dataset.field] ?? '');
    }
    const active = job.state !== 'INACTIVE';
    article.dataset.active = String(active);
    if (!active) document.getElementById('cancel')?.remove();
    return active;
  }

  async function streamOutput(article, pre) {
    const answer = await fetch(`output?id=${encodeURIComponent(article.dataset.job)}`, {
      cache: 'no-store',
      credentials: 'same-origin',
    });
    if (!answer.ok || answer.body === null) return;
    const reader = answer.body.getReader();
    const decoder = new TextDecoder();
    let first = true;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      // The stream starts from the job's first line: it replaces what the page came with.
      if (first) pre.textContent = '';
      first = false;
      pre.textContent += decoder.decode(value, { stream: true });
    }
    pre.textContent += decoder.decode();
  }

  function pause(ms) {
    return new Promise((resolve) => window.setTimeout(resolve, ms));
  }

  // The output streamed until the job ends; a stream that ends while the job is still active (it
  // had not started, or the connection dropped) is opened again, and starts from the first line.
  async function followOutput(article, pre) {
    for (;;) {
      await streamOutput(article, pre).catch(() => undefined);
      const active = await refreshJob(article).catch(() => true);
      if (active === false) return;
      await pause(REFRESH_MS);
    }
  }

  function followJob(article) {
    const pre = document.getElementById('output');
    if (article.dataset.active !== 'true') return;
    void followOutput(article, pre);
    const tick = () => {
      refreshJob(article)
        .then((active) => {
          if (active !== false) window.setTimeout(tick, REFRESH_MS);
        })
        .catch(() => window.setTimeout(tick, REFRESH_MS));
    };
    window.setTimeout(tick, REFRESH_MS);
  }

  const table = document.getElementById('jobs');
  if (table) every(() => refreshJobs(table));
  const nodes = document.getElementById('nodes');
  if (nodes) every(() => refreshNodes(nodes));
  const article = document.getElementById('job');
  if (article) followJob(article);
})();
