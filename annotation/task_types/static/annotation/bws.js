/* Best–worst screens (annotation/bws/rate.html): an output picked best is not also worst. Picking an output, by
 * mouse, touch or key, in one group of a criterion clears it from the other group, which rate.js then counts as
 * open again (and moves the focus to). Without this script the server refuses the same output picked twice. */
(function () {
  "use strict";

  function other(group) {
    var form = group.form || group.closest("form");
    var groups = form.querySelectorAll('fieldset.q.bws[data-criterion="' + group.dataset.criterion + '"]');
    return Array.prototype.filter.call(groups, function (g) { return g !== group; })[0];
  }

  function clearInOther(group, value) {
    var rest = other(group);
    if (!rest) return;
    var same = rest.querySelector('input[type=radio][value="' + value + '"]');
    if (same && same.checked) {
      same.checked = false;
      rest.dispatchEvent(new Event("change", { bubbles: true }));  // rate.js counts it open again
    }
  }

  document.addEventListener("change", function (e) {
    var group = e.target.closest && e.target.closest("fieldset.q.bws");
    if (group && e.target.type === "radio" && e.target.checked) clearInOther(group, e.target.value);
  });

  // Before rate.js (capture phase): a digit picks in the group with the focus.
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !/^[0-9]$/.test(e.key)) return;
    var group = document.activeElement && document.activeElement.closest &&
      document.activeElement.closest("fieldset.q.bws");
    if (group && group.querySelector('input[type=radio][value="' + e.key + '"]')) clearInOther(group, e.key);
  }, true);
})();
