// Alerts page: each alert's ranked candidates. Accept fetches one (the fetch job) and
// remembers it; Dismiss remembers it and hides it. One key each: j/k move, a accept,
// d dismiss, o open; the buttons do the same. The "New alert" form makes an alert and each
// alert's Remove button (after a confirm) removes it; their errors show beside them.
"use strict";

(() => {
  const main = document.getElementById("main");
  let current = null;

  const candidates = () => Array.from(document.querySelectorAll("li.candidate"));
  const alertOf = (item) => item.closest("section.alert").dataset.alert;

  function select(item) {
    if (current) current.classList.remove("selected");
    current = item || null;
    if (!current) return;
    current.classList.add("selected");
    current.focus({ preventScroll: true });
    current.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    const all = candidates();
    if (!all.length) return;
    const at = all.indexOf(current);
    select(all[Math.min(all.length - 1, Math.max(0, at < 0 ? 0 : at + step))]);
  }

  async function dismiss(item) {
    const status = item.querySelector(".fetch-status");
    const response = await Prioris.post("/api/alerts/dismiss",
      { alert: alertOf(item), candidate: item.dataset.candidate });
    if (!response.ok) { status.textContent = `✗ ${await Prioris.errorOf(response)}`; return; }
    const all = candidates();
    const next = all[all.indexOf(item) + 1] || all[all.indexOf(item) - 1];
    item.remove();
    if (current === item) select(next && next.isConnected ? next : null);
  }

  async function accept(item) {
    const button = item.querySelector("button.accept");
    const status = item.querySelector(".fetch-status");
    if (!button || button.disabled) return;
    await Prioris.fetchOne(button, status, "/api/alerts/accept",
      { alert: alertOf(item), candidate: item.dataset.candidate },
      () => item.classList.add("in-library"));
  }

  async function run(section) {
    const button = section.querySelector("button.run-alert");
    const status = section.querySelector(".run-status");
    button.disabled = true;
    status.textContent = "▶ Running…";
    const response = await Prioris.post("/api/alerts/run", { alert: section.dataset.alert });
    if (!response.ok) {
      status.textContent = `✗ ${await Prioris.errorOf(response)}`;
      button.disabled = false;
      return;
    }
    const { job } = await response.json();
    Prioris.poll(job.id, (snapshot, lost) => {
      if (!snapshot) { status.textContent = `✗ ${lost}`; button.disabled = false; return; }
      const one = snapshot.items[0];
      if (snapshot.active) { status.textContent = `▶ ${one.stage || "queued"}`; return; }
      if (one.state === "failed") {
        status.textContent = `✗ ${one.error_code || "failed"}: ${one.message}`;
        button.disabled = false;
        return;
      }
      status.textContent = `✓ ${one.message}`;
      window.location.reload();
    });
  }

  const form = document.getElementById("alert-form");
  const formError = document.getElementById("alert-form-error");

  async function add(event) {
    event.preventDefault();
    const field = (key) => form.elements[key].value.trim();
    const button = form.querySelector("button[type=submit]");
    formError.hidden = true;
    button.disabled = true;
    const response = await Prioris.post("/api/alerts/add", {
      name: field("name"), collection: field("collection"),
      search: field("search"), sources: field("sources"),
    });
    button.disabled = false;
    if (!response.ok) {
      formError.textContent = await Prioris.errorOf(response);
      formError.hidden = false;
      return;
    }
    window.location.reload();
  }

  async function remove(section) {
    const name = section.dataset.alert;
    if (!window.confirm(`Remove the alert ${name} with its results? Works you accepted stay.`)) return;
    const status = section.querySelector(".run-status");
    const response = await Prioris.post("/api/alerts/remove", { alert: name });
    if (!response.ok) { status.textContent = `✗ ${await Prioris.errorOf(response)}`; return; }
    if (current && section.contains(current)) select(null);
    section.remove();
  }

  if (form) form.addEventListener("submit", add);

  main.addEventListener("click", (event) => {
    const section = event.target.closest("section.alert");
    if (event.target.closest("button.run-alert")) { run(section); return; }
    if (event.target.closest("button.remove-alert")) { remove(section); return; }
    const item = event.target.closest("li.candidate");
    if (!item) return;
    if (event.target.closest("button.dismiss")) { dismiss(item); return; }
    if (event.target.closest("button.accept")) { accept(item); return; }
    if (!event.target.closest("a, button")) select(item);
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea, select, [contenteditable]")) return;
    const key = event.key;
    if (key === "j") { move(1); event.preventDefault(); return; }
    if (key === "k") { move(-1); event.preventDefault(); return; }
    if (!current) return;
    if (key === "a") { accept(current); event.preventDefault(); }
    else if (key === "d") { dismiss(current); event.preventDefault(); }
    else if (key === "o" && current.dataset.link) { window.open(current.dataset.link, "_blank", "noopener"); }
  });
})();
