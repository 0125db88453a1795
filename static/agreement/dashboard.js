// Draws the weekly trend per label with its confidence band from the JSON the page embeds.
(function () {
  const source = document.getElementById("trend-data");
  const canvas = document.getElementById("trend-chart");
  if (!source || !canvas || typeof Chart === "undefined") return;
  const trends = JSON.parse(source.textContent);
  const palette = ["#0b5cad", "#b35c00", "#116329", "#8250df", "#a40e26", "#1b7c83"];
  const weeks = [...new Set(Object.values(trends).flatMap((t) => t.cumulative.map((p) => p.week)))].sort();
  const datasets = [];
  Object.entries(trends).forEach(([label, series], i) => {
    const colour = palette[i % palette.length];
    const byWeek = Object.fromEntries(series.cumulative.map((p) => [p.week, p]));
    const pick = (key) => weeks.map((w) => (byWeek[w] && byWeek[w][key] !== null ? byWeek[w][key] : null));
    datasets.push({ label: `${label} CI low`, data: pick("ci_low"), borderWidth: 0, pointRadius: 0, fill: false,
                    backgroundColor: colour + "22", hiddenLegend: true });
    datasets.push({ label: `${label} CI high`, data: pick("ci_high"), borderWidth: 0, pointRadius: 0, fill: "-1",
                    backgroundColor: colour + "22", hiddenLegend: true });
    datasets.push({ label, data: pick("value"), borderColor: colour, backgroundColor: colour, tension: 0.2,
                    spanGaps: true, n: pick("n_units") });
  });
  new Chart(canvas, {
    type: "line",
    data: { labels: weeks, datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: { y: { suggestedMin: 0, suggestedMax: 1, title: { display: true, text: "coefficient (cumulative)" } } },
      plugins: {
        legend: { labels: { filter: (item, data) => !data.datasets[item.datasetIndex].hiddenLegend } },
        tooltip: {
          filter: (item) => !item.dataset.hiddenLegend,
          callbacks: { afterLabel: (item) => `n = ${item.dataset.n[item.dataIndex]} units` },
        },
      },
    },
  });
  canvas.dataset.drawn = "true";
})();
