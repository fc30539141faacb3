// Library page: selection, export of the selection, delete with confirmation.
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
  refresh();
})();
