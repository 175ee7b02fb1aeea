/* Dummy: each seat's contract, laying a contract down whole, and the cut-in window where
 * others may buy the discard. */
import { $, button, cardFace, cardName, el, seatName } from "../dom.js";
import { selecting } from "../hand.js";
import { discardOffer, offer } from "../render.js";
import { act } from "../socket.js";
import { legal, publish, state, stockHeld } from "../store.js";
import { t } from "../strings.js";
import { meldOffer } from "./basic.js";

/** The seat's contract, whether it is down, and its cut-ins this hand. */
function seatExtra(seat) {
  const tbl = state.view.table;
  if (!Array.isArray(tbl.contract_names)) return null;
  const name = tbl.contract_names[seat];
  const contract = el("div", "seat-contract", name ? t("dummy.contract", { n: tbl.contracts[seat], name }) : t("dummy.all_done"));
  if (tbl.down[seat]) contract.append(el("span", "tag", t("dummy.down")));
  const cutIns = tbl.cut_ins[seat];
  if (cutIns) contract.append(el("span", "tag", t("dummy.cut_ins", { n: cutIns }, cutIns)));
  return contract;
}

/** The claim window: the offered card, who asked for it, a countdown for every seat and a
 * Buy button for the seats the engine lets claim (view.legal_actions). */
function panels() {
  const view = state.view;
  const box = $("claim-window");
  const w = view.table.claim_window;
  box.replaceChildren();
  // Shown while someone may still buy the card or has asked for it.
  box.hidden = !w || view.status !== "active" || !(w.may_claim.length || w.claims.length);
  state.heldShown = stockHeld();
  if (box.hidden) return;
  const head = el("div", "claim-head");
  head.append(el("strong", "", t("dummy.cut_in")), cardFace(w.card, "span", "small"), t("dummy.on_offer", { card: cardName(w.card) }));
  const clock = el("span", "claim-clock");
  clock.dataset.claimDeadline = view.claim_deadline || "";
  head.append(clock);
  box.append(head);
  const asked = w.claims.map(seatName);
  const mover = seatName(view.to_move);
  box.append(el("p", "claim-asked", asked.length ? t("dummy.asked", { names: asked.join(", "), name: mover }) : t("dummy.may_take", { name: mover })));
  const claim = legal("claim")[0];
  if (claim) {
    const label = t("dummy.buy", { card: cardName(w.card), n: view.options.cut_in_penalty });
    box.append(button(label, () => act(claim), "primary buy"));
  }
  tick();
}

function tick() {
  const clock = document.querySelector(".claim-clock");
  if (clock) {
    const deadline = clock.dataset.claimDeadline;
    const left = deadline ? Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000)) : 0;
    clock.textContent = left ? t("dummy.seconds_to_buy", { n: left }) : t("dummy.waiting_draw", { name: seatName(state.view.to_move) });
  }
  // The window closed: the stock opens.
  if (state.heldShown && !stockHeld()) { state.heldShown = false; publish("table"); }
}

/** A contract goes down whole: the player's own groups when they make it, else the engine's. */
function actions() {
  if (!selecting()) return [];
  const contract = legal("meld").find((a) => Array.isArray(a.groups));
  if (!contract) return [...meldOffer(), ...discardOffer()];
  const groups = state.groups;
  const mine = groups.length === contract.groups.length && groups.every((g, i) => g.length >= contract.groups[i].length);
  const lay = mine ? offer(t("dummy.lay_mine"), { type: "meld", groups }, "primary") : offer(t("dummy.lay_engine"), contract, "primary");
  return [lay, ...discardOffer()];
}

function resultNote(result) {
  return result.lower_wins && Array.isArray(result.contracts) ? t("dummy.ranked") : null;
}

export default { seatExtra, panels, tick, actions, resultNote };
