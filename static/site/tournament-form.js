// The tournament form: show only the chosen game's rules. Without JavaScript every game's
// rules show, each saying which game it is for; the server uses the chosen one's.
(function () {
  const variant = document.getElementById("id_variant");
  if (!variant) return;
  function show() {
    document.querySelectorAll("fieldset.variant-options").forEach(function (fieldset) {
      fieldset.hidden = fieldset.dataset.variant !== variant.value;
    });
  }
  variant.addEventListener("change", show);
  show();
})();
