/* The last move in words ("Asha took the seven of diamonds from the discard pile"), for
 * everyone at the table and watching, announced in a polite live region. A discard right
 * after the same seat's draw says both ("Asha drew from the stock and discarded the seven
 * of hearts"), so a screen reader that only catches the last line still hears the turn. */
import { $, cardName, seatName } from "./dom.js";
import { state, subscribe } from "./store.js";
import { t } from "./strings.js";

// The moves the line said, with the view's seq: { seq, seat, action, taken }.
let current = null;
let previous = null;

function words(move, view) {
  const a = move.action;
  const name = seatName(move.seat);
  const card = a.card ? cardName(a.card) : "";
  const p = previous;
  const drew = p && p.seat === move.seat && p.seq === view.seq - 1 && p.action.type === "draw" ? p : null;
  if (drew && a.type === "discard") {
    if (drew.action.source === "stock") return t("last.drew_stock_discarded", { name, card });
    if (drew.taken) return t("last.took_card_discarded", { name, taken: cardName(drew.taken), card });
  }
  switch (a.type) {
    case "draw": {
      if (a.source === "stock") return t("last.drew_stock", { name });
      const taken = view.table.taken_from_discard;
      return taken ? t("last.took_card", { name, card: cardName(taken) }) : t("last.took_pile", { name });
    }
    case "discard": return t("last.discarded", { name, card });
    case "knock": return t("last.knocked", { name, card });
    case "layoff": return t("last.laid_off", { name, card });
    case "meld": {
      const n = a.groups ? a.groups.length : 1;
      return t("last.melded", { name, n }, n);
    }
    default: return t(`last.${a.type}`, { name }, undefined, t("last.played", { name }));
  }
}

export function renderLastMove() {
  const view = state.view;
  const line = $("last-move");
  const move = view.last_move;
  if (move && (!current || current.seq !== view.seq)) {
    previous = current;
    current = { ...move, seq: view.seq, taken: view.table.taken_from_discard };
  }
  const text = move && view.status !== "aborted" ? words(move, view) : "";
  if (line.textContent !== text) line.textContent = text;
}

subscribe("table", renderLastMove);
