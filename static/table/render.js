/* Drawing the table from the state: seats, piles, melds, actions, the hand, the clocks.
 * What only one variant has comes from its module (state.variant, variants/index.js). */
import { $, button, cardFace, cardLabel, cardName, cardRow, el, seatName } from "./dom.js";
import { groupIsGood, groupKindName, groupsSummary, selectedCards, selecting, zones } from "./hand.js";
import { bindSlot, dropTarget } from "./input.js";
import { renderResult } from "./result.js";
import { act } from "./socket.js";
import { legal, state, stockHeld, subscribe } from "./store.js";
import { t } from "./strings.js";

const ROWS_FROM = 11; // cards: Gin's 10 and 11 still fan
const HANDLED = new Set(["draw", "discard", "knock", "meld", "layoff", "declare", "claim"]);

export function render() {
  const view = state.view;
  const tbl = view.table;
  const root = $("knock-table");
  const target = (view.options && view.options.target) || tbl.target;
  const me = view.seat;
  const meta = [t("meta.hand", { n: tbl.hand_number || 1 })];
  if (target) meta.push(t("meta.target", { n: target }));
  if (me !== null && view.scores) meta.push(t("meta.score", { n: view.scores[me] }));
  $("table-meta").textContent = meta.join(" · ");
  root.dataset.seq = String(view.seq);
  root.dataset.status = view.status;
  root.classList.toggle("spectating", me === null);
  root.classList.toggle("my-turn", !!view.your_turn);
  // More cards than a phone can overlap with room to tap (Indian, Dummy): rows of whole
  // cards there, each a 44 px target (table.css; a desktop is unchanged).
  root.classList.toggle("rows-hand", view.hand.length > ROWS_FROM);
  renderSeats();
  renderPiles();
  renderMelds();
  state.variant.panels();
  renderActions();
  renderHand();
  renderResult();
}

function renderSeats() {
  const view = state.view;
  const list = $("seats");
  list.replaceChildren();
  const target = (view.options && view.options.target) || view.table.target;
  view.seats.forEach((seat) => {
    const p = state.data.players[seat.seat] || {};
    const li = el("li", "seat");
    li.dataset.seat = seat.seat;
    const mine = seat.seat === view.seat;
    const moving = view.status === "active" && !view.hand_break && view.to_move === seat.seat;
    if (mine) li.classList.add("me");
    if (moving) li.classList.add("to-move");
    const head = el("div", "seat-head");
    const name = el("a", "seat-name", mine ? t("seat.name_you", { name: p.name }) : p.name);
    name.href = p.profile;
    const presence = el("span", "presence");
    const [code, label] = p.bot ? ["bot", "presence.bot"] : state.online.has(seat.seat) ? ["on", "presence.on"] : ["off", "presence.off"];
    presence.textContent = t(label);
    presence.dataset.state = code;
    head.append(name, presence);
    const facts = [];
    if (p.title) facts.push(p.title);
    facts.push(t("seat.level", { n: p.level }));
    if (p.rating !== null && p.rating !== undefined) facts.push(t("seat.rating", { n: p.rating }));
    const detail = el("div", "seat-facts", facts.join(" · "));
    const score = el("div", "seat-score");
    score.append(el("strong", "", String(view.scores[seat.seat])), el("span", "", target ? ` / ${target}` : t("seat.points")));
    const cards = el("div", "seat-cards", t("seat.cards", { n: seat.card_count }, seat.card_count));
    const extra = state.variant.seatExtra(seat.seat);
    if (!mine) {
      const backs = el("span", "backs");
      backs.setAttribute("aria-hidden", "true");
      for (let i = 0; i < Math.min(seat.card_count, 13); i += 1) backs.append(el("span", "back"));
      cards.prepend(backs);
    }
    if (moving) {
      const clock = el("span", "clock");
      clock.dataset.deadline = p.bot ? "" : view.turn_deadline || "";
      clock.textContent = p.bot ? t("seat.thinking") : "";
      clock.setAttribute("aria-label", t("seat.clock"));
      score.append(clock);
    }
    li.append(head, detail, ...(extra ? [extra] : []), score, cards);
    list.append(li);
  });
  tick();
}

