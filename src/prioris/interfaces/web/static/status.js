// Status page: re-index and compact with live progress (also picked up again after a reload).
"use strict";

(() => {
  function wire(name, route) {
    const button = document.getElementById(name);
    const box = document.getElementById(`${name}-progress`);
    if (!button || !box) return;

    function show(job) {
      box.replaceChildren(Prioris.el("ul", { className: "jobs" }, Prioris.renderJob(job)));
    }

    function follow(job) {
      show(job);
      if (!job.active) return;
      button.disabled = true;
      Prioris.poll(job.id, (snapshot, lost) => {
        if (!snapshot) { box.textContent = lost; return; }
        show(snapshot);
        if (!snapshot.active) setTimeout(() => location.reload(), 800);
      });
    }

    button.addEventListener("click", async () => {
      button.disabled = true;
      const response = await Prioris.post(route);
      if (!response.ok) {
        box.textContent = await Prioris.errorOf(response);
        button.disabled = false;
        return;
      }
      follow((await response.json()).job);
    });

    const initial = JSON.parse(box.dataset.initial || "null");
    if (initial) follow(initial);
  }

  wire("reindex", "/api/reindex");
  wire("compact", "/api/compact");
})();
