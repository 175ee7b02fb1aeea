/* The lobby's queue panel: a running timer, and the table opens by itself once a match is
   made (the status is polled; the queue lives in the database, paired by any process). */
(function () {
  "use strict";
  /* Sitting down: each Play form sends a client seed this browser draws now (128 bits from
     crypto.getRandomValues), unless the player set their own on the account page. It goes
     into every deal of the match with the server's secret seed (engine/README.md). */
  for (const field of document.querySelectorAll("form.play input[name=client_seed]")) {
    field.form.addEventListener("submit", () => {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      field.value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    });
  }
  const queue = document.getElementById("queue");
  if (!queue) return;
  const since = Date.parse(queue.dataset.since);
  const timer = document.getElementById("queue-timer");
  function tick() {
    const waited = Math.max(0, Math.floor((Date.now() - since) / 1000));
    timer.textContent = `${Math.floor(waited / 60)}:${String(waited % 60).padStart(2, "0")}`;
  }
  function poll() {
    fetch(queue.dataset.status, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((response) => response.json())
      .then((status) => {
        if (status.table) window.location.assign(status.table);
        else if (!status.queued) window.location.reload();
        else setTimeout(poll, 2000);
      })
      .catch((err) => { console.warn("knock: queue status unavailable", err); setTimeout(poll, 5000); });
  }
  tick();
  setInterval(tick, 1000);
  setTimeout(poll, 2000);
})();
