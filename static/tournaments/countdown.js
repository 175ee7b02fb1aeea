// Live countdowns to a tournament's start: every <time data-countdown datetime="ISO"> reads
// "in 2 hours", "in 5 minutes" in the page's language (Intl.RelativeTimeFormat), ticking
// each second in the last minute, and its data-now text once the time has come.
const UNITS = [
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

const format = new Intl.RelativeTimeFormat(document.documentElement.lang || undefined, {
  numeric: "auto",
});

export function phrase(seconds) {
  for (const [unit, size] of UNITS) {
    if (seconds >= size || unit === "second") {
      return format.format(Math.floor(seconds / size), unit);
    }
  }
  return "";
}

function tick(nodes) {
  let soonest = Infinity;
  for (const node of nodes) {
    const left = (Date.parse(node.getAttribute("datetime")) - Date.now()) / 1000;
    if (Number.isNaN(left)) continue;
    node.textContent = left > 0 ? phrase(left) : node.dataset.now || "";
    if (left > 0) soonest = Math.min(soonest, left);
  }
  if (soonest === Infinity) return;
  setTimeout(() => tick(nodes), soonest <= 120 ? 1000 : 30000);
}

const nodes = [...document.querySelectorAll("time[data-countdown]")];
if (nodes.length) tick(nodes);
