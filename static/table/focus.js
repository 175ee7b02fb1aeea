/* Where a keyboard player's focus goes at the table. A redraw replaces the buttons a move
 * used, which would drop the focus to <body> and send the player back to the top of the
 * page; instead it lands on the next sensible control: the draw when a turn starts, the
 * card just drawn when a discard is due, the hand while others play. Typing a card's rank,
 * then its suit, moves to that card, so a draw is one key and any discard at most three.
 *
 * Only keyboard players are moved: after a pointer's touch or click the focus stays put,
 * so nobody's page scrolls under their finger. */
import { $ } from "./dom.js";
import { legal, state, subscribe } from "./store.js";

const RANK_KEYS = { A: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 0: "T", T: "T", J: "J", Q: "Q", K: "K" };
const SUIT_KEYS = new Set(["S", "H", "D", "C", "K"]); // K: the joker's "JK"
const TYPED_MS = 1500; // how long a typed rank waits for its suit

let keyboard = false; // the player's last input was a key, not a pointer
let inTable = false; // the focus was last inside the table (not the header, not the page)
let myTurn = false;
let before = []; // the hand at the last redraw, to find the card just drawn
let typed = null; // { rank, at } while a rank waits for its suit

const handCards = () => [...$("hand").querySelectorAll("button.card")];

function lost() {
  const active = document.activeElement;
  return !active || active === document.body || !active.isConnected || active.disabled;
}

function dialogOpen() {
  const overlay = $("hand-overlay");
  return (overlay.classList.contains("modal") && !overlay.hidden) || !$("confirm").hidden || !$("knock-options").hidden;
}

/** The cards in `now` that `then` did not hold (a multiset difference: two decks repeat). */
function added(then, now) {
  const left = then.slice();
  return now.filter((card) => {
    const at = left.indexOf(card);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

function drawControl() {
  const stock = $("stock");
  if (!stock.disabled) return stock;
  return $("actions").querySelector("button:not([disabled])") || $("discard").querySelector("button");
}

function nextControl(fresh) {
  if (!state.view.your_turn) return handCards()[0] || null;
  if (legal("draw").length || legal("pass").length) return drawControl();
  const cards = handCards();
  const drawn = fresh.length ? cards.find((b) => b.dataset.card === fresh[fresh.length - 1]) : null;
  return drawn || cards.find((b) => b.classList.contains("playable")) || $("actions").querySelector("button:not([disabled])");
}

/** After each redraw: a keyboard player whose focus was lost, or whose turn just began
 * while they were at the table, is put on the next sensible control. */
function keepFocus() {
  const fresh = added(before, state.order);
  before = state.order.slice();
  const turnBegins = !!state.view.your_turn && !myTurn;
  myTurn = !!state.view.your_turn;
  if (!keyboard || !inTable || dialogOpen() || state.view.status !== "active") return;
  if (!lost() && !(turnBegins && legal("draw").length)) return;
  const target = nextControl(fresh);
  if (target) target.focus();
}

/** Rank then suit ("7", "h"): the focus goes to that card, the next such one on each
 * repeat; a rank alone goes to the next card of that rank. */
function typeAhead(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.key.length !== 1) return;
  const key = event.key.toUpperCase();
  const cards = handCards();
  if (!cards.length) return;
  const from = cards.indexOf(document.activeElement);
  const after = (match) => cards.slice(from + 1).concat(cards.slice(0, from + 1)).find(match);
  let target = null;
  if (typed && Date.now() - typed.at < TYPED_MS && SUIT_KEYS.has(key)) {
    const card = typed.rank === "J" && key === "K" ? "JK" : typed.rank + key;
    target = after((b) => b.dataset.card === card);
    typed = null;
  }
  if (!target && RANK_KEYS[key]) {
    const rank = RANK_KEYS[key];
    typed = { rank, at: Date.now() };
    target = after((b) => b.dataset.card[0] === rank && b.dataset.card !== "JK");
  }
  if (target) {
    event.preventDefault();
    target.focus();
  }
}

export function bindFocus() {
  const root = $("knock-table");
  document.addEventListener("keydown", (event) => {
    keyboard = true;
    if (root.contains(event.target) && !event.target.closest("input, textarea, select")) typeAhead(event);
  });
  document.addEventListener("pointerdown", () => { keyboard = false; });
  document.addEventListener("focusin", (event) => { inTable = root.contains(event.target); });
  before = state.order.slice();
  myTurn = !!state.view.your_turn;
}

// After every other redraw of the same change (the overlay, the controls), not between them.
subscribe("table", () => queueMicrotask(keepFocus));
