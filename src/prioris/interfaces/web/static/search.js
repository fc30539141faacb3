// Search page: results without a full reload, the query in the URL, keyboard navigation.
"use strict";

(() => {
  const form = document.getElementById("search-form");
  const box = document.getElementById("q");
  const results = document.getElementById("results");
  let current = null;

  function paramsOf(formElement) {
    const params = new URLSearchParams();
    for (const [key, value] of new FormData(formElement)) {
      const text = String(value).trim();
      if (!text) continue;
      if (key === "k" && text === "10") continue;
      params.append(key, text);
    }
    return params;
  }

  async function load(params, push) {
    if (!params.get("q")) {
      results.innerHTML = "";
      if (push) history.pushState(null, "", "/");
      return;
    }
    if (current) current.abort();
    current = new AbortController();
    const started = performance.now();
    results.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(`/api/search?${params}`, { signal: current.signal });
      results.innerHTML = await response.text();
      document.body.dataset.searchMs = String(Math.round(performance.now() - started));
      document.title = `${params.get("q")} – Search · Prioris`;
      if (push) history.pushState(null, "", `/?${params}`);
    } catch (error) {
      if (error.name !== "AbortError") {
        results.innerHTML = "";
        results.append(Prioris.el("p", { className: "error", role: "alert", text: `Search failed: ${error.message}` }));
      }
    } finally {
      results.removeAttribute("aria-busy");
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load(paramsOf(form), true);
  });
  form.addEventListener("change", (event) => {
    if (event.target !== box && box.value.trim()) load(paramsOf(form), true);
  });

  window.addEventListener("popstate", () => {
    const params = new URLSearchParams(location.search);
    box.value = params.get("q") || "";
    for (const field of form.elements) {
      if (!field.name || field === box || field.type === "hidden") continue;
      const value = params.get(field.name);
      if (field.type === "radio") field.checked = field.value === (value || "hybrid");
      else if (field.type === "checkbox") field.checked = value === field.value;
      else if (field.tagName === "SELECT") field.value = value || (field.name === "k" ? "10" : "");
      else field.value = value || "";
    }
    load(params, false);
  });

  // a tag chip was drawn with the page's first parameters: follow it with the form's
  // current ones (a collection or mode chosen since) and the chip's tags
  for (const chip of document.querySelectorAll(".tag-facets a.chip")) {
    chip.addEventListener("click", (event) => {
      event.preventDefault();
      const params = paramsOf(form);
      params.delete("tag");
      for (const tag of new URL(chip.href).searchParams.getAll("tag")) params.append("tag", tag);
      location.assign(`/?${params}`);
    });
  }

  const links = () => Array.from(results.querySelectorAll("a[data-hit]"));

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement
      || target instanceof HTMLSelectElement;
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      box.focus();
      box.select();
      return;
    }
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const all = links();
    if (!all.length) return;
    const index = all.indexOf(target);
    if (target === box && event.key === "ArrowDown") {
      event.preventDefault();
      all[0].focus();
    } else if (index >= 0) {
      event.preventDefault();
      if (event.key === "ArrowDown") all[Math.min(index + 1, all.length - 1)].focus();
      else if (index === 0) box.focus();
      else all[index - 1].focus();
    }
  });
})();
