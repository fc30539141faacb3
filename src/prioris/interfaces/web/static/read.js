// Read page: copy the BibTeX, bring the hit's passage into view, arrow keys turn pages.
"use strict";

(() => {
  const button = document.getElementById("copy-bibtex");
  const status = document.getElementById("copy-status");
  if (button) {
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
