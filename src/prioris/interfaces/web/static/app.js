// Shared by every page: the CSRF-carrying POST, job polling and rendering, a tiny DOM helper.
"use strict";

const Prioris = (() => {
  const token = () => document.querySelector('meta[name="csrf-token"]').content;

  async function post(url, body) {
    const headers = { "X-CSRF-Token": token() };
    let payload = body;
    if (body !== undefined && !(body instanceof Blob)) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
    return fetch(url, { method: "POST", headers, body: payload, credentials: "same-origin" });
  }

  async function errorOf(response) {
    try {
      const data = await response.json();
      if (data.error) return `${data.error.code}: ${data.error.message}`;
    } catch (_) { /* not JSON */ }
    return `the server answered ${response.status}`;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // Follow a job until it finishes; onUpdate(job) after each poll, onUpdate(null, message) on loss.
  function poll(jobId, onUpdate, interval = 400) {
    let stopped = false;
    async function tick() {
      if (stopped) return;
      try {
        const response = await fetch(`/api/jobs/${encodeURIComponent(jobId)}`, { cache: "no-store" });
        if (!response.ok) { onUpdate(null, await errorOf(response)); return; }
        const { job } = await response.json();
        onUpdate(job);
        if (job.active) setTimeout(tick, interval);
      } catch (_) {
        setTimeout(tick, 1500);  // the server restarting: keep trying
      }
    }
    tick();
    return () => { stopped = true; };
  }

  // Fetch one paper as a job (Add, Discover, Snowball, Alerts): POST url with body, then follow
  // the job in status, with an "Open" link once stored; onStored(item) then, and the button
  // gone. A refusal or a failure is shown and the button enabled again.
  async function fetchOne(button, status, url, body, onStored = () => {}) {
    button.disabled = true;
    status.textContent = "▶ Fetching…";
    const response = await post(url, body);
    if (!response.ok) {
      status.textContent = `✗ ${await errorOf(response)}`;
      button.disabled = false;
      return;
    }
    const { job } = await response.json();
    poll(job.id, (snapshot, lost) => {
      if (!snapshot) { status.textContent = `✗ ${lost}`; return; }
      const item = snapshot.items[0];
      if (snapshot.active) { status.textContent = `▶ ${item.stage || "queued"}…`; return; }
      status.replaceChildren();
      if (item.state === "ingested" || item.state === "skipped") {
        status.append(`✓ ${item.state === "skipped" ? "Already in your library" : "Stored"} · `,
          el("a", { href: `/read?id=${encodeURIComponent(item.work_id)}`, text: "Open" }));
        onStored(item);
        button.remove();
      } else {
        status.textContent = `✗ ${item.error_code || "failed"}: ${item.message}`;
        button.disabled = false;
      }
    });
  }

  const STATE_WORDS = {
    queued: "⏳ Queued",
    running: "▶ Working",
    ingested: "✓ Ingested",
    skipped: "↷ Skipped",
    failed: "✗ Failed",
    done: "✓ Done",
    partial: "⚠ Done, some failed",
    cancelled: "■ Stopped",
  };

  function itemLine(item) {
    const row = el("li", { className: `item state-${item.state}`, "data-name": item.name });
    row.append(el("span", { className: "item-name", text: item.name }));
    let status = STATE_WORDS[item.state] || item.state;
    if (item.state === "running" && item.stage) {
      status = `▶ ${item.stage[0].toUpperCase()}${item.stage.slice(1)}`;
      if (item.total) status += ` ${item.done}/${item.total}`;
    }
    if (item.state === "skipped" && /identical bytes|already/.test(item.message)) status = "↷ Skipped (duplicate)";
    row.append(el("span", { className: "item-state", text: status }));
    if (item.state === "running" && item.total) {
      row.append(el("progress", { max: item.total, value: item.done, "aria-label": `${item.name}: ${item.stage}` }));
    } else if (item.state === "running" || item.state === "queued") {
      row.append(el("progress", { "aria-label": `${item.name}: ${item.state}` }));
    }
    if (item.message && item.state !== "running") {
      const text = item.error_code ? `${item.error_code}: ${item.message}` : item.message;
      row.append(el("span", { className: "item-message", text }));
    }
    if (item.work_id && (item.state === "ingested" || item.state === "skipped")) {
      row.append(el("a", { href: `/read?id=${encodeURIComponent(item.work_id)}`, className: "item-open", text: "Open" }));
    }
    return row;
  }

  function renderJob(job) {
    const box = el("li", { className: `job state-${job.state}`, "data-job-id": job.id, "data-state": job.state });
    const kinds = { upload: "Upload", folder: "Folder", fetch: "Fetch", import: "Import", reindex: "Re-index", compact: "Compact" };
    box.append(el("div", { className: "job-head" },
      el("strong", { text: `${kinds[job.kind] || job.kind}: ${job.title}` }),
      el("span", { className: "job-state", text: STATE_WORDS[job.state] || job.state })));
    if (job.total > 0 && job.kind !== "upload") {
      box.append(el("progress", { max: job.total, value: job.done, "aria-label": `${job.title} progress` }));
      box.append(el("span", { className: "job-count", text: ` ${job.done} / ${job.total}` }));
    }
    if (job.message && (job.kind !== "upload" || job.state === "failed")) {
      box.append(el("p", { className: "job-message", text: job.message }));
    }
    if (job.items.length) box.append(el("ul", { className: "items" }, ...job.items.map(itemLine)));
    return box;
  }

  return { post, errorOf, el, poll, fetchOne, renderJob, token };
})();

// A shared library (accounts mode): the header's "Log out" ends the session.
document.addEventListener("DOMContentLoaded", () => {
  const logout = document.getElementById("logout");
  if (!logout) return;
  logout.addEventListener("click", async () => {
    await Prioris.post("/logout");
    window.location.assign("/login");
  });
});
