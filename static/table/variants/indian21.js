/* Indian rummy with 21 cards: the 13-card table's hooks (declaring, the showdown's groups),
 * the value cards beside the cut joker, and the hand in rows of whole cards on a phone (the
 * `rows-hand` class: each card a tap target of its own, 44 px or more; table.css). */
import { $, cardFace, cardName, el, rankName } from "../dom.js";
import { state } from "../store.js";
import { t } from "../strings.js";
import indian from "./indian.js";

function pileExtra() {
  const tbl = state.view.table;
  if (!tbl.cut_joker) return null;
  const values = tbl.value_cards || {};
  const wild = rankName(tbl.wild_rank, true);
  const label = el("span", "pile-label", t("indian.cut_joker", { rank: wild }));
  const nodes = [cardFace(tbl.cut_joker, "span", "cut"), label];
  if (values.upper && values.lower) {
    const key = (tbl.extra_wilds || []).length ? "indian21.value_cards_wild" : "indian21.value_cards";
    nodes.push(el("span", "pile-label value-cards", t(key, { upper: cardName(values.upper), lower: cardName(values.lower) })));
  }
  return nodes;
}

function panels() {
  $("knock-table").classList.add("rows-hand");
}

export default { ...indian, pileExtra, panels };
