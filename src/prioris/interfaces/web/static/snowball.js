// Snowball page: candidates around the seeds; Accept fetches one (the fetch job), Dismiss
// hides it for good.
"use strict";

(() => {
  const form = document.getElementById("snowball-form");
  const results = document.getElementById("snowball-results");

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = {
      seeds: data.get("seeds"),
      collection: data.get("collection"),
      ids: data.getAll("ids"),
      direction: data.get("direction"),
      limit: data.get("limit"),
      offline: data.get("offline") === "1",
    };
    results.setAttribute("aria-busy", "true");
    results.replaceChildren(Prioris.el("p", { className: "summary", text: "▶ Following citations…" }));
    const response = await Prioris.post("/api/snowball", body);
    results.removeAttribute("aria-busy");
    if (!response.ok) {
      results.replaceChildren(
        Prioris.el("p", { className: "error", role: "alert", text: await Prioris.errorOf(response) }));
      return;
    }
    results.innerHTML = await response.text();
  });

  async function dismiss(item, status) {
    const response = await Prioris.post("/api/snowball/dismiss",
      { key: item.dataset.key, title: item.dataset.title });
    if (!response.ok) { status.textContent = `✗ ${await Prioris.errorOf(response)}`; return; }
    item.remove();
  }

  function accept(button, status) {
    button.disabled = true;
    status.textContent = "▶ Fetching…";
    Prioris.post("/api/fetch", { identifiers: [button.dataset.identifier] }).then(async (response) => {
      if (!response.ok) {
        status.textContent = `✗ ${await Prioris.errorOf(response)}`;
        button.disabled = false;
        return;
      }
      const { job } = await response.json();
      Prioris.poll(job.id, (snapshot, lost) => {
        if (!snapshot) { status.textContent = `✗ ${lost}`; return; }
        const item = snapshot.items[0];
        if (snapshot.active) { status.textContent = `▶ ${item.stage || "queued"}…`; return; }
        status.replaceChildren();
        if (item.state === "ingested" || item.state === "skipped") {
          status.append(`✓ ${item.state === "skipped" ? "Already in your library" : "Stored"} · `,
            Prioris.el("a", { href: `/read?id=${encodeURIComponent(item.work_id)}`, text: "Open" }));
          button.remove();
        } else {
          status.textContent = `✗ ${item.error_code || "failed"}: ${item.message}`;
          button.disabled = false;
        }
      });
    });
  }

  results.addEventListener("click", (event) => {
    const item = event.target.closest("li.candidate");
    if (!item) return;
    const status = item.querySelector(".fetch-status");
    if (event.target.closest("button.dismiss")) { dismiss(item, status); return; }
    const button = event.target.closest("button.fetch-one");
    if (button) accept(button, status);
  });
})();
