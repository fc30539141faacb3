// Feed tokens: make one (shown once, with the feed addresses that carry it), revoke one.
"use strict";

(() => {
  const form = document.getElementById("token-form");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const response = await Prioris.post("/api/feed-tokens", { label: form.elements.label.value });
    const box = document.getElementById("new-token");
    box.hidden = false;
    if (!response.ok) {
      document.getElementById("new-token-value").textContent = await Prioris.errorOf(response);
      return;
    }
    const made = await response.json();
    document.getElementById("new-token-value").textContent = made.token;
    const feeds = document.getElementById("new-token-feeds");
    for (const item of feeds.querySelectorAll("li")) {
      const url = `${feeds.dataset.base}/alerts/${encodeURIComponent(item.dataset.alert)}.atom` +
        `?token=${encodeURIComponent(made.token)}`;
      item.replaceChildren(Prioris.el("code", { text: url }));
    }
  });
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button.revoke-token");
    if (!button) return;
    const row = button.closest("tr");
    const response = await Prioris.post("/api/feed-tokens/revoke", { token_id: row.dataset.tokenId });
    if (!response.ok) { row.querySelector(".token-state").textContent = await Prioris.errorOf(response); return; }
    const revoked = await response.json();
    row.querySelector(".token-state").textContent = `revoked ${revoked.revoked_at}`;
    button.remove();
  });
})();
