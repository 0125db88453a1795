// Draws the weekly trend per label with its confidence band from the JSON the page embeds.
(function () {
  const source = document.getElementById("trend-data");
  const canvas = document.getElementById("trend-chart");
  if (!source || !canvas || typeof Chart === "undefined") return;
  const trends = JSON.parse(source.textContent);
  const palette = ["#0b5cad", "#b35c00", "#116329", "#8250df", "#a40e26", "#1b7c83"];
  const weeks = [...new Set(Object.values(trends).flatMap((t) => t.cumulative.map((p) => p.week)))].sort();
  const datasets = [];
  // A single week has no line to draw: each label is its value with the 95% interval as a bar around it.
  const single = weeks.length === 1;
  Object.entries(trends).forEach(([label, series], i) => {
    const colour = palette[i % palette.length];
    const byWeek = Object.fromEntries(series.cumulative.map((p) => [p.week, p]));
    const pick = (key) => weeks.map((w) => (byWeek[w] && byWeek[w][key] !== null ? byWeek[w][key] : null));
    if (single) {
      const [low, high] = [pick("ci_low")[0], pick("ci_high")[0]];
      if (low !== null && high !== null) {
        datasets.push({ type: "bar", label: `${label} 95% interval`, data: [[low, high]], backgroundColor: colour + "44",
                        borderColor: colour, borderWidth: 1, barPercentage: 0.25, hiddenLegend: true });
      }
      datasets.push({ type: "line", label, data: pick("value"), borderColor: colour, backgroundColor: colour,
                      pointRadius: 6, pointStyle: "rectRot", showLine: false, n: pick("n_units") });
      return;
    }
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

// Draws the rater × rater table of the label chosen in #pair-label from the page's JSON: a real table
// (header cells with scope) so screen readers read it as the server-rendered tables are read.
(function () {
  const source = document.getElementById("pair-data");
  const select = document.getElementById("pair-label");
  const holder = document.getElementById("pair-heatmap");
  if (!source || !select || !holder) return;
  const heatmaps = JSON.parse(source.textContent);

  // As the template filter heat_colour: red (<= 0) through yellow to green (1); grey when undefined.
  const colour = (value) => (value === null ? "#eaeef2" : `hsl(${Math.trunc(120 * Math.max(0, Math.min(1, value)))}, 70%, 80%)`);
  const element = (tag, attributes, text) => {
    const node = document.createElement(tag);
    Object.entries(attributes || {}).forEach(([k, v]) => node.setAttribute(k, v));
    if (text !== undefined) node.textContent = text;
    return node;
  };

  function draw(label) {
    const heat = heatmaps[label];
    const people = heat.raters;
    const lookup = new Map();
    heat.cells.forEach(([i, j, value, n, reason]) => {
      lookup.set(`${i},${j}`, { value, n, reason });
      lookup.set(`${j},${i}`, { value, n, reason });
    });
    const table = element("table", { class: "heatmap", "data-label": label });
    table.appendChild(element("caption", { class: "visually-hidden" }, `Rater pairs for ${label}`));
    const head = element("tr");
    head.appendChild(element("th"));
    people.forEach((name) => head.appendChild(element("th", { scope: "col" }, name)));
    table.appendChild(element("thead")).appendChild(head);
    const body = table.appendChild(element("tbody"));
    people.forEach((a, i) => {
      const row = body.appendChild(element("tr"));
      row.appendChild(element("th", { scope: "row" }, a));
      people.forEach((b, j) => {
        const cell = lookup.get(`${i},${j}`);
        if (!cell) { row.appendChild(element("td")); return; }
        const td = element("td", {
          style: `background: ${colour(cell.value)}`,
          title: `${a} × ${b}: n = ${cell.n} shared units${cell.reason ? `; ${cell.reason}` : ""}`,
        }, cell.value === null ? "–" : cell.value.toFixed(2));
        td.appendChild(element("br"));
        td.appendChild(element("small", {}, `n=${cell.n}`));
        row.appendChild(td);
      });
    });
    holder.replaceChildren(table);
    holder.dataset.drawn = label;
  }

  select.addEventListener("change", () => draw(select.value));
  draw(select.value);
})();
