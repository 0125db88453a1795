/* Error-span marking (ESA and MQM) for one output, optionally its source. Plain JS, no dependencies.
 *
 * <div class="error-spans" data-config='{"protocol": "mqm", "input": "error_spans", ...}'>
 *   <div data-text="source">source text</div>   (optional: source-side errors are marked on it)
 *   <div data-text="output">output text</div>
 * </div>
 *
 * The rater selects a span with the mouse (or touch) or with the keyboard alone (focus a text, arrows
 * move a caret, Shift+arrows extend, Enter marks), picks the severity (and in MQM the category), can
 * edit or delete it, or mark the segment as having no error; ESA adds a 0-100 score. Offsets count
 * Unicode code points ([start, end), as Python's str indexes them), never UTF-16 units. The state is
 * written as JSON to a hidden input named by the config, so a plain form POST carries it; the widget
 * is told nothing about gold or controls and writes nothing but the rater's own marks. */
(function () {
  "use strict";

  var DEFAULT_TYPOLOGY = [
    { name: "Accuracy", children: ["Addition", "Omission", "Mistranslation", "Untranslated text"] },
    { name: "Fluency", children: ["Punctuation", "Spelling", "Grammar", "Register", "Inconsistency",
                                  "Character encoding"] },
    { name: "Terminology", children: ["Inappropriate for context", "Inconsistent use"] },
    { name: "Style", children: ["Awkward"] },
    { name: "Locale convention", children: ["Address format", "Currency format", "Date format", "Name format",
                                            "Telephone format", "Time format"] },
    { name: "Other" },
    { name: "Non-translation", whole_segment: true },
    { name: "Source error", source: true },
  ];
  var SEVERITIES = { esa: ["minor", "major"], mqm: ["minor", "major", "critical"] };
  var STATUSES = ["proposed", "accepted", "edited", "rejected", "added"];

  function capital(s) { return s.charAt(0).toUpperCase() + s.slice(1); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text != null) e.textContent = text;
    return e;
  }
  function button(label, cls, onClick) {
    var b = el("button", { type: "button", "class": cls }, label);
    b.addEventListener("click", onClick);
    return b;
  }
  function codePoints(s) { return Array.from(s); }

  // Caret stops in code points: grapheme cluster boundaries, so that the keys never split an emoji or
  // a letter from its accents (offsets are still counted in code points).
  function stops(cps) {
    var out = [0];
    if (typeof Intl !== "undefined" && Intl.Segmenter) {
      var at = 0;
      Array.from(new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(cps.join(""))).forEach(function (g) {
        at += codePoints(g.segment).length;
        out.push(at);
      });
    } else {
      for (var i = 1; i <= cps.length; i++) out.push(i);
    }
    return out;
  }

  function typologyCategories(typology) {
    var out = { leaves: [], wholeSegment: null, source: null };
    typology.forEach(function (node) {
      if (node.whole_segment) out.wholeSegment = node.name;
      else if (node.source) out.source = node.name;
      else if (node.children && node.children.length) {
        out.leaves.push({ group: node.name, names: node.children.map(function (c) { return node.name + "/" + c; }) });
      } else out.leaves.push({ group: null, names: [node.name] });
    });
    return out;
  }

  function ErrorSpans(root) {
    var config = JSON.parse(root.dataset.config || "{}");
    var protocol = config.protocol === "mqm" ? "mqm" : "esa";
    if (!config.input) throw new Error("error-spans: the config needs the hidden input's name (input)");
    var w = {
      root: root,
      protocol: protocol,
      severities: config.severities || SEVERITIES[protocol],
      typology: typologyCategories(protocol === "mqm" ? (config.typology || DEFAULT_TYPOLOGY) : []),
      texts: {},
      spans: [],
      noError: false,
      score: null,
      sel: null,        // {side, anchor, caret} in code points; anchor === caret: no selection
      editing: null,    // the span being edited
      nextId: 0,
    };
    w.category = "";  // MQM: chosen for each span, never carried over unseen
    root.classList.add("es-ready");
    ["source", "output"].forEach(function (side) {
      var node = root.querySelector("[data-text=" + side + "]");
      if (!node || (side === "source" && !(protocol === "mqm" && w.typology.source))) return;
      var cps = codePoints(node.textContent);
      w.texts[side] = { node: node, cps: cps, stops: stops(cps), side: side === "output" ? "target" : "source" };
      setUpText(w, w.texts[side], side);
    });
    if (!w.texts.output) throw new Error("error-spans: no [data-text=output] element");
    w.input = root.querySelector("input[type=hidden][name='" + config.input + "']");
    if (!w.input) {
      w.input = el("input", { type: "hidden", name: config.input });
      root.appendChild(w.input);
    }
    (config.prefilled || []).forEach(function (p, k) {
      var side = p.side === "source" ? "source" : "target";
      if (!fits(w, side, p.start, p.end) || w.severities.indexOf(p.severity) < 0) {
        console.error("error-spans: prefilled span " + k + " is not within its text or has an unknown severity");
        return;
      }
      w.spans.push({ id: w.nextId++, side: side, start: p.start, end: p.end, severity: p.severity,
                     category: protocol === "mqm" ? (p.category || null) : null, status: "proposed", proposed: k });
    });
    buildPanel(w, config);
    restore(w);
    render(w);
    return w;
  }

  // A re-rendered form (e.g. after a server-side error) gives back the posted state in the input.
  function restore(w) {
    if (!w.input.value) return;
    var saved;
    try { saved = JSON.parse(w.input.value); } catch (e) { return; }
    if (!saved || saved.protocol !== w.protocol || !Array.isArray(saved.spans)) return;
    w.spans = saved.spans.filter(function (s) {
      return STATUSES.indexOf(s.status) >= 0 && fits(w, s.side, s.start, s.end);
    }).map(function (s) {
      return { id: w.nextId++, side: s.side, start: s.start, end: s.end, severity: s.severity,
               category: s.category || null, status: s.status, proposed: s.proposed };
    });
    w.noError = !!saved.no_error;
    w.score = typeof saved.score === "number" ? saved.score : null;
  }

  function textOf(w, side) { return side === "source" ? w.texts.source : w.texts.output; }

  function fits(w, side, start, end) {
    var t = textOf(w, side);
    return !!t && Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start < end && end <= t.cps.length;
  }

  function setUpText(w, t, side) {
    var n = t.node;
    n.classList.add("es-text");
    n.setAttribute("dir", "auto");
    n.setAttribute("tabindex", "0");
    n.setAttribute("role", "textbox");
    n.setAttribute("aria-readonly", "true");
    n.setAttribute("aria-multiline", "true");
    n.setAttribute("aria-label", (side === "source" ? "Source" : "Translation") +
                   " text: arrows move, Shift+arrows select, Enter marks the selection as an error");
    n.addEventListener("keydown", function (e) { textKey(w, t, e); });
    // Focus by the mouse must not redraw the text under a starting drag; the keyboard's caret shows on
    // focus by Tab.
    n.addEventListener("mousedown", function () { t.pointerDown = true; });
    n.addEventListener("focus", function () {
      if (!w.sel || w.sel.side !== t.side) w.sel = { side: t.side, anchor: 0, caret: 0 };
      if (!t.pointerDown) render(w);
    });
    n.addEventListener("blur", function () { renderText(w, t); });
    n.addEventListener("mouseup", function (e) {
      t.pointerDown = false;
      pointerSelect(w, t, e);
    });
    // Touch selects with the platform's handles: follow the selection without redrawing the text (which
    // would drop the handles); a severity button then marks it.
    document.addEventListener("selectionchange", function () {
      if (t.pointerDown) return;
      var r = nativeRange(t);
      if (!r) return;
      w.sel = { side: t.side, anchor: r[0], caret: r[1] };
      panel(w);
    });
  }

  function nativeRange(t) {
    var ns = window.getSelection();
    if (!ns || ns.rangeCount === 0 || ns.isCollapsed) return null;
    if (!t.node.contains(ns.anchorNode) || !t.node.contains(ns.focusNode)) return null;
    var a = domToCodePoint(t, ns.anchorNode, ns.anchorOffset);
    var b = domToCodePoint(t, ns.focusNode, ns.focusOffset);
    return a === b ? null : [Math.min(a, b), Math.max(a, b)];
  }

  function selRange(sel) {
    return sel ? [Math.min(sel.anchor, sel.caret), Math.max(sel.anchor, sel.caret)] : [0, 0];
  }

  function textKey(w, t, e) {
    var sel = w.sel && w.sel.side === t.side ? w.sel : (w.sel = { side: t.side, anchor: 0, caret: 0 });
    var rtl = getComputedStyle(t.node).direction === "rtl";
    var step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    var target = null;
    if (step) {
      if (rtl) step = -step;
      var i = t.stops.indexOf(sel.caret);
      if (e.ctrlKey || e.altKey) {
        target = wordStop(t, sel.caret, step);
      } else {
        target = t.stops[Math.max(0, Math.min(t.stops.length - 1, i + step))];
      }
    } else if (e.key === "Home") target = 0;
    else if (e.key === "End") target = t.cps.length;
    if (target !== null) {
      e.preventDefault();
      sel.caret = target;
      if (!e.shiftKey) sel.anchor = target;
      render(w);
      return;
    }
    if (e.key === "Enter") {
      e.preventDefault();
      var r = selRange(sel);
      if (r[0] === r[1]) {
        say(w, "Nothing selected: hold Shift and use the arrow keys to select, then press Enter.");
        return;
      }
      focusChoice(w);
    } else if (e.key === "Escape") {
      e.preventDefault();
      cancel(w);
    }
  }

  // Ctrl+arrow: to the next word start (forward) or the previous one (back), over spaces.
  function wordStop(t, at, step) {
    var space = function (k) { return /\s/u.test(t.cps[k] || " "); };
    var k = at;
    if (step > 0) {
      while (k < t.cps.length && !space(k)) k++;
      while (k < t.cps.length && space(k)) k++;
    } else {
      while (k > 0 && space(k - 1)) k--;
      while (k > 0 && !space(k - 1)) k--;
    }
    return k;
  }

  // A DOM position (node, UTF-16 offset) in a rendered text, as a code-point offset.
  function domToCodePoint(t, node, offset) {
    if (node.nodeType !== Node.TEXT_NODE) {
      if (node === t.node) {
        var kids = node.childNodes;
        for (var k = offset; k < kids.length; k++) {  // the caret mark holds no text: the next piece
          if (kids[k].dataset && kids[k].dataset.s !== undefined) return Number(kids[k].dataset.s);
        }
        return t.cps.length;
      }
      var p = node.closest ? node.closest("[data-s]") : null;
      return p ? Number(p.dataset.s) + (offset > 0 ? codePoints(p.textContent).length : 0) : 0;
    }
    var piece = node.parentNode.closest("[data-s]");
    if (!piece || !t.node.contains(piece)) return 0;
    return Number(piece.dataset.s) + codePoints(node.data.slice(0, offset)).length;
  }

  function pointerSelect(w, t, e) {
    var r = nativeRange(t);
    if (!r) {
      var mark = e && e.target.closest ? e.target.closest("[data-span]") : null;
      if (mark && window.getSelection().isCollapsed) focusSpanItem(w, Number(mark.dataset.span));
      return;
    }
    window.getSelection().removeAllRanges();
    w.sel = { side: t.side, anchor: r[0], caret: r[1] };
    focusChoice(w);
  }

  // --- the panel: selection, category, severity; the list of spans; no error; ESA score ----------------

  function buildPanel(w, config) {
    var p = el("div", { "class": "es-panel" });
    var keys = el("p", { "class": "es-keys" });
    keys.innerHTML = "Mark an error: select it with the mouse, or focus the text and use <kbd>←</kbd> <kbd>→</kbd> " +
      "to move, <kbd>Shift</kbd>+<kbd>←</kbd>/<kbd>→</kbd> to select (<kbd>Ctrl</kbd> by word, " +
      "<kbd>Home</kbd>/<kbd>End</kbd>), <kbd>Enter</kbd> to mark it, <kbd>Esc</kbd> to cancel.";
    p.appendChild(keys);
    w.choice = el("div", { "class": "es-choice", role: "group", "aria-label": "Mark the selection" });
    w.status = el("p", { "class": "es-status", "aria-live": "polite" });
    w.choice.appendChild(w.status);
    if (w.protocol === "mqm") {
      var label = el("label", { "class": "es-category" }, "Category ");
      w.categorySelect = el("select", { "class": "es-category-select" });
      w.categorySelect.appendChild(el("option", { value: "" }, "Choose a category…"));
      w.typology.leaves.forEach(function (leaf) {
        var parent = w.categorySelect;
        if (leaf.group) {
          parent = el("optgroup", { label: leaf.group });
          w.categorySelect.appendChild(parent);
        }
        leaf.names.forEach(function (name) {
          var o = el("option", { value: name }, leaf.group ? leaf.group + " › " + name.slice(leaf.group.length + 1) : name);
          parent.appendChild(o);
        });
      });
      w.categorySelect.addEventListener("change", function () {
        w.category = w.categorySelect.value;
        panel(w);
      });
      label.appendChild(w.categorySelect);
      w.choice.appendChild(label);
    }
    w.severityRow = el("div", { "class": "es-severities" });
    w.severities.forEach(function (sev) {
      var b = button(capital(sev), "es-severity es-sev-" + sev, function () { commit(w, sev); });
      b.dataset.severity = sev;
      w.severityRow.appendChild(b);
    });
    w.severityRow.appendChild(button("Cancel", "es-cancel secondary", function () { cancel(w); }));
    w.choice.appendChild(w.severityRow);
    w.choice.addEventListener("keydown", function (e) {
      if (e.key === "Escape") {
        e.preventDefault();
        cancel(w);
      }
    });
    p.appendChild(w.choice);

    var whole = el("div", { "class": "es-whole" });
    if (w.typology.wholeSegment) {
      w.wholeButton = button("Whole segment: " + w.typology.wholeSegment, "es-non-translation secondary",
                             function () { toggleWholeSegment(w); });
      whole.appendChild(w.wholeButton);
    }
    var noErr = el("label", { "class": "es-no-error" });
    w.noErrorBox = el("input", { type: "checkbox" });
    w.noErrorBox.addEventListener("change", function () {
      w.noError = w.noErrorBox.checked;
      render(w);
    });
    noErr.appendChild(w.noErrorBox);
    noErr.appendChild(document.createTextNode(" No error in this translation"));
    whole.appendChild(noErr);
    p.appendChild(whole);

    p.appendChild(el("h3", { "class": "es-list-title" }, "Marked errors"));
    w.list = el("ul", { "class": "es-list" });
    p.appendChild(w.list);

    if (w.protocol === "esa") {
      var score = config.score || {};
      var box = el("div", { "class": "es-score unset" });
      var id = config.input + "-score";
      box.appendChild(el("label", { "for": id }, "Overall quality (0–100)"));
      var row = el("div", { "class": "es-score-row" });
      w.scoreRange = el("input", { type: "range", id: id, min: score.min || 0, max: score.max || 100, step: 1,
                                   value: 50, "aria-describedby": id + "-ends" });
      w.scoreNumber = el("input", { type: "number", min: score.min || 0, max: score.max || 100, step: 1,
                                    "aria-label": "Overall quality as a number" });
      var sync = function (src, dst) {
        return function () {
          if (src.value === "" || !src.checkValidity()) return;
          dst.value = src.value;
          w.score = Number(src.value);
          render(w);
        };
      };
      w.scoreRange.addEventListener("input", sync(w.scoreRange, w.scoreNumber));
      w.scoreNumber.addEventListener("input", sync(w.scoreNumber, w.scoreRange));
      row.appendChild(w.scoreRange);
      row.appendChild(w.scoreNumber);
      box.appendChild(row);
      box.appendChild(el("p", { "class": "es-score-ends", id: id + "-ends" },
                         "0: no meaning preserved; 33: some meaning; 66: most meaning, a few errors; 100: perfect."));
      w.scoreBox = box;
      p.appendChild(box);
    }
    w.root.appendChild(p);
  }

  function say(w, text) { w.status.textContent = text; }

  function setCategory(w, name) {
    if (!w.categorySelect) return;
    w.categorySelect.value = name;
    w.category = w.categorySelect.value;  // "" when the name is not in the typology
  }

  function focusChoice(w) {
    var first = w.categorySelect && w.sel && w.sel.side === "target" ? w.categorySelect
      : w.severityRow.querySelector(w.editing ? ".es-sev-" + w.editing.severity : ".es-severity");
    render(w);
    (first || w.severityRow.querySelector(".es-severity")).focus();
  }

  function commit(w, severity) {
    var r = selRange(w.sel);
    var side = w.sel ? w.sel.side : "target";
    if (r[0] === r[1]) {
      say(w, "Select the erroneous text first.");
      return;
    }
    var category = w.protocol !== "mqm" ? null : side === "source" ? w.typology.source : w.category;
    if (category === "") {
      say(w, "Choose the category first.");
      w.categorySelect.focus();
      return;
    }
    var s = w.editing;
    if (s) {
      if (s.start !== r[0] || s.end !== r[1] || s.severity !== severity || s.category !== category || s.side !== side) {
        if (s.status !== "added") s.status = "edited";
      } else if (s.status === "proposed") s.status = "accepted";
      s.start = r[0]; s.end = r[1]; s.severity = severity; s.category = category; s.side = side;
    } else {
      s = { id: w.nextId++, side: side, start: r[0], end: r[1], severity: severity, category: category, status: "added" };
      w.spans.push(s);
    }
    w.noError = false;
    w.editing = null;
    setCategory(w, "");
    w.sel = { side: side, anchor: r[1], caret: r[1] };
    render(w);
    say(w, spanLabel(w, s) + " marked.");
    textOf(w, side).node.focus({ preventScroll: true });
  }

  function cancel(w) {
    var side = w.sel ? w.sel.side : "target";
    w.editing = null;
    setCategory(w, "");
    if (w.sel) w.sel.anchor = w.sel.caret;
    say(w, "");
    render(w);
    textOf(w, side).node.focus({ preventScroll: true });
  }

  function toggleWholeSegment(w) {
    var name = w.typology.wholeSegment;
    var existing = w.spans.filter(function (s) { return s.category === name && s.status !== "rejected"; })[0];
    if (existing) {
      remove(w, existing);
      return;
    }
    var major = w.severities.indexOf("major") >= 0 ? "major" : w.severities[w.severities.length - 1];
    w.spans.push({ id: w.nextId++, side: "target", start: 0, end: w.texts.output.cps.length, severity: major,
                   category: name, status: "added" });
    w.noError = false;
    render(w);
  }

  function edit(w, s) {
    w.editing = s;
    w.sel = { side: s.side, anchor: s.start, caret: s.end };
    if (s.side === "target") setCategory(w, s.category || "");
    focusChoice(w);
    say(w, "Editing " + spanLabel(w, s) + ": reselect the text if needed, then choose the severity.");
  }

  function remove(w, s) {
    if (s.status === "added") w.spans.splice(w.spans.indexOf(s), 1);
    else s.status = "rejected";
    if (w.editing === s) w.editing = null;
    render(w);
    say(w, spanLabel(w, s) + (s.status === "rejected" ? " rejected." : " deleted."));
    var next = w.list.querySelector(".es-item button");
    (next || w.texts.output.node).focus();
  }

  function spanText(w, s) { return textOf(w, s.side).cps.slice(s.start, s.end).join(""); }
  function spanLabel(w, s) {
    return capital(s.severity) + " error" + (s.category ? " (" + s.category + ")" : "") +
      (s.side === "source" ? " in the source" : "") + ": “" + spanText(w, s) + "”";
  }

  function focusSpanItem(w, id) {
    var b = w.list.querySelector("[data-span='" + id + "'] .es-chip");
    if (b) b.focus();
  }

  // --- rendering --------------------------------------------------------------------------------------

  function render(w) {
    Object.keys(w.texts).forEach(function (k) { renderText(w, w.texts[k]); });
    panel(w);
  }

  function panel(w) {
    renderList(w);
    var r = selRange(w.sel);
    var has = r[0] !== r[1];
    w.choice.classList.toggle("active", has || !!w.editing);
    var needsCategory = w.categorySelect && has && w.sel.side === "target" && w.category === "";
    w.severityRow.querySelectorAll(".es-severity").forEach(function (b) { b.disabled = !has || needsCategory; });
    if (w.categorySelect) w.categorySelect.disabled = !has || w.sel.side !== "target";
    if (has && !w.editing) {
      say(w, "Selected" + (w.sel.side === "source" ? " in the source" : "") + ": “" +
          textOf(w, w.sel.side).cps.slice(r[0], r[1]).join("") + "” — choose " +
          (w.categorySelect && w.sel.side === "target" ? "the category and " : "") + "the severity.");
    } else if (!has && !w.editing && !w.status.textContent) {
      say(w, "Select the text of an error to mark it.");
    }
    var active = w.spans.filter(function (s) { return s.status !== "rejected"; });
    w.noErrorBox.checked = w.noError;
    w.noErrorBox.disabled = active.length > 0;
    if (w.wholeButton) {
      w.wholeButton.setAttribute("aria-pressed", String(active.some(function (s) {
        return s.category === w.typology.wholeSegment; })));
    }
    if (w.scoreBox) {
      w.scoreBox.classList.toggle("unset", w.score === null);
      if (w.score !== null && w.scoreNumber.value === "") {
        w.scoreNumber.value = w.score;
        w.scoreRange.value = w.score;
      }
    }
    write(w);
  }

  function renderText(w, t) {
    var focused = document.activeElement === t.node;
    var sel = w.sel && w.sel.side === t.side ? w.sel : null;
    var r = selRange(sel);
    var spans = w.spans.filter(function (s) { return s.side === t.side && s.status !== "rejected" && s.end > s.start; });
    var cuts = [0, t.cps.length, r[0], r[1]];
    spans.forEach(function (s) { cuts.push(s.start, s.end); });
    if (sel && focused) cuts.push(sel.caret);
    cuts = cuts.filter(function (c, i) { return cuts.indexOf(c) === i; }).sort(function (a, b) { return a - b; });
    var frag = document.createDocumentFragment();
    for (var i = 0; i + 1 < cuts.length || (i === 0 && cuts.length === 1); i++) {
      var a = cuts[i], b = cuts[i + 1] === undefined ? a : cuts[i + 1];
      if (sel && focused && a === sel.caret) frag.appendChild(el("span", { "class": "es-caret", "aria-hidden": "true" }));
      if (b === a) continue;
      var over = spans.filter(function (s) { return s.start <= a && s.end >= b; });
      var piece = el(over.length ? "mark" : "span", { "data-s": String(a) }, t.cps.slice(a, b).join(""));
      if (over.length) {
        var worst = over.reduce(function (m, s) {
          return w.severities.indexOf(s.severity) > w.severities.indexOf(m.severity) ? s : m; });
        piece.className = "es-mark es-sev-" + worst.severity + (over.length > 1 ? " es-overlap" : "") +
          (over.some(function (s) { return s.status === "proposed"; }) ? " es-proposed" : "");
        piece.dataset.span = String(worst.id);
        piece.title = over.map(function (s) { return spanLabel(w, s); }).join("; ");
      }
      if (sel && a >= r[0] && b <= r[1] && r[0] !== r[1]) piece.classList.add("es-selected");
      frag.appendChild(piece);
    }
    if (sel && focused && sel.caret === t.cps.length && t.cps.length > 0) {
      frag.appendChild(el("span", { "class": "es-caret", "aria-hidden": "true" }));
    }
    t.node.textContent = "";
    t.node.appendChild(frag);
  }

  function renderList(w) {
    var focusedId = document.activeElement && document.activeElement.closest &&
      document.activeElement.closest(".es-item") ? document.activeElement.closest(".es-item").dataset.span : null;
    var focusedRole = focusedId !== null ? document.activeElement.dataset.role : null;
    w.list.textContent = "";
    var shown = w.spans.slice().sort(function (a, b) {
      return (a.side === b.side ? 0 : a.side === "source" ? -1 : 1) || a.start - b.start || a.end - b.end; });
    if (!shown.length) {
      w.list.appendChild(el("li", { "class": "es-empty" }, w.noError ? "No error (marked)." : "None yet."));
    }
    shown.forEach(function (s) {
      var li = el("li", { "class": "es-item es-status-" + s.status + " es-sev-" + s.severity, "data-span": String(s.id) });
      var label = spanLabel(w, s) + (s.status === "added" ? "" : ", " + s.status);
      var chip = button("", "es-chip", function () { if (s.status !== "rejected") edit(w, s); });
      chip.dataset.role = "chip";
      chip.setAttribute("aria-label", label + (s.status === "rejected" ? "" : ": press to edit"));
      chip.appendChild(el("span", { "class": "es-chip-sev" }, capital(s.severity)));
      if (s.category) chip.appendChild(el("span", { "class": "es-chip-cat" }, s.category));
      var quoted = el("span", { "class": "es-chip-text" });
      quoted.append("“", el("bdi", {}, spanText(w, s)), "”");
      chip.appendChild(quoted);
      if (s.status !== "added") chip.appendChild(el("span", { "class": "es-chip-status" }, s.status));
      li.appendChild(chip);
      var actions = el("span", { "class": "es-actions" });
      var add = function (text, role, fn) {
        var b = button(text, "es-action secondary", fn);
        b.dataset.role = role;
        b.setAttribute("aria-label", text + ": " + spanLabel(w, s));
        actions.appendChild(b);
      };
      if (s.status === "proposed") {
        add("Accept", "accept", function () { s.status = "accepted"; render(w); focusRole(w, s.id, "edit"); });
      }
      if (s.status === "rejected") {
        add("Restore", "restore", function () { s.status = "proposed"; render(w); focusRole(w, s.id, "accept"); });
      } else {
        add("Edit", "edit", function () { edit(w, s); });
        add(s.status === "added" ? "Delete" : "Reject", "delete", function () { remove(w, s); });
      }
      li.appendChild(actions);
      w.list.appendChild(li);
    });
    if (focusedId !== null) focusRole(w, Number(focusedId), focusedRole);
  }

  function focusRole(w, id, role) {
    var b = w.list.querySelector("[data-span='" + id + "'] [data-role='" + role + "']") ||
      w.list.querySelector("[data-span='" + id + "'] .es-chip");
    if (b) b.focus();
  }

  // --- the posted state ---------------------------------------------------------------------------------

  function state(w) {
    var out = {
      version: 1,
      protocol: w.protocol,
      length: { target: w.texts.output.cps.length },
      no_error: w.noError,
      spans: w.spans.map(function (s) {
        var o = { side: s.side, start: s.start, end: s.end, severity: s.severity, category: s.category,
                  status: s.status };
        if (s.proposed !== undefined) o.proposed = s.proposed;
        return o;
      }),
    };
    if (w.texts.source) out.length.source = w.texts.source.cps.length;
    if (w.protocol === "esa") out.score = w.score;
    var open = w.spans.some(function (s) { return s.status === "proposed"; });
    var marked = w.noError || w.spans.some(function (s) { return s.status !== "rejected"; });
    out.complete = marked && !open && (w.protocol !== "esa" || w.score !== null);
    return out;
  }

  function write(w) {
    var s = state(w);
    w.input.value = JSON.stringify(s);
    w.root.dataset.complete = String(s.complete);
    w.root.dispatchEvent(new CustomEvent("error-spans:change", { detail: s, bubbles: true }));
  }

  function init(scope) {
    Array.prototype.forEach.call((scope || document).querySelectorAll(".error-spans:not(.es-ready)"), ErrorSpans);
  }
  window.ErrorSpans = { init: init };
  // A rating screen shown in place of the last one (static/annotation/rate.js) brings its widgets unset up.
  document.addEventListener("rate:screen", function (e) { init(e.detail); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { init(); });
  else init();
})();
