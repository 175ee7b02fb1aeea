/* The lobby's queue panel: a running timer, and the table opens by itself once a match is
   made (the status is polled; the queue lives in the database, paired by any process). */
(function () {
  "use strict";
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
