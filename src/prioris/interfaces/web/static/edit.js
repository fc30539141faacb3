// Read page: the record's edit form. Only the fields changed are sent (an emptied field is
// sent as null: it stays empty whatever a source says); Undo takes back the newest edit.
"use strict";

(() => {
  const form = document.getElementById("edit-form");
  if (!form) return;
  const status = document.getElementById("edit-status");
  const LISTS = new Set(["authors", "keywords"]);

  function valueOf(field) {
    const text = field.value.trim();
    if (LISTS.has(field.name)) return text.split("\n").map((line) => line.trim()).filter(Boolean);
    return text === "" ? null : text;
  }

  async function send(body) {
    status.textContent = "Saving…";
    const response = await Prioris.post("/api/edit", body);
    if (!response.ok) {
      status.textContent = `Not saved: ${await Prioris.errorOf(response)}`;
      status.setAttribute("role", "alert");
      return;
    }
    // the page again, the form open, showing the merged record and its origins
    location.href = `/read?id=${encodeURIComponent(form.dataset.id)}&edit=1`;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const fields = {};
    for (const field of form.querySelectorAll("input[name], textarea[name]")) {
      if (field.value !== field.dataset.initial) fields[field.name] = valueOf(field);
    }
    if (!Object.keys(fields).length) {
      status.textContent = "Nothing changed";
      return;
    }
    send({ id: form.dataset.id, fields });
  });
  document.getElementById("edit-undo").addEventListener("click", () => {
    send({ id: form.dataset.id, undo: true });
  });
})();
