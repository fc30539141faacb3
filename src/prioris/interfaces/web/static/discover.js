// Discover page: OpenAlex candidates for a pasted text; one click fetches one.
"use strict";

(() => {
  const form = document.getElementById("discover-form");
  const results = document.getElementById("discover-results");
  let lastQuery = null;

  async function run(query, page, append) {
    results.setAttribute("aria-busy", "true");
    const response = await Prioris.post("/api/discover", { ...query, page });
    results.removeAttribute("aria-busy");
    if (!response.ok) {
      const message = await Prioris.errorOf(response);
      const note = Prioris.el("p", { className: "error", role: "alert", text: message });
      if (append) results.append(note); else results.replaceChildren(note);
      return;
    }
    const html = await response.text();
    if (append) {
      document.getElementById("more")?.remove();
      results.insertAdjacentHTML("beforeend", html);
    } else {
      results.innerHTML = html;
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    lastQuery = {
      text: data.get("text"),
      from_year: data.get("from_year"),
      to_year: data.get("to_year"),
      oa_only: data.get("oa_only") === "1",
    };
    run(lastQuery, 1, false);
  });

  results.addEventListener("click", async (event) => {
    const more = event.target.closest("#more");
    if (more && lastQuery) { run(lastQuery, Number(more.dataset.page), true); return; }
    const button = event.target.closest("button.fetch-one");
    if (!button) return;
    const status = button.parentElement.querySelector(".fetch-status");
    await Prioris.fetchOne(button, status, "/api/fetch", { identifiers: [button.dataset.identifier] });
  });
})();