function renderPiles() {
  const tbl = state.view.table;
  const stock = $("stock");
  $("stock-count").textContent = tbl.stock_count;
  stock.setAttribute("aria-label", t("pile.stock", { n: tbl.stock_count }));
  const drawStock = legal("draw").find((a) => a.source === "stock");
  stock.disabled = !drawStock || state.pending !== null || stockHeld();
  stock.classList.toggle("playable", !!drawStock);
  stock.onclick = drawStock ? () => act(drawStock) : null;

  const pile = $("discard");
  pile.replaceChildren();
  const top = tbl.discard.length ? tbl.discard[tbl.discard.length - 1] : null;
  const takePile = legal("draw").find((a) => a.source === "discard");
  if (top) {
    const card = cardFace(top, takePile ? "button" : "span", "upcard");
    if (takePile) {
      card.type = "button";
      card.classList.add("playable");
      card.setAttribute("aria-label", cardLabel(top, t("pile.take", { card: cardName(top) })));
      card.addEventListener("click", () => act(takePile));
    }
    pile.classList.toggle("stacked", tbl.discard.length > 1);
    pile.append(card);
  } else {
    pile.append(el("span", "empty-pile", t("pile.empty")));
  }
  const extra = $("extra");
  extra.replaceChildren();
  const shown = state.variant.pileExtra();
  extra.hidden = !shown;
  if (shown) extra.append(...shown);
}

function renderMelds() {
  const box = $("melds");
  const melds = state.view.table.melds || [];
  box.hidden = melds.length === 0;
  box.replaceChildren();
  const chosen = selectedCards();
  melds.forEach((meld, index) => {
    const item = el("div", "meld");
    const kind = meld.kind || t("meld.meld");
    item.append(el("span", "meld-kind", meld.owner === undefined ? kind : `${seatName(meld.owner)} · ${kind}`), cardRow(meld.cards));
    const layoff = chosen.length === 1 && legal("layoff").find((a) => a.meld === index && a.card === chosen[0]);
    if (layoff) {
      const b = el("button", "act layoff", t("meld.layoff", { card: cardName(chosen[0]) }));
      b.type = "button";
      b.addEventListener("click", () => { state.selected = new Set(); act(layoff); });
      item.append(b);
      item.classList.add("target");
    }
    box.append(item);
  });
}

function renderActions() {
  const view = state.view;
  const box = $("actions");
  box.replaceChildren();
  const prompt = $("prompt");
  if (view.status !== "active") { prompt.textContent = t("prompt.over"); return; }
  const mover = seatName(view.to_move);
  if (!view.your_turn) {
    if (legal("claim").length) { prompt.textContent = t("prompt.waiting_buy", { name: mover }); return; }
    prompt.textContent = t(view.seat === null ? "prompt.watching" : "prompt.waiting", { name: mover });
    return;
  }
  const draws = legal("draw");
  draws.forEach((a) => {
    const top = view.table.discard[view.table.discard.length - 1];
    const held = a.source === "stock" && stockHeld();
    const label = a.source === "stock" ? t(held ? "action.stock_held" : "action.stock") : t("action.take", { card: cardName(top) });
    const b = button(label, () => act(a), "primary");
    b.disabled = b.disabled || held;
    box.append(b);
  });
  box.append(...state.variant.actions());
  view.legal_actions.forEach((a) => {
    if (HANDLED.has(a.type)) return;
    const label = t(`plain.${a.type}`, {}, undefined, a.type.charAt(0).toUpperCase() + a.type.slice(1).replace(/_/g, " "));
    box.append(button(label, () => act(a), a.type === "big_gin" ? "primary" : ""));
  });
  let text = state.variant.prompt(draws);
  if (!text) {
    if (draws.length) text = t("prompt.draw");
    else if (selecting()) text = t(legal("declare").length ? "prompt.group_declare" : "prompt.meld");
    else text = t("prompt.discard");
  }
  prompt.textContent = text;
}

/** A button offered while cards are selected: enabled only when `action` is legal, and
 * clearing the selection as it plays. */
export function offer(label, action, cls) {
  const b = button(label, () => { state.selected = new Set(); act(action); }, cls);
  b.disabled = !action || state.pending !== null;
  return b;
}

/** The discard offered while selecting (select one card), for the variants that select. */
export function discardOffer() {
  const chosen = selectedCards();
  if (!legal("discard").length) return [];
  const discard = chosen.length === 1 && legal("discard").find((a) => a.card === chosen[0]);
  return [offer(discard ? t("action.discard_card", { card: cardName(chosen[0]) }) : t("action.discard_select"), discard)];
}

