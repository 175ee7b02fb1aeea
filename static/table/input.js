/* The player's hands on the cards: click and Enter, mouse drag, touch carry, keyboard
 * moves, and the hand's tools. */
import { $ } from "./dom.js";
import { groupSelected, locate, moveCard, selecting, sortBy, ungroup, zones } from "./hand.js";
import { act } from "./socket.js";
import { legal, publish, saved, state } from "./store.js";

/** A click (or Enter) on the card at `position`: the variant's own use of it first (Gin's
 * knock), else select it where moves take several cards, else discard it. */
function onCard(position) {
  const card = state.order[position];
  if (state.variant.onCard(card)) return;
  if (selecting()) {
    if (state.selected.has(position)) state.selected.delete(position);
    else state.selected.add(position);
    publish("table");
    return;
  }
  const discard = legal("discard").find((a) => a.card === card);
  if (discard) act(discard);
}

// Touch screens fire no HTML drag events. A long press picks a card up (a quick swipe still
// scrolls the page), the finger carries it, and lifting it over a card or a group drops it
// there, as a mouse drag would; lifting it anywhere else puts it back.
const LONG_PRESS_MS = 250;
function carryByTouch(li, position) {
  let timer = null;
  let start = null;
  let lifted = false;
  let over = null;
  const hover = (node) => {
    if (over) over.classList.remove("over");
    over = node;
    if (over) over.classList.add("over");
  };
  const putDown = () => {
    clearTimeout(timer);
    lifted = false;
    li.style.transform = "";
    li.classList.remove("dragging");
    $("hand").classList.remove("dragging-card");
    const target = over;
    hover(null);
    return target;
  };
  li.addEventListener("touchstart", (event) => {
    if (event.touches.length !== 1) return;
    start = event.touches[0];
    timer = setTimeout(() => {
      lifted = true;
      li.classList.add("dragging", "carried");
      $("hand").classList.add("dragging-card");
    }, LONG_PRESS_MS);
  }, { passive: true });
  li.addEventListener("touchmove", (event) => {
    const touch = event.touches[0];
    if (!lifted) {
      if (Math.hypot(touch.clientX - start.clientX, touch.clientY - start.clientY) > 10) clearTimeout(timer);
      return;
    }
    event.preventDefault(); // the page holds still while a card is carried
    li.style.transform = `translate(${touch.clientX - start.clientX}px, ${touch.clientY - start.clientY}px)`;
    const under = document.elementFromPoint(touch.clientX, touch.clientY);
    hover(under && under.closest("#hand .slot, #hand .zone"));
  }, { passive: false });
  li.addEventListener("touchend", (event) => {
    if (!lifted) { clearTimeout(timer); return; }
    event.preventDefault(); // no click follows: the card was moved, not chosen
    li.classList.remove("carried");
    const target = putDown();
    if (!target || target === li) return;
    if (target.classList.contains("slot")) moveCard(position, Number(target.dataset.zone), Number(target.dataset.index));
    else if (target.dataset.zone === "new") moveCard(position, "new", 0);
    else moveCard(position, Number(target.dataset.zone), Infinity);
  });
  li.addEventListener("touchcancel", () => { li.classList.remove("carried"); putDown(); });
}

// Keyboard moves: Alt+←/→ step through the hand, across group edges; Alt+↑/↓ jump to
// the previous or next group (Alt+↓ from the loose cards starts a new group).
function keyMove(position, key) {
  const all = zones();
  const [z, at] = locate(position);
  const last = all.length - 1;
  if (key === "ArrowLeft") {
    if (at > 0) moveCard(position, z, at - 1);
    else if (z > 0) moveCard(position, z - 1, all[z - 1].length);
  } else if (key === "ArrowRight") {
    if (at < all[z].length - 1) moveCard(position, z, at + 1);
    else if (z < last) moveCard(position, z + 1, 0);
  } else if (key === "ArrowUp") {
    if (z > 0) moveCard(position, z - 1, all[z - 1].length);
  } else if (key === "ArrowDown") {
    if (z < last) moveCard(position, z + 1, z + 1 === last ? 0 : all[z + 1].length);
    else if (selecting()) moveCard(position, "new", 0);
  }
}

/** Every way to play or move the card in slot `li` (its face `face`, at `position`). */
export function bindSlot(li, face, position) {
  const hand = $("hand");
  face.addEventListener("click", () => onCard(position));
  face.addEventListener("keydown", (event) => {
    if (!event.altKey || !event.key.startsWith("Arrow")) return;
    event.preventDefault();
    keyMove(position, event.key);
  });
  li.addEventListener("dragstart", (event) => {
    event.dataTransfer.setData("text/plain", String(position));
    event.dataTransfer.effectAllowed = "move";
    li.classList.add("dragging");
    hand.classList.add("dragging-card");
  });
  li.addEventListener("dragend", () => { li.classList.remove("dragging"); hand.classList.remove("dragging-card"); });
  li.addEventListener("dragover", (event) => event.preventDefault());
  li.addEventListener("drop", (event) => {
    event.preventDefault();
    event.stopPropagation();
    moveCard(Number(event.dataTransfer.getData("text/plain")), Number(li.dataset.zone), Number(li.dataset.index));
  });
  carryByTouch(li, position);
}

/** A group (or "new", the new-group box) that a dragged card may be dropped on, at its end. */
export function dropTarget(node, zone, size) {
  node.addEventListener("dragover", (event) => { event.preventDefault(); node.classList.add("over"); });
  node.addEventListener("dragleave", () => node.classList.remove("over"));
  node.addEventListener("drop", (event) => {
    event.preventDefault();
    node.classList.remove("over");
    moveCard(Number(event.dataTransfer.getData("text/plain")), zone, zone === "new" ? 0 : size);
  });
}

/** The hand's tools and the table's keys. */
export function bindTools() {
  const root = $("knock-table");
  const fourColour = $("four-colour");
  const setFourColour = (on) => {
    root.classList.toggle("four-colour", on);
    fourColour.setAttribute("aria-pressed", on ? "true" : "false");
    saved.set("knock:four-colour", on);
  };
  fourColour.addEventListener("click", () => setFourColour(!root.classList.contains("four-colour")));
  setFourColour(saved.get("knock:four-colour", false));
  $("sort-suit").addEventListener("click", () => sortBy("suit"));
  $("sort-rank").addEventListener("click", () => sortBy("rank"));
  $("group-selected").addEventListener("click", groupSelected);
  $("ungroup").addEventListener("click", ungroup);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && state.mode) { state.mode = null; publish("table"); }
  });
}
