/* Keyboard-first rating screens (likert radios, pairwise A/tie/B, rankme sliders). Plain JS, no
 * dependencies: the form works without it; this adds the keys, the "every question answered" check
 * and the client-measured duration. */
(function () {
  "use strict";
  var form = document.getElementById("rate-form");
  if (!form) return;
  var task = form.dataset.task;
  var servedAt = Date.now();
  var status = document.getElementById("rate-status");
  var submit = document.getElementById("rate-submit");
  var groups = Array.prototype.slice.call(form.querySelectorAll("fieldset.q"));
  var PAIRWISE_KEYS = { a: "A", "1": "A", t: "tie", "0": "tie", b: "B", "2": "B" };

  function radios(g) { return Array.prototype.slice.call(g.querySelectorAll("input[type=radio]")); }
  function isSlider(g) { return g.classList.contains("slider"); }
  // RankME with a modulus: the slider moves over log10 of the score; the number is any positive score.
  function isLog(g) { return g.dataset.scale === "log"; }

  function numberOk(g, n) {
    return n.value !== "" && n.checkValidity() && (!isLog(g) || Number(n.value) > 0);
  }

  function answered(g) {
    if (isSlider(g)) {
      return !g.classList.contains("unset") && numberOk(g, g.querySelector("input[type=number]"));
    }
    return radios(g).some(function (r) { return r.checked; });
  }

  function unanswered() { return groups.filter(function (g) { return !answered(g); }); }

  function refresh() {
    groups.forEach(function (g) { g.classList.toggle("answered", answered(g)); });
    var left = unanswered().length;
    status.textContent = left ? left + (left === 1 ? " question" : " questions") + " left."
                              : "Every question is answered: press Enter to submit.";
    return left;
  }

  function focusGroup(g) {
    if (!g) return;
    var target = isSlider(g) ? g.querySelector("input[type=range]")
      : (radios(g).filter(function (r) { return r.checked; })[0] || radios(g)[0]);
    target.focus();
    g.scrollIntoView({ block: "nearest" });
  }

  function currentGroup() {
    return groups.filter(function (g) { return g.contains(document.activeElement); })[0];
  }

  function nextUnanswered(after) {
    var start = after ? groups.indexOf(after) + 1 : 0;
    var rest = groups.slice(start).concat(groups.slice(0, start));
    return rest.filter(function (g) { return !answered(g); })[0];
  }

  function choose(g, value, byIndex) {
    var options = radios(g);
    var pick = options.filter(function (r) { return r.value === value; })[0];
    if (!pick && byIndex) pick = options[parseInt(value, 10) - 1];
    if (!pick) return false;
    pick.checked = true;
    refresh();
    var next = nextUnanswered(g);
    if (next) focusGroup(next); else submit.focus();
    return true;
  }

  function trySubmit() {
    var left = refresh();
    if (left) {
      focusGroup(unanswered()[0]);
      return false;
    }
    form.elements.duration_ms.value = String(Date.now() - servedAt);
    submit.disabled = true;  // a double press must not send twice (the server would answer 200 anyway)
    HTMLFormElement.prototype.submit.call(form);
    return true;
  }

  groups.forEach(function (g) {
    if (!isSlider(g)) {
      g.addEventListener("change", refresh);
      return;
    }
    var range = g.querySelector("input[type=range]");
    var number = g.querySelector("input[type=number]");
    range.addEventListener("input", function () {
      // three significant digits: 102, not 102.32929922807544
      number.value = isLog(g) ? String(Number(Math.pow(10, range.value).toPrecision(3))) : range.value;
      g.classList.remove("unset");
      refresh();
    });
    number.addEventListener("input", function () {
      if (numberOk(g, number)) {
        range.value = isLog(g) ? Math.log10(Number(number.value)) : number.value;
        g.classList.remove("unset");
      } else {
        g.classList.add("unset");
      }
      refresh();
    });
  });

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    if (!form.contains(t) && t !== document.body) return;  // the flag form keeps its keys
    var g = currentGroup() || nextUnanswered(null) || groups[0];
    if (e.key === "Enter") {
      e.preventDefault();
      trySubmit();
      return;
    }
    var typing = t.type === "number";
    if (!typing && (e.key === "ArrowDown" || e.key === "ArrowUp") && g && !isSlider(g)) {
      e.preventDefault();
      var i = groups.indexOf(g) + (e.key === "ArrowDown" ? 1 : -1);
      focusGroup(groups[Math.max(0, Math.min(groups.length - 1, i))]);
      return;
    }
    if (typing || !g || isSlider(g)) return;
    var key = e.key.toLowerCase();
    if (task === "pairwise" && PAIRWISE_KEYS[key]) {
      if (choose(g, PAIRWISE_KEYS[key], false)) e.preventDefault();
    } else if (task !== "pairwise" && /^[0-9]$/.test(key)) {
      if (choose(g, key, true)) e.preventDefault();
    }
  });

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    trySubmit();
  });

  refresh();
  if (!document.querySelector("#errors")) focusGroup(nextUnanswered(null) || groups[0]);
  else focusGroup(nextUnanswered(null));
})();
