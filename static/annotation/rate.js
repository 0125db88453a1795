/* Keyboard-first rating screens (likert radios, pairwise A/tie/B, rankme sliders, error-span widgets). Plain
 * JS, no dependencies: the form works without it; this adds the keys, the "every question answered" check
 * (saying which are left, and going to the first), sliders without a starting value, the client-measured
 * duration, and screen-to-screen without waiting for the server: the screen after this one is leased ahead
 * and held here, so sending swaps it in at once while the answers go out in the background, and their
 * response brings the screen after that. Without a screen ahead (revisions, the last screen, after a
 * training screen) the answers are posted in the background and the response, the next screen, is put in
 * place of this one.
 *
 * A question that is a widget of its own (fieldset.q[data-widget]) keeps its keys: it is answered when the
 * element inside it marked data-complete says "true", tells a change by an event that bubbles, and is entered at
 * its element marked data-first. Each new
 * screen is announced with a "rate:screen" event on the document (detail: the form), for widgets to set up. */
(function () {
  "use strict";
  var STEP_KEYS = { ArrowRight: 1, ArrowUp: 1, PageUp: 1, End: 1, ArrowLeft: -1, ArrowDown: -1, PageDown: -1, Home: -1 };
  var RETRIES = [500, 2000];  // ms before each new try of answers sent behind a screen already swapped in
  var s = null;  // the screen now shown: {form, task, servedAt, status, submit, groups, sending}
  // A promise of the screen leased ahead of this one ({main, title}), or of null when there is none;
  // null itself where this screen has no screen ahead (a revision, a preview).
  var ahead = null;

  function radios(g) { return Array.prototype.slice.call(g.querySelectorAll("input[type=radio]")); }
  function isSlider(g) { return g.classList.contains("slider"); }
  // RankME with a modulus: the slider moves over log10 of the score; the number is any positive score.
  function isLog(g) { return g.dataset.scale === "log"; }
  function isWidget(g) { return g.hasAttribute("data-widget"); }

  function numberOk(g, n) {
    return n.value !== "" && n.checkValidity() && (!isLog(g) || Number(n.value) > 0);
  }

  function answered(g) {
    if (isWidget(g)) {
      var state = g.querySelector("[data-complete]");
      return !!state && state.dataset.complete === "true";
    }
    if (isSlider(g)) {
      return !g.classList.contains("unset") && numberOk(g, g.querySelector("input[type=number]"));
    }
    return radios(g).some(function (r) { return r.checked; });
  }

  function unanswered() { return s.groups.filter(function (g) { return !answered(g); }); }

  function refresh() {
    s.groups.forEach(function (g) {
      var done = answered(g);
      g.classList.toggle("answered", done);
      if (done) g.classList.remove("missing");
    });
    var left = unanswered().length;
    if (!s.status.classList.contains("missing") || !left) {
      s.status.classList.remove("missing");
      s.status.textContent = left ? left + (left === 1 ? " question" : " questions") + " left."
                                  : "Every question is answered: press Enter to submit.";
    } else {
      s.status.textContent = missingText(unanswered());
    }
    return left;
  }

  function missingText(open) {
    var names = open.map(function (g) { return g.dataset.name; });
    var shown = names.slice(0, 3).join(", ") + (names.length > 3 ? " and " + (names.length - 3) + " more" : "");
    return "Not sent: " + names.length + (names.length === 1 ? " question is" : " questions are") +
      " still open: " + shown + ".";
  }

  function focusGroup(g, scroll) {
    if (!g) return;
    var target = isWidget(g) ? (g.querySelector("[data-first]") || g.querySelector("[tabindex]"))
      : isSlider(g) ? g.querySelector("input[type=range]")
      : (radios(g).filter(function (r) { return r.checked; })[0] || radios(g)[0]);
    target.focus({ preventScroll: true });
    g.scrollIntoView({ block: scroll || "nearest" });
  }

  function currentGroup() {
    return s.groups.filter(function (g) { return g.contains(document.activeElement); })[0];
  }

  function nextUnanswered(after) {
    var start = after ? s.groups.indexOf(after) + 1 : 0;
    var rest = s.groups.slice(start).concat(s.groups.slice(0, start));
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
    if (next) focusGroup(next); else s.submit.focus();
    return true;
  }

  function trySubmit() {
    if (s.sending || s.submit.disabled) return false;
    refresh();
    var open = unanswered();
    if (open.length) {
      open.forEach(function (g) { g.classList.add("missing"); });
      s.status.classList.add("missing");
      s.status.textContent = missingText(open);
      focusGroup(open[0], "center");
      return false;
    }
    s.form.elements.duration_ms.value = String(Date.now() - s.servedAt);
    s.sending = true;
    s.submit.disabled = true;  // a double press must not send twice (the server would answer 200 anyway)
    var form = s.form;
    if (!ahead) { send(form); return true; }
    ahead.then(function (held) {
      if (s === null || s.form !== form) return;  // an answer shown meanwhile (an error, a refusal) replaced it
      if (!held) { send(form); return; }
      var body = new FormData(form);
      show(held, form.dataset.nextUrl, true);
      ahead = post(form.action, body, "ahead", form.dataset.nextUrl, 0);
    });
    return true;
  }

  function page(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    return { main: doc.querySelector("main"), title: doc.title };
  }

  // ``fromMemory``: the screen was leased ahead and held here; its lease starts when it is shown.
  function show(shown, url, fromMemory) {
    document.title = shown.title;
    document.querySelector("main").replaceWith(document.adoptNode(shown.main));
    window.history.replaceState(null, "", url);
    window.scrollTo(0, 0);
    start(fromMemory);
    var first = document.querySelector("main [autofocus]");
    if (!s && first) first.focus();
  }

  // Answers sent behind a screen already swapped in ("ahead"), or a page load's request for the screen ahead
  // (body null). The promise gives the screen after the one shown, or null; any other answer (the screen sent
  // again with its errors, a refusal, the training feedback) is shown at once. A network failure is tried
  // again (the client token makes a repeat harmless); after the last try the rater's current screen is
  // loaded, which is the unanswered one if its answers never arrived.
  function post(url, body, mode, nextUrl, attempt) {
    var headers = { "X-Concord-Next": mode };
    if (!body) {
      headers["X-CSRFToken"] = s.form.elements.csrfmiddlewaretoken.value;
    }
    return fetch(url, { method: "POST", body: body, credentials: "same-origin", headers: headers })
      .then(function (response) {
        if (response.headers.get("X-Concord-Screen") === "ahead") {
          return response.text().then(page);
        }
        if (!body || response.status === 204) return null;
        if (response.redirected) { window.location.assign(response.url); return null; }
        return response.text().then(function (html) {
          var answer = page(html);
          if (answer.main) show(answer, nextUrl, false); else window.location.assign(nextUrl);
          return null;
        });
      }, function () {
        if (!body) return null;
        if (attempt >= RETRIES.length) { window.location.assign(nextUrl); return null; }
        return new Promise(function (resolve) { window.setTimeout(resolve, RETRIES[attempt]); })
          .then(function () { return post(url, body, mode, nextUrl, attempt + 1); });
      });
  }

  // The answers go in the background; the response is the next screen (or this one again with the
  // reasons it was refused, the training feedback, the end), shown in place. Anything else, or a
  // network failure, falls back to the plain form post.
  function send(form) {
    var nextUrl = form.dataset.nextUrl;
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin",
                         headers: { "X-Concord-Next": "inline" } })
      .then(function (response) {
        if (response.redirected) { window.location.assign(response.url); return null; }
        return response.text();
      })
      .then(function (html) {
        if (html === null) return;
        var answer = page(html);
        if (!answer.main) { HTMLFormElement.prototype.submit.call(form); return; }
        show(answer, nextUrl, false);
      })
      .catch(function () { HTMLFormElement.prototype.submit.call(form); });
  }

  // An unset linear slider has no value to start from: the first step puts it at the end it moves away from.
  function startSliderFromEnd(e, g, range) {
    if (!g.classList.contains("unset") || isLog(g) || !(e.key in STEP_KEYS)) return;
    e.preventDefault();
    range.value = STEP_KEYS[e.key] > 0 ? range.min : range.max;
    range.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function wireSlider(g) {
    var range = g.querySelector("input[type=range]");
    var number = g.querySelector("input[type=number]");
    range.addEventListener("keydown", function (e) { startSliderFromEnd(e, g, range); });
    range.addEventListener("input", function () {
      // three significant digits: 102, not 102.32929922807544
      number.value = isLog(g) ? String(Number(Math.pow(10, range.value).toPrecision(3))) : range.value;
      range.removeAttribute("aria-valuetext");
      g.classList.remove("unset");
      refresh();
    });
    number.addEventListener("input", function () {
      if (numberOk(g, number)) {
        range.value = isLog(g) ? Math.log10(Number(number.value)) : number.value;
        range.removeAttribute("aria-valuetext");
        g.classList.remove("unset");
      } else {
        g.classList.add("unset");
      }
      refresh();
    });
  }

  // [value, as a point] a key picks in a group: from the group's own keys (data-keys, which its task type's
  // template declares), else a digit picks that point of the scale.
  function keyChoice(g, key) {
    if (g.dataset.keys) {
      var value = JSON.parse(g.dataset.keys)[key];
      return value ? [value, false] : null;
    }
    return /^[0-9]$/.test(key) ? [key, true] : null;
  }

  function start(fromMemory) {
    var form = document.getElementById("rate-form");
    if (!form) { s = null; ahead = null; return; }
    document.dispatchEvent(new CustomEvent("rate:screen", { detail: form }));
    s = { form: form, servedAt: Date.now(), sending: false,
          status: document.getElementById("rate-status"), submit: document.getElementById("rate-submit"),
          groups: Array.prototype.slice.call(form.querySelectorAll("fieldset.q")) };
    s.groups.forEach(function (g) {
      if (isSlider(g)) wireSlider(g); else g.addEventListener("change", refresh);
      if (isWidget(g)) g.addEventListener("error-spans:change", refresh);
    });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      trySubmit();
    });
    refresh();
    if (!document.querySelector("#errors")) focusGroup(nextUnanswered(null) || s.groups[0]);
    else focusGroup(nextUnanswered(null));
    if (fromMemory) {
      var lease = form.querySelector("[data-lease-seconds]");
      if (lease) {
        lease.textContent = new Date(Date.now() + 1000 * Number(lease.dataset.leaseSeconds))
          .toISOString().slice(11, 16);
      }
    } else {
      ahead = form.dataset.aheadUrl ? post(form.dataset.aheadUrl, null, "ahead", form.dataset.nextUrl, 0) : null;
    }
    document.documentElement.dataset.screen = form.elements.client_token.value;  // which screen is up (tests)
  }

  document.addEventListener("keydown", function (e) {
    if (!s || e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    var t = e.target;
    if (!s.form.contains(t) && t !== document.body) return;  // the flag form keeps its keys
    if (t.classList && t.classList.contains("transcript") && e.key !== "Enter") return;  // it scrolls with the keys
    var inWidget = s.groups.some(function (g) { return isWidget(g) && g.contains(t); });
    if (inWidget && (e.key !== "Enter" || t.tagName === "BUTTON" || t.tagName === "SELECT")) return;
    var g = currentGroup() || nextUnanswered(null) || s.groups[0];
    if (e.key === "Enter") {
      e.preventDefault();
      trySubmit();
      return;
    }
    var typing = t.type === "number";
    if (!typing && (e.key === "ArrowDown" || e.key === "ArrowUp") && g && !isSlider(g)) {
      e.preventDefault();
      var i = s.groups.indexOf(g) + (e.key === "ArrowDown" ? 1 : -1);
      focusGroup(s.groups[Math.max(0, Math.min(s.groups.length - 1, i))]);
      return;
    }
    if (typing || !g || isSlider(g)) return;
    var key = e.key.toLowerCase();
    var pick = keyChoice(g, key);
    if (pick && choose(g, pick[0], pick[1])) e.preventDefault();
  });

  start(false);
})();
