/* The embedded bracket follows play without reloading the page: a timed reload (the
 * <meta> refresh it had) moves a reader's place and focus every 30 s, which WCAG 2.2.1
 * forbids. Every 30 s it fetches the tournament page's bracket part instead, and reloads
 * once, when the tournament has moved on (finished or cancelled), to show the placements. */
(function () {
  const section = document.getElementById("bracket-section");
  if (!section || section.dataset.live !== "1") return;
  async function refresh() {
    const response = await fetch(section.dataset.part, { cache: "no-store" });
    if (response.ok) {
      const box = section.querySelector(".bracket-scroll");
      const at = box ? [box.scrollLeft, box.scrollTop] : null;
      section.innerHTML = await response.text();
      const fresh = section.querySelector(".bracket-scroll");
      if (fresh && at) [fresh.scrollLeft, fresh.scrollTop] = at;
      const status = section.querySelector("[data-status]");
      if (status && status.dataset.status !== section.dataset.tournamentStatus) {
        window.location.reload();
        return;
      }
    }
    setTimeout(refresh, 30000);
  }
  setTimeout(refresh, 30000);
})();
