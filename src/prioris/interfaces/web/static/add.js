// Add page: PDF uploads with per-file progress, fetch by identifier, JSONL import, folder
// ingest. Every row is a server-side job, so the list survives a reload.
"use strict";

(() => {
  const list = document.getElementById("jobs");
  const errorBox = document.getElementById("add-error");
  const following = new Set();

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  }

  function place(job) {
    const node = Prioris.renderJob(job);
    const old = list.querySelector(`[data-job-id="${CSS.escape(job.id)}"]`);
    if (old) old.replaceWith(node);
    else list.prepend(node);
    return node;
  }

  function follow(job, placeholder) {
    if (placeholder) placeholder.replaceWith(Prioris.renderJob(job));
    else place(job);
    if (!job.active || following.has(job.id)) return;
    following.add(job.id);
    Prioris.poll(job.id, (snapshot, lost) => {
      if (snapshot) place(snapshot);
      else showError(lost);
    });
  }

  // a row for a file still travelling to the server (XHR: fetch has no upload progress)
  function uploadRow(file) {
    const bar = Prioris.el("progress", { max: file.size || 1, value: 0, "aria-label": `${file.name}: uploading` });
    const state = Prioris.el("span", { className: "item-state", text: "⏳ Waiting to upload" });
    const row = Prioris.el("li", { className: "job state-uploading", "data-file": file.name },
      Prioris.el("div", { className: "job-head" }, Prioris.el("strong", { text: `Upload: ${file.name}` }), state), bar);
    return { row, bar, state };
  }

  function send(url, file, parts) {
    return new Promise((resolve) => {
      const request = new XMLHttpRequest();
      request.open("POST", `${url}?name=${encodeURIComponent(file.name)}`);
      request.setRequestHeader("X-CSRF-Token", Prioris.token());
      request.setRequestHeader("Content-Type", "application/octet-stream");
      request.upload.addEventListener("progress", (event) => {
        if (parts && event.lengthComputable) {
          parts.bar.max = event.total;
          parts.bar.value = event.loaded;
          parts.state.textContent = `▶ Uploading ${Math.round((100 * event.loaded) / event.total)}%`;
        }
      });
      request.addEventListener("load", () => {
        let data = null;
        try { data = JSON.parse(request.responseText); } catch (_) { /* not JSON */ }
        resolve({ ok: request.status >= 200 && request.status < 300, data, status: request.status });
      });
      request.addEventListener("error", () => resolve({ ok: false, data: null, status: 0 }));
      request.send(file);
    });
  }

  function failedRow(parts, file, data, status) {
    const message = data && data.error ? `${data.error.code}: ${data.error.message}` : `upload failed (${status || "no connection"})`;
    parts.row.className = "job state-failed";
    parts.state.textContent = "✗ Failed";
    parts.bar.remove();
    parts.row.append(Prioris.el("p", { className: "job-message", text: message }));
  }

  async function uploadAll(files) {
    const pdfs = Array.from(files);
    const rows = pdfs.map((file) => { const parts = uploadRow(file); list.prepend(parts.row); return parts; });
    if (rows.length) rows[rows.length - 1].row.scrollIntoView({ block: "nearest" });  // show where progress goes
    for (let i = 0; i < pdfs.length; i += 1) {
      const { ok, data, status } = await send("/api/upload", pdfs[i], rows[i]);
      if (ok && data && data.job) follow(data.job, rows[i].row);
      else failedRow(rows[i], pdfs[i], data, status);
    }
  }

  const zone = document.getElementById("dropzone");
  const input = document.getElementById("pdf-input");
  input.addEventListener("change", () => { if (input.files.length) uploadAll(input.files); input.value = ""; });
  for (const name of ["dragenter", "dragover"]) {
    zone.addEventListener(name, (event) => { event.preventDefault(); zone.classList.add("over"); });
  }
  for (const name of ["dragleave", "drop"]) {
    zone.addEventListener(name, () => zone.classList.remove("over"));
  }
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    if (event.dataTransfer && event.dataTransfer.files.length) uploadAll(event.dataTransfer.files);
  });

  async function submitJob(url, body) {
    showError("");
    const response = await Prioris.post(url, body);
    if (!response.ok) { showError(await Prioris.errorOf(response)); return false; }
    follow((await response.json()).job);
    list.firstElementChild?.scrollIntoView({ block: "nearest" });
    return true;
  }

  document.getElementById("fetch-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const area = document.getElementById("identifiers");
    if (await submitJob("/api/fetch", { identifiers: area.value })) area.value = "";
  });
  document.getElementById("folder-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await submitJob("/api/folder", { path: document.getElementById("folder-path").value });
  });
  document.getElementById("zotero-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await submitJob("/api/zotero-sync", { path: document.getElementById("zotero-path").value });
  });
  document.getElementById("references-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await submitJob("/api/references", { path: document.getElementById("references-path").value });
  });
  document.getElementById("import-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = document.getElementById("jsonl-input").files[0];
    if (!file) return;
    showError("");
    const { ok, data, status } = await send("/api/import", file, null);
    if (ok && data && data.job) follow(data.job);
    else showError(data && data.error ? `${data.error.code}: ${data.error.message}` : `import failed (${status})`);
    event.target.reset();
  });

  const initial = JSON.parse(list.dataset.initial || "[]");
  for (const job of initial.reverse()) follow(job);
})();
