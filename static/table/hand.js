/* The player's hand: its order and groups (kept across reloads), selection and sorting. */
import { $, cardName, RANK_ORDER, SUIT_ORDER } from "./dom.js";
import { publish, saved, state } from "./store.js";
import { t } from "./strings.js";

const SORT_KEY = "knock:sort"; // the player's last chosen sort, for every deal after it
const key = (what) => `knock:${what}:${state.data.match}`;

function sortValue(sort) {
  return (c) => {
    if (c === "JK") return 99;
    const r = RANK_ORDER.indexOf(c[0]);
    const s = SUIT_ORDER.indexOf(c[1]);
    return sort === "suit" ? s * 20 + r : r * 5 + s;
  };
}

function sorted(cards, sort) {
  const value = sortValue(sort);
  return cards.slice().sort((a, b) => value(a) - value(b));
}

/** The view's hand in the player's order: their groups, then the cards they placed, then
 * new cards. A new deal keeps nothing of the last one's order (its cards are not the same
 * cards) and arrives sorted by the player's last chosen sort. */
export function syncOrder() {
  const deal = state.view.table.hand_number;
  const newDeal = saved.get(key("deal"), deal) !== deal;
  saved.set(key("deal"), deal);
  const lastSort = saved.get(SORT_KEY, null);
  let remaining = state.view.hand.slice();
  if (newDeal && lastSort) remaining = sorted(remaining, lastSort);
  const placed = newDeal ? [] : saved.get(key("order"), []);
  const next = [];
  state.groups = (newDeal ? [] : saved.get(key("groups"), [])).filter((group) => {
    const left = remaining.slice();
    const whole = group.every((card) => {
      const at = left.indexOf(card);
      if (at < 0) return false;
      left.splice(at, 1);
      return true;
    });
    if (whole) group.forEach((card) => remaining.splice(remaining.indexOf(card), 1));
    return whole;
  });
  state.groups.forEach((group) => next.push(...group));
  for (const card of placed) {
    const at = remaining.indexOf(card);
    if (at >= 0) {
      next.push(card);
      remaining.splice(at, 1);
    }
  }
  const changed = next.length !== state.order.length || next.some((c, i) => c !== state.order[i]);
  state.order = next.concat(remaining);
  if (changed || remaining.length) state.selected = new Set();
  saved.set(key("order"), state.order);
  saved.set(key("groups"), state.groups);
}

// --- groups: sets and runs the player builds (Indian declarations, planning melds) ----

/** The hand as zones: the player's groups, then the loose cards. `order` is always
 * groups.flat() followed by the loose cards, so positions in `order` stay the card ids. */
export function zones() {
  const grouped = state.groups.reduce((n, group) => n + group.length, 0);
  return state.groups.map((group) => group.slice()).concat([state.order.slice(grouped)]);
}

export function locate(position) {
  let at = position;
  const all = zones();
  for (let z = 0; z < all.length; z += 1) {
    if (at < all[z].length || z === all.length - 1) return [z, at];
    at -= all[z].length;
  }
  return [all.length - 1, 0];
}

function saveZones(all) {
  const loose = all.pop();
  state.groups = all.filter((group) => group.length);
  state.order = state.groups.flat().concat(loose);
  saved.set(key("groups"), state.groups);
  saved.set(key("order"), state.order);
}

function announce(text) {
  $("hand-live").textContent = text;
}

export function selectedCards() {
  return [...state.selected].sort((a, b) => a - b).map((i) => state.order[i]);
}

/** Variants whose moves take several cards (a table of melds, declarations, lay-offs)
 * select cards first, then say what to do with them; the others act on a click. */
export function selecting() {
  const view = state.view;
  return Array.isArray(view.table.melds) ||
    view.legal_actions.some((a) => Array.isArray(a.cards) || Array.isArray(a.groups) || a.type === "layoff");
}

export function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = a.slice().sort(), y = b.slice().sort();
  return x.every((c, i) => c === y[i]);
}

export function groupSelected() {
  const cards = selectedCards();
  if (!cards.length) return;
  // The chosen cards leave wherever they were and become the last group.
  const all = zones();
  let position = 0;
  const kept = all.map((zone) => zone.filter(() => !state.selected.has(position++)));
  kept.splice(kept.length - 1, 0, cards);
  state.selected = new Set();
  saveZones(kept);
  publish("table");
  announce(t("group.made", { n: state.groups.length, kind: groupKindName(cards) }));
}

export function ungroup() {
  state.groups = [];
  saved.set(key("groups"), state.groups);
  publish("table");
  announce(t("group.cleared"));
}

