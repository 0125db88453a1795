// Copy buttons beside the link fields: a button with data-copy="#field-id" copies that field's value and says
// so. The buttons are hidden until this script runs, so a page without it shows none that would do nothing.
(function () {
  const status = document.getElementById("copy-status");
  async function copy(field) {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(field.value);
      return;
    }
    // Plain-http installations have no async clipboard: select the text and use the older command.
    field.select();
    if (!document.execCommand("copy")) throw new Error("copy refused");
  }
  document.querySelectorAll("button[data-copy]").forEach((button) => {
    button.hidden = false;
    button.addEventListener("click", async () => {
      const field = document.querySelector(button.dataset.copy);
      try {
        await copy(field);
        button.textContent = "Copied";
        if (status) status.textContent = "Copied to the clipboard.";
      } catch (error) {
        field.select();
        if (status) status.textContent = "Could not copy; the link is selected: press Ctrl+C (⌘C on a Mac).";
      }
    });
  });
})();
