/* When a turn's time ran out the table played for the player: say so, with what it
 * played and how many more timeouts forfeit the match, until the player puts it away
 * (kept per match, so a reload does not tell it twice). */
import { $, button, cardName, el } from "./dom.js";
import { saved, state, subscribe } from "./store.js";
import { t } from "./strings.js";

const seenKey = () => `knock:timeout:${state.data.match}`;

function played(action) {
  if (action.type === "draw") return t(action.source === "stock" ? "timeout.drew_stock" : "timeout.took_pile");
  if (action.card && action.type === "discard") return t("timeout.discarded", { card: cardName(action.card) });
  if (action.card && action.type === "knock") return t("timeout.knocked", { card: cardName(action.card) });
  return t(`timeout.${action.type}`, {}, undefined, t("timeout.played"));
}

export function renderTimeout() {
  const view = state.view;
  const box = $("timeout-notice");
  const last = view.last_timeout;
  const seen = saved.get(seenKey(), 0);
  box.replaceChildren();
  box.hidden = !last || !last.seq || last.seq <= seen || view.status !== "active";
  if (box.hidden) return;
  const mine = view.seats.find((s) => s.seat === view.seat);
  const left = Math.max(0, view.max_timeouts - (mine ? mine.timeouts : 0));
  const text = el("p", "", t("timeout.notice", { did: played(last.action), n: left }, left));
  text.id = "timeout-text";
  const ok = button(t("timeout.ok"), () => { saved.set(seenKey(), last.seq); renderTimeout(); });
  ok.disabled = false;
  box.append(text, ok);
}

subscribe("table", renderTimeout);
