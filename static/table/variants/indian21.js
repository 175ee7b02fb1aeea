/* Indian rummy with 21 cards: the 13-card table's hooks (declaring, the showdown's groups)
 * and the value cards beside the cut joker. (On a phone its hand is in rows of whole cards,
 * as every hand of more than 11 cards is: render.js.) */
import { cardFace, cardName, el, rankName } from "../dom.js";
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

export default { ...indian, pileExtra };