/** Move the card at `position` to index `index` of zone `zone` ("new" makes a new group). */
export function moveCard(position, zone, index) {
  const all = zones();
  const [from, at] = locate(position);
  const [card] = all[from].splice(at, 1);
  if (zone === "new") {
    all.splice(all.length - 1, 0, [card]);
    zone = all.length - 2;
    index = 0;
  } else {
    index = Math.max(0, Math.min(index, all[zone].length));
    all[zone].splice(index, 0, card);
  }
  // Where the card lands once empty groups are gone, to keep the focus on it.
  let landed = index;
  for (let z = 0; z < zone; z += 1) landed += all[z].length;
  saveZones(all);
  state.selected = new Set();
  publish("hand", landed);
  const [now] = locate(landed);
  const where = now < state.groups.length
    ? t("group.moved_to_group", { card: cardName(card), n: now + 1, kind: groupKindName(state.groups[now]) })
    : t("group.moved_to_loose", { card: cardName(card) });
  announce(where);
}

/** The engine's classify (engine/melds.py), step for step, so a group is named as the
 * engine will judge it: a card of the wild rank may stand for itself (4H 5H 6H with fives
 * wild is a pure run, 5H JK JK a run from the 5H), every meld needs a card standing for
 * itself, runs are tried before sets, and the room's readings (five-card sets, groups of
 * printed jokers) count. One of "short", "pure_run", "run", "set", "none". */
function groupKind(cards) {
  const wildRank = state.view.table.wild_rank;
  const extraWilds = state.view.table.extra_wilds || []; // 21 cards: upper and lower jokers
  const options = state.view.table.options || {};
  const largestSet = options.five_card_sets ? 5 : 4;
  if (cards.length < 3) return "short";
  // 21 cards: three identical cards are a tunnela, which counts as a pure sequence.
  if (state.view.table.value_cards && cards.length === 3 && cards.every((c) => c === cards[0])) return "pure_run";
  const rankOf = (c, aceHigh) => (c[0] === "A" && aceHigh ? 14 : RANK_ORDER.indexOf(c[0]) + 1);
  const isRun = (naturals, size) => new Set(naturals.map((c) => c[1])).size === 1
    && size <= RANK_ORDER.length
    && [false, true].some((aceHigh) => {
      const ranks = naturals.map((c) => rankOf(c, aceHigh)).sort((a, b) => a - b);
      return new Set(ranks).size === ranks.length && ranks[ranks.length - 1] - ranks[0] + 1 <= size;
    });
  const isSet = (naturals, size) => size <= largestSet
    && naturals.every((c) => c[0] === naturals[0][0])
    && new Set(naturals.map((c) => c[1])).size === naturals.length;
  if (!cards.includes("JK")) {
    // n distinct ranks spanning at most n places are consecutive: a run with no gap to fill.
    if (isRun(cards, cards.length)) return "pure_run";
    if (isSet(cards, cards.length)) return "set";
  }
  const naturals = cards.filter((c) => c !== "JK" && c[0] !== wildRank && !extraWilds.includes(c));
  if (naturals.length === cards.length) return "none";
  if (!naturals.length) {
    // Wild cards only: one of the wild rank stands for itself and the rest fill its run.
    if (cards.some((c) => c !== "JK")) return cards.length <= RANK_ORDER.length ? "run" : "none";
    return options.joker_groups && cards.length <= largestSet ? "set" : "none";
  }
  if (isRun(naturals, cards.length)) return "run";
  if (isSet(naturals, cards.length)) return "set";
  return "none";
}

export function groupKindName(cards) {
  return t(`group.kind.${groupKind(cards)}`);
}

export function groupIsGood(cards) {
  const kind = groupKind(cards);
  return kind !== "none" && kind !== "short";
}

/** How far the groups are from a declaration: a hint while building, the engine decides. */
export function groupsSummary() {
  const kinds = state.groups.map(groupKind);
  const runs = kinds.filter((k) => k === "run" || k === "pure_run").length;
  const pure = kinds.filter((k) => k === "pure_run").length;
  const bad = kinds.filter((k) => k === "none" || k === "short").length;
  const grouped = state.groups.reduce((n, g) => n + g.length, 0);
  const parts = [
    t("group.summary.grouped", { n: grouped, of: state.order.length }),
    t("group.summary.runs", { n: runs, pure }, runs),
  ];
  if (bad) parts.push(t("group.summary.to_fix", { n: bad }, bad));
  return parts.join(" · ");
}

/** Sort the loose cards (groups stay as the player built them), and remember the sort
 * for the next deals. */
export function sortBy(sort) {
  const all = zones();
  all[all.length - 1] = sorted(all[all.length - 1], sort);
  saveZones(all);
  saved.set(SORT_KEY, sort);
  state.selected = new Set();
  publish("hand");
}
