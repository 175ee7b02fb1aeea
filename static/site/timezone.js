/* The reader's time zone, sent once: the browser's IANA zone (Intl) goes in the knock_tz
   cookie, which config/preferences.py activates for every page, so times read in it. A
   zone chosen on the account page (or saved there at login) has set the cookie already. */
(function () {
  "use strict";
  if (document.cookie.split("; ").some((c) => c.startsWith("knock_tz="))) return;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone || !/^[A-Za-z0-9_+\-/]+$/.test(zone)) return; // an IANA name, safe in a cookie
  document.cookie = `knock_tz=${zone}; path=/; max-age=31536000; samesite=lax`;
  // This page was rendered in UTC: show it again in the reader's zone.
  if (document.querySelector("time[datetime]")) window.location.reload();
})();
