// Sitting down (a Play button in the lobby, "Take your seat" at a tournament table): a form
// with an empty client_seed field sends a client seed this browser draws as it is submitted
// (128 bits from crypto.getRandomValues). The server committed to its own seed before (the
// lobby and account pages show the commitment); both go into every deal of the match
// (engine/README.md). A player who set their own seed on the account page gets no field.
(function () {
  "use strict";
  for (const field of document.querySelectorAll("form input[name=client_seed][type=hidden]")) {
    field.form.addEventListener("submit", () => {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      field.value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    });
  }
})();
