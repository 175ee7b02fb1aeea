/* Basic rummy: melds and lay-offs on a table of melds, chosen by selecting cards. */
import { selectedCards, sameCards, selecting } from "../hand.js";
import { discardOffer, offer } from "../render.js";
import { legal } from "../store.js";
import { t } from "../strings.js";

/** "Meld the selected cards", lit when the selection is a meld the engine offers. */
export function meldOffer() {
  if (!legal("meld").length) return [];
  const meld = legal("meld").find((a) => sameCards(a.cards, selectedCards()));
  return [offer(t("basic.meld"), meld, meld ? "primary" : "")];
}

function actions() {
  return selecting() ? [...meldOffer(), ...discardOffer()] : [];
}

export default { actions };
