// Item upload with a progress bar: the browser's upload progress, then the server's import job, polled at
// /api/v1/jobs/{id}/; a refused file shows its bad lines. Without this script the form posts as usual.
(function () {
  const form = document.getElementById("upload-form");
  if (!form || !window.XMLHttpRequest) return;
  const box = document.getElementById("upload-status");
  const bar = document.getElementById("upload-progress");
  const phase = document.getElementById("upload-phase");
  const message = document.getElementById("upload-message");
  const errors = document.getElementById("upload-errors");
  const button = form.querySelector("button[type=submit]");
  const POLL_MS = 500;

  function show(label, share, state) {
    box.hidden = false;
    phase.textContent = label;
    bar.value = Math.round(100 * share);
    bar.dataset.state = state;
  }

  function refuse(detail, rows) {
    errors.hidden = false;
    document.getElementById("errors-detail").textContent = detail;
    const body = document.getElementById("errors-body");
    body.replaceChildren(...(rows || []).map((row) => {
      const tr = document.createElement("tr");
      const field = row.field ? Object.assign(document.createElement("code"), { textContent: row.field }) : "—";
      [row.line, field, row.problem].forEach((value) => {
        const td = document.createElement("td");
        td.append(value);
        tr.append(td);
      });
      return tr;
    }));
    message.textContent = detail;
    bar.dataset.state = "failed";
    button.disabled = false;
    errors.querySelector("h2").focus();
  }

  function poll(job) {
    fetch(job.job_url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((response) => response.json())
      .then((state) => {
        if (state.state === "success") {
          show("Import finished", 1, "done");
          message.replaceChildren(`Imported ${state.result.imported} items. `,
            Object.assign(document.createElement("a"), { href: job.items_url, textContent: "Browse the items" }));
          button.disabled = false;
        } else if (state.state === "failure") {
          show("Import refused", 1, "failed");
          const result = state.result || {};
          refuse(result.detail || state.error || "The import failed.", result.errors);
        } else {
          show(`Importing on the server: ${Math.round(100 * state.progress)}%`, state.progress, "importing");
          message.textContent = state.message || "Checking every line…";
          setTimeout(() => poll(job), POLL_MS);
        }
      })
      .catch(() => refuse("Lost contact with the server while importing; reload the page to see the items.", []));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    errors.hidden = true;
    button.disabled = true;
    message.textContent = "";
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) show(`Uploading: ${Math.round((100 * e.loaded) / e.total)}%`, e.loaded / e.total,
                                   "uploading");
    });
    xhr.addEventListener("load", () => {
      let body = {};
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = { detail: `The server answered ${xhr.status}.` }; }
      if (xhr.status === 202) {
        show("Importing on the server: 0%", 0, "importing");
        poll(body);
      } else {
        show("Upload refused", 1, "failed");
        refuse(body.detail || `The server answered ${xhr.status}.`, body.errors);
      }
    });
    xhr.addEventListener("error", () => refuse("The upload failed: check the connection and try again.", []));
    show("Uploading: 0%", 0, "uploading");
    xhr.send(new FormData(form));
  });
})();
