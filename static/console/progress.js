// Draws judgments and screens per day from the JSON the page embeds, and refreshes the counts and the chart
// from the progress summary API every 30 seconds.
(function () {
  const REFRESH_MS = 30000;
  const source = document.getElementById("per-day-data");
  const canvas = document.getElementById("per-day-chart");
  const summary = document.getElementById("progress-summary");
  let chart = null;

  function draw(days) {
    if (!canvas || typeof Chart === "undefined") return;
    const labels = days.map((d) => d.day);
    const judgments = days.map((d) => d.judgments);
    const screens = days.map((d) => d.screens);
    if (chart) {
      chart.data.labels = labels;
      chart.data.datasets[0].data = judgments;
      chart.data.datasets[1].data = screens;
      chart.update();
      return;
    }
    chart = new Chart(canvas, {
      type: "bar",
      data: {
        labels,
        datasets: [
          { label: "Judgments", data: judgments, backgroundColor: "#0b5cad" },
          { label: "Screens", data: screens, backgroundColor: "#b35c00" },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } }, x: { title: { display: true, text: "day (UTC)" } } },
      },
    });
    canvas.dataset.drawn = "true";
  }

  function refresh() {
    fetch(summary.dataset.summaryUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
      .then((data) => {
        const values = { ...data.items, leases_active: data.leases.n_active,
                         generated_at: new Date(data.generated_at).toISOString().slice(11, 19) };
        document.querySelectorAll("[data-key]").forEach((el) => {
          const value = values[el.dataset.key];
          if (value !== undefined) el.textContent = value === null ? "0" : value;
        });
        const bar = document.getElementById("slots-bar");
        bar.max = data.items.slots_target || 1;
        bar.value = data.items.slots_filled;
        if (data.per_day.length) draw(data.per_day);
      })
      .catch(() => {});
  }

  if (source) draw(JSON.parse(source.textContent));
  if (summary) setInterval(refresh, REFRESH_MS);
})();
