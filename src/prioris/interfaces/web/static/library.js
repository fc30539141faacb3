// Library page: selection, export of the selection, delete with confirmation, and the
// collections and tags of the selected works.
"use strict";

(() => {
  const picks = () => Array.from(document.querySelectorAll("input.pick"));
  const all = document.getElementById("select-all");
  const count = document.getElementById("selected-count");
  const dialog = document.getElementById("confirm-delete");
  const text = document.getElementById("confirm-text");
  let pending = [];

  function refresh() {
    const chosen = picks().filter((p) => p.checked);
    count.textContent = `${chosen.length} selected`;
    for (const button of document.querySelectorAll(".needs-selection")) button.disabled = chosen.length === 0;
    if (all) all.checked = chosen.length > 0 && chosen.length === picks().length;
  }

  if (all) all.addEventListener("change", () => { for (const p of picks()) p.checked = all.checked; refresh(); });
  document.addEventListener("change", (event) => { if (event.target.classList.contains("pick")) refresh(); });

  function confirmDelete(ids, label) {
    pending = ids;
    text.textContent = label;
    dialog.showModal();
  }

  document.getElementById("delete-selected").addEventListener("click", () => {
    const chosen = picks().filter((p) => p.checked).map((p) => p.value);
    if (chosen.length) confirmDelete(chosen, `${chosen.length} selected work(s).`);
  });
  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.delete-one");
    if (button) confirmDelete([button.dataset.id], `“${button.dataset.title}”`);
  });

  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "delete" || !pending.length) return;
    const response = await Prioris.post("/api/delete", { ids: pending });
    if (!response.ok) {
      alert(`Could not delete: ${await Prioris.errorOf(response)}`);
      return;
    }
    location.reload();
  });
  // Collections and tags of the selected works (the bar is absent for a reader account).
  const status = document.getElementById("label-status");
  const NOTE = "prioris-label-note";
  if (status && sessionStorage.getItem(NOTE)) {
    status.textContent = sessionStorage.getItem(NOTE);
    sessionStorage.removeItem(NOTE);
  }
  const chosenIds = () => picks().filter((p) => p.checked).map((p) => p.value);

  function summary(result) {
    const what = result.collection !== undefined ? result.collection : `#${result.tag}`;
    const parts = [];
    if (result.added) parts.push(`${result.added.length} added`);
    if (result.already && result.already.length) parts.push(`${result.already.length} had it already`);
    if (result.removed) parts.push(`${result.removed.length} removed`);
    if (result.kept && result.kept.length) {
      const from = [...new Set(result.kept.flatMap((k) => k.origins))].join(", ");
      parts.push(`${result.kept.length} kept: they have it from ${from} (change it there)`);
    }
    return `${what}: ${parts.join(", ")}`;
  }

  async function change(url, body) {
    const response = await Prioris.post(url, body);
    if (!response.ok) {
      status.textContent = `Could not change it: ${await Prioris.errorOf(response)}`;
      return;
    }
    sessionStorage.setItem(NOTE, summary(await response.json()));
    location.reload();
  }

  function labelled(inputId, what) {
    const value = document.getElementById(inputId).value.trim();
    if (!value) status.textContent = `Type a ${what} first.`;
    return value;
  }

  for (const [buttonId, action] of [["collection-add", "add"], ["collection-remove", "remove"]]) {
    const button = document.getElementById(buttonId);
    if (!button) continue;
    button.addEventListener("click", () => {
      const name = labelled("label-collection", "collection");
      if (name) change("/api/collections", { action, name, ids: chosenIds() });
    });
  }
  for (const [buttonId, action] of [["tag-add", "add"], ["tag-remove", "remove"]]) {
    const button = document.getElementById(buttonId);
    if (!button) continue;
    button.addEventListener("click", () => {
      const tag = labelled("label-tag", "tag");
      if (tag) change("/api/tags", { action, tag, ids: chosenIds() });
    });
  }

  const creating = document.getElementById("new-collection");
  const newButton = document.getElementById("collection-new");
  if (creating && newButton) {
    const error = document.getElementById("new-collection-error");
    newButton.addEventListener("click", () => {
      error.hidden = true;
      creating.showModal();
      document.getElementById("new-collection-name").focus();
    });
    document.getElementById("new-collection-ok").addEventListener("click", async (event) => {
      event.preventDefault();  // stays open until the server took it
      const name = document.getElementById("new-collection-name").value.trim();
      const parent = document.getElementById("new-collection-parent").value;
      const response = await Prioris.post("/api/collections", { action: "create", name, parent: parent || null });
      if (!response.ok) {
        error.textContent = await Prioris.errorOf(response);
        error.hidden = false;
        return;
      }
      const result = await response.json();
      sessionStorage.setItem(NOTE, `Collection “${result.collection}” created: tick works and add them to it.`);
      creating.close();
      location.reload();
    });
  }
  refresh();
})();
