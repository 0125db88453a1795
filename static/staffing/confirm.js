// Asks before a button with data-confirm submits its form (removing a rater cannot be undone).
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-confirm]");
  if (button && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
  }
});
