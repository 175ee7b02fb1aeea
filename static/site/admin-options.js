// Admin forms with a game's options (gameplay/option_fields.py): show only the chosen
// game's fieldset. Without JavaScript every game's options show, each titled by its game.
(function () {
  function setUp() {
    const variant = document.getElementById("id_variant");
    if (!variant) return;
    function show() {
      document.querySelectorAll("fieldset.variant-options").forEach(function (fieldset) {
        fieldset.hidden = !fieldset.classList.contains("variant-" + variant.value);
      });
    }
    variant.addEventListener("change", show);
    show();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
