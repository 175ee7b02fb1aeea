/* Indian rummy (13 cards): the cut joker, declaring with the player's own groups, and the
 * showdown's groups. */
import { cardFace, cardName, cardRow, el, rankName } from "../dom.js";
import { sameCards, selectedCards, selecting } from "../hand.js";
import { discardOffer, offer } from "../render.js";
import { legal, state } from "../store.js";
import { t } from "../strings.js";

function pileExtra() {
  const tbl = state.view.table;
  if (!tbl.cut_joker) return null;
  const wild = rankName(tbl.wild_rank, true);
  return [cardFace(tbl.cut_joker, "span", "cut"), el("span", "pile-label", t("indian.cut_joker", { rank: wild }))];
}

/** Declare: with the player's own groups when they hold every other card, else the engine's. */
function declareOffer() {
  if (!legal("declare").length) return [];
  const chosen = selectedCards();
  const offered = chosen.length === 1 && legal("declare").find((a) => a.card === chosen[0]);
  const mine = offered && sameCards(state.groups.flat(), state.order.filter((_, at) => !state.selected.has(at)));
  const declare = offered && (mine ? { type: "declare", card: offered.card, groups: state.groups } : offered);
  const label = !declare ? t("indian.declare_select")
    : t(mine ? "indian.declare_mine" : "indian.declare_engine", { card: cardName(chosen[0]) });
  return [offer(label, declare, "primary")];
}

function actions() {
  return selecting() ? [...discardOffer(), ...declareOffer()] : [];
}

/** Indian has no melds or lay-offs: the player groups, then discards or declares. */
function prompt(draws) {
  if (draws.length || !selecting() || legal("declare").length) return "";
  return t("indian.prompt_group");
}

function showdownSeat(last, seat, line) {
  const groupsOf = last.groups && last.groups[seat] ? last.groups[seat] : null;
  if (!groupsOf) return false;
  const node = line(t("indian.groups"));
  groupsOf.groups.forEach((g) => node.append(cardRow(g)));
  if (groupsOf.ungrouped.length) line(t("indian.ungrouped"), cardRow(groupsOf.ungrouped));
  return true;
}

export default { pileExtra, actions, prompt, showdownSeat };
