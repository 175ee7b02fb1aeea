/* The one place a variant's module is loaded: the page names it (table_data.variant_module,
 * static/table/variants/<variant>.js), so a new variant adds its module and touches no
 * other file. A module's default export may provide any of the hooks below; the ones it
 * leaves out do nothing. */

const HOOKS = {
  /** Draw the variant's own panels (Gin's knock chooser, Dummy's cut-in window). */
  panels() {},
  /** Buttons for the turn, after the draws (Gin's Knock…, the meld and declare offers). */
  actions() { return []; },
  /** The turn's prompt, or nothing for the table's own ("draw", "discard a card"). */
  prompt() { return undefined; },
  /** A click on a hand card the variant takes (true), before selecting or discarding. */
  onCard() { return false; },
  /** Mark a hand card's face (Gin's deadwood badges while knocking). */
  decorateCard() {},
  /** A line under a seat's name (Dummy's contract), or null. */
  seatExtra() { return null; },
  /** What the third pile shows (Indian's cut joker): nodes, or null to hide it. */
  pileExtra() { return null; },
  /** Four times a second: the variant's own countdowns. */
  tick() {},
  /** Draw a seat's showdown lines with `line(what, ...nodes)`; false leaves the hand's. */
  showdownSeat() { return false; },
  /** A sentence on how the result is ranked, or null. */
  resultNote() { return null; },
};

export async function load(url) {
  const module = await import(url);
  return { ...HOOKS, ...module.default };
}