function renderHand(focusAt) {
  const view = state.view;
  const hand = $("hand");
  const active = document.activeElement;
  const focused = active && active.closest && active.closest("#hand") ? Number(active.dataset.position) : null;
  hand.replaceChildren();
  $("hand-area").hidden = view.seat === null;
  const discards = new Set(legal("discard").map((a) => a.card));
  const picking = selecting();
  const zoned = picking && state.groups.length > 0;
  hand.classList.toggle("zoned", zoned);
  const all = zones();
  let position = 0;

  function slot(card, zone, index) {
    const at = position++;
    const li = el("li", "slot");
    li.draggable = true;
    li.dataset.position = at;
    li.dataset.zone = zone;
    li.dataset.index = index;
    const face = cardFace(card, "button");
    face.type = "button";
    face.dataset.position = at;
    face.classList.toggle("playable", view.your_turn && (picking || discards.has(card)));
    face.classList.toggle("selected", state.selected.has(at));
    if (picking) face.setAttribute("aria-pressed", state.selected.has(at) ? "true" : "false");
    if (view.taken_from_discard === card || view.table.taken_from_discard === card) face.classList.add("taken");
    state.variant.decorateCard(face, card);
    bindSlot(li, face, at);
    li.append(face);
    return li;
  }

  if (!state.order.length) {
    hand.append(el("li", "empty-hand", t(view.status === "active" ? "hand.empty" : "hand.went_out")));
  } else if (!zoned) {
    all[all.length - 1].forEach((card, index) => hand.append(slot(card, all.length - 1, index)));
  } else {
    all.forEach((cards, zone) => {
      const loose = zone === all.length - 1;
      if (loose && !cards.length) return;
      const kind = loose ? null : groupKindName(cards);
      const box = el("li", "zone " + (loose ? "loose" : groupIsGood(cards) ? "good" : "bad"));
      box.dataset.zone = zone;
      box.append(el("span", "zone-label", loose ? t("zone.loose", { n: cards.length }) : `${zone + 1} · ${kind}`));
      box.setAttribute("aria-label", loose ? t("zone.loose_label", { n: cards.length }) : t("zone.group_label", { n: zone + 1, kind, size: cards.length }));
      const row = el("ol", "zone-cards");
      cards.forEach((card, index) => row.append(slot(card, zone, index)));
      box.append(row);
      dropTarget(box, zone, cards.length);
      hand.append(box);
    });
  }
  if (picking && view.status === "active" && state.order.length) {
    const fresh = el("li", "zone new-group", t("zone.new"));
    fresh.dataset.zone = "new";
    fresh.setAttribute("aria-hidden", "true"); // Alt+↓ on a loose card does it by keyboard
    dropTarget(fresh, "new", 0);
    hand.append(fresh);
  }

  $("hand-note").textContent = view.hand.length ? t("hand.count", { n: view.hand.length }) : "";
  $("group-tools").hidden = !picking;
  $("group-selected").disabled = state.selected.size === 0;
  $("ungroup").disabled = state.groups.length === 0;
  const note = $("groups-note");
  note.replaceChildren();
  state.groups.forEach((group, index) => {
    note.append(el("li", groupIsGood(group) ? "good" : "bad", t("group.note", { n: index + 1, kind: groupKindName(group) })));
  });
  const summary = $("groups-summary");
  summary.textContent = state.groups.length ? groupsSummary() : "";
  summary.hidden = !state.groups.length;
  const again = focusAt !== undefined ? focusAt : focused;
  if (again !== null && again !== undefined && !Number.isNaN(again)) {
    const target = hand.querySelector(`button[data-position="${Math.min(again, state.order.length - 1)}"]`);
    if (target) target.focus();
  }
}

/** The turn clocks (and the variant's own, Dummy's cut-in countdown), four times a second. */
export function tick() {
  state.variant.tick();
  document.querySelectorAll(".clock[data-deadline]").forEach((clock) => {
    if (!clock.dataset.deadline) return;
    const left = Math.max(0, Math.round((Date.parse(clock.dataset.deadline) - Date.now()) / 1000));
    clock.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    clock.classList.toggle("urgent", left <= 10);
  });
}

subscribe("table", render);
subscribe("hand", renderHand);
subscribe("seats", renderSeats);
