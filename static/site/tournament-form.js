// The tournament form: show only the chosen game's rules and the chosen format's settings.
// Without JavaScript everything shows, each labelled with the game or format it is for;
// the server reads only the chosen ones.
(function () {
  const variant = document.getElementById("id_variant");
  if (variant) {
    const showRules = function () {
      document.querySelectorAll("fieldset.variant-options").forEach(function (fieldset) {
        fieldset.hidden = fieldset.dataset.variant !== variant.value;
      });
    };
    variant.addEventListener("change", showRules);
    showRules();
  }
  const format = document.getElementById("id_format");
  if (format) {
    const showSettings = function () {
      const chosen = format.value || "single"; // empty reads as single elimination
      document.querySelectorAll(".field[data-formats]").forEach(function (field) {
        // A field the server refused stays in sight, whatever the format.
        const wanted = field.dataset.formats.split(" ").includes(chosen);
        field.hidden = !wanted && !field.classList.contains("has-error");
      });
    };
    format.addEventListener("change", showSettings);
    showSettings();
  }
})();
