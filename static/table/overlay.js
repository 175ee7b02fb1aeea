/* The hand's end in an overlay over the table: the showdown (showdown.js draws it) with
 * the points, and what comes next.
 *
 * - The table rests between hands (view.hand_break): a dialog over the table, which is
 *   inert behind it, with the countdown to the next deal, who is ready, and Next hand
 *   (sent to the server: the last person ready deals the next hand). No clock runs.
 * - The match ended while the page was open: the last hand's dialog, then the result.
 * - A table that does not rest (the setting at 0): the showdown below the table as a
 *   panel, Next hand only puts it away (the next hand is on already).
 * The overlay is drawn from the view alone, so a reload or a reconnect shows it again. */
import { $, button, el, seatName } from "./dom.js";
import { renderShowdown, showdownDone, showdownSeen } from "./showdown.js";
import { control } from "./socket.js";
import { state, subscribe } from "./store.js";
import { t } from "./strings.js";

let sawActive = false; // this module's own: the page saw the match being played
let endDismissed = false;
let mode = null; // "rest", "end", "panel" or null: what the overlay shows now

function clockText(until) {
  const left = Math.max(0, Math.ceil((Date.parse(until) - Date.now()) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

function modeOf(view) {
  const last = view.table.last_hand;
  if (view.status === "active") {
    sawActive = true;
    if (view.hand_break) return "rest";
    // A table that rests showed the hand in the rest's overlay; one that does not shows
    // it below the table until put away.
    return last && !state.data.rest_seconds && !showdownSeen(last) ? "panel" : null;
  }
  if (!last) return null;
  return sawActive && !endDismissed && state.data.rest_seconds > 0 ? "end" : "panel";
}

/** Everything but the overlay is inert while it is a dialog: focus and clicks stay in it. */
function holdTable(modal) {
  const overlay = $("hand-overlay");
  [...$("knock-table").children].forEach((child) => {
    if (child !== overlay) child.inert = modal;
  });
}

function restBar(bar, view) {
  const rest = view.hand_break;
  const people = view.seats.filter((s) => !s.bot).map((s) => s.seat);
  const ready = new Set(rest.ready);
  const count = el("p", "rest-clock");
  count.id = "rest-clock";
  count.dataset.until = rest.until;
  count.textContent = t("overlay.next_in", { time: clockText(rest.until) });
  bar.append(count);
  if (people.length > 1) {
    const who = el("ul", "rest-ready");
    who.setAttribute("aria-label", t("overlay.who_ready"));
    people.forEach((seat) => {
      const key = `overlay.${seat === view.seat ? "you_" : ""}${ready.has(seat) ? "ready" : "not_ready"}`;
      const li = el("li", ready.has(seat) ? "ready" : "", t(key, { name: seatName(seat) }));
      who.append(li);
    });
    bar.append(who);
  }
  if (view.seat === null) return;
  const mine = ready.has(view.seat);
  const next = button(t(mine ? "overlay.waiting_others" : "overlay.next"), () => control("next_hand"), "primary");
  next.id = "next-hand";
  next.disabled = mine || state.pending !== null;
  bar.append(next);
}

export function renderOverlay() {
  const view = state.view;
  const overlay = $("hand-overlay");
  const box = $("hand-overlay-box");
  const bar = $("overlay-bar");
  const was = mode;
  mode = modeOf(view);
  renderShowdown();
  overlay.hidden = mode === null || $("showdown").hidden;
  const modal = !overlay.hidden && (mode === "rest" || mode === "end");
  overlay.classList.toggle("modal", modal);
  if (modal) {
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-modal", "true");
  } else {
    box.removeAttribute("role");
    box.removeAttribute("aria-modal");
  }
  holdTable(modal);
  bar.replaceChildren();
  bar.hidden = overlay.hidden || !(mode === "rest" || mode === "end" || (mode === "panel" && view.status === "active"));
  if (!bar.hidden) {
    const last = view.table.last_hand;
    if (mode === "rest") restBar(bar, view);
    else if (mode === "end") {
      const see = button(t("overlay.see_result"), () => {
        endDismissed = true;
        renderOverlay();
        $("result").scrollIntoView({ block: "start" });
      }, "primary");
      see.id = "see-result";
      bar.append(see);
    } else bar.append(button(t("showdown.next"), () => showdownDone(last), "primary"));
  }
  if (modal && was !== mode) {
    box.scrollTop = 0;
    const first = bar.querySelector("button:not([disabled])");
    if (first) first.focus();
  }
}

function tickOverlay() {
  const clock = $("rest-clock");
  if (clock && clock.dataset.until) clock.textContent = t("overlay.next_in", { time: clockText(clock.dataset.until) });
}

setInterval(tickOverlay, 250);
subscribe("table", renderOverlay);
subscribe("showdown", renderOverlay);
