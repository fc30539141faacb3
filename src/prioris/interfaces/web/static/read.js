// Read page: copy a citation (a style from the menu) or the BibTeX, bring the hit's passage into view, arrow keys turn pages.
"use strict";

(() => {
  const status = document.getElementById("copy-status");
  for (const button of document.querySelectorAll("#copy-bibtex, #copy-citation")) {
    button.addEventListener("click", async () => {
      const area = document.getElementById(button.dataset.target);
      try {
        await navigator.clipboard.writeText(area.value);
      } catch (_) {  // no clipboard permission: select the text and copy the old way
        const box = area.closest("details");
        if (box) box.open = true;
        area.select();
        document.execCommand("copy");
      }
      status.textContent = "Copied to the clipboard";
      setTimeout(() => { status.textContent = ""; }, 4000);
    });
  }
  // the "Cite as" menu: the chosen style or format replaces the citation to copy
  const choice = document.getElementById("cite-choice");
  const citation = document.getElementById("citation");
  if (choice && citation) {
    choice.addEventListener("change", async () => {
      const [kind, value] = choice.value.split(":");
      const query = new URLSearchParams({ id: choice.dataset.id });
      query.set(kind === "style" ? "style" : "format", value);
      status.textContent = "Formatting…";
      try {
        const response = await fetch(`/api/cite?${query}`, { headers: { Accept: "application/json" } });
        const body = await response.json();
        if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
        citation.value = body.citation;
        status.textContent = "";
      } catch (error) {
        status.textContent = `Could not format the citation: ${error.message}`;
      }
    });
  }
  // bring the passage into view inside the text column only: the page itself stays put,
  // so the title and the page image (first on a narrow screen) stay where they are
  const passage = document.getElementById("passage");
  const column = passage && passage.closest(".markdown");
  if (column && column.scrollHeight > column.clientHeight) {
    column.scrollTop = Math.max(0, passage.offsetTop - column.clientHeight / 4);
  }

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const link = event.key === "ArrowLeft" ? document.getElementById("prev-page")
      : event.key === "ArrowRight" ? document.getElementById("next-page") : null;
    if (link) location.href = link.href;
  });
})();
