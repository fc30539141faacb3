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
    Prioris.fetchOne(button, status, "/api/fetch", { identifiers: [button.dataset.identifier] });
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
