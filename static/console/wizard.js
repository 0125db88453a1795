// The project wizard, enhanced: criteria rows added, removed and reordered in place, defaults that follow
// the task type, and a live preview of the rater's screen (debounced POST to the preview endpoint).
// Without this script the page still works: buttons post the form and the server re-renders it.
(function () {
  "use strict";
  const form = document.getElementById("wizard");
  if (!form) return;
  const rows = document.getElementById("criteria");
  const prefix = rows.dataset.prefix;
  const total = form.querySelector(`input[name="${prefix}-TOTAL_FORMS"]`);
  const template = document.getElementById("criterion-template");
  const defaults = JSON.parse(document.getElementById("criterion-defaults").textContent);
  const scaleless = JSON.parse(document.getElementById("scaleless-types").textContent);
  const frame = document.getElementById("preview-frame");
  const status = document.getElementById("preview-status");
  const notes = document.getElementById("preview-notes");
  const instructions = document.getElementById("instructions-preview");

  const taskType = () => (form.querySelector('input[name="task_type"]:checked') || {}).value || Object.keys(defaults)[0];
  const liveRows = () => [...rows.querySelectorAll("[data-criterion-row]")].filter((r) => !r.hidden);
  const field = (row, name) => row.querySelector(`[name$="-${name}"]`);

  function renumber() {
    liveRows().forEach((row, i) => {
      field(row, "ORDER").value = i + 1;
      row.querySelector("[data-row-number]").textContent = i + 1;
    });
  }

  function fill(row, spec) {
    field(row, "name").value = spec.name;
    field(row, "scale_min").value = spec.scale_min ?? "";
    field(row, "scale_max").value = spec.scale_max ?? "";
    field(row, "labels").value = (spec.labels || []).join("\n");
    field(row, "help_text").value = spec.help_text || "";
  }

  const sameNumber = (text, value) => (text === "" ? value == null : value != null && Number(text) === value);

  function matches(row, spec) {
    return sameNumber(field(row, "scale_min").value, spec.scale_min)
      && sameNumber(field(row, "scale_max").value, spec.scale_max)
      && field(row, "labels").value.trim() === (spec.labels || []).join("\n");
  }

  function showForType(type) {
    form.querySelectorAll("[data-hint]").forEach((p) => { p.hidden = p.dataset.hint !== type; });
    rows.querySelectorAll("[data-scale], .c-labels").forEach((el) => { el.hidden = scaleless.includes(type); });
  }

  function enhance(row) {
    row.querySelector(".js-only").hidden = false;
    row.querySelectorAll(".c-order, .c-delete").forEach((el) => { el.hidden = true; });
    row.querySelector("[data-remove]").addEventListener("click", () => {
      field(row, "DELETE").checked = true;
      row.hidden = true;
      renumber();
      schedule();
      const next = liveRows()[0];
      (next ? field(next, "name") : document.getElementById("add-criterion")).focus();
    });
    row.querySelectorAll("[data-move]").forEach((button) => button.addEventListener("click", () => {
      const live = liveRows();
      const i = live.indexOf(row);
      const j = i + Number(button.dataset.move);
      if (j < 0 || j >= live.length) return;
      if (j < i) live[j].before(row); else live[j].after(row);
      renumber();
      button.focus();
      status.textContent = `Criterion moved to position ${j + 1}.`;
      schedule();
    }));
  }

  document.getElementById("add-criterion").addEventListener("click", (event) => {
    event.preventDefault();
    const index = Number(total.value);
    const html = template.innerHTML.replaceAll("__prefix__", String(index));
    rows.insertAdjacentHTML("beforeend", html);
    const row = rows.lastElementChild;
    total.value = index + 1;
    enhance(row);
    fill(row, { ...defaults[taskType()], name: "" });
    showForType(taskType());
    renumber();
    field(row, "name").focus();
  });

  let previous = taskType();
  form.querySelectorAll('input[name="task_type"]').forEach((radio) => radio.addEventListener("change", () => {
    const type = taskType();
    // Rows still holding the old type's default scale take the new type's; edited rows are kept.
    liveRows().forEach((row) => {
      if (matches(row, defaults[previous])) {
        const keep = { name: field(row, "name").value, help_text: field(row, "help_text").value };
        fill(row, { ...defaults[type], ...keep });
      }
    });
    previous = type;
    showForType(type);
  }));

  let timer = null;
  let inflight = null;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, 400);
  }

  async function refresh() {
    if (inflight) inflight.abort();
    inflight = new AbortController();
    status.textContent = "Updating the preview…";
    const body = new FormData(form);
    body.set("action", "preview");
    try {
      const response = await fetch(form.dataset.previewUrl, {
        method: "POST", body, signal: inflight.signal, credentials: "same-origin",
        headers: { "X-CSRFToken": body.get("csrfmiddlewaretoken") },
      });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      const preview = await response.json();
      instructions.innerHTML = preview.instructions;  // sanitised server-side (nh3)
      notes.replaceChildren(...preview.notes.map((n) => Object.assign(document.createElement("li"), { textContent: n })));
      // The frame parses its new document after this function returns: the preview counts as updated
      // (data-previewed, which tests wait on) once the frame has loaded it.
      frame.addEventListener("load", () => {
        status.textContent = "Preview updated.";
        form.dataset.previewed = String(Number(form.dataset.previewed || 0) + 1);
      }, { once: true });
      frame.srcdoc = preview.screen;
    } catch (error) {
      if (error.name !== "AbortError") status.textContent = `The preview could not be updated: ${error.message}.`;
    }
  }

  rows.querySelectorAll("[data-criterion-row]").forEach(enhance);
  document.getElementById("refresh-preview").hidden = true;
  showForType(taskType());
  renumber();
  form.addEventListener("input", schedule);
  form.addEventListener("change", schedule);
  const errors = document.getElementById("form-errors");
  if (errors) errors.focus();
})();
