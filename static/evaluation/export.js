// Follows a running export job: polls /api/v1/jobs/{id}/ and moves the progress bar until the zip is ready.
(function () {
  const box = document.getElementById("export-progress");
  if (!box || !box.dataset.jobUrl || box.dataset.state === "ready" || box.dataset.state === "failure") return;
  const bar = document.getElementById("export-bar");
  const status = document.getElementById("export-status");
  const link = document.getElementById("export-link");
  async function poll() {
    let job;
    try {
      const response = await fetch(box.dataset.jobUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      job = await response.json();
    } catch (error) {
      status.textContent = `Could not read the job's progress (${error.message}); retrying…`;
      setTimeout(poll, 3000);
      return;
    }
    bar.value = job.progress;
    if (job.state === "success") {
      bar.value = 1;
      status.textContent = "Ready.";
      if (job.result && job.result.download) link.querySelector("a").href = job.result.download;
      link.hidden = false;
      return;
    }
    if (job.state === "failure") {
      status.textContent = `Failed: ${job.error}`;
      return;
    }
    status.textContent = job.message || (job.state === "pending" ? "Waiting for a worker…" : "Working…");
    setTimeout(poll, 1000);
  }
  poll();
})();
