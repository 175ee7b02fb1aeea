/* Gin: the knock (its chooser with the deadwood each knock leaves), the first turn's pass,
 * and the showdown's melds, deadwood and lay-offs. */
import { $, button, cardFace, cardLabel, cardName, cardRow, el, seatName, span } from "../dom.js";
import { noneMark } from "../showdown.js";
import { act } from "../socket.js";
import { legal, publish, state } from "../store.js";
import { t } from "../strings.js";

const knocking = () => state.mode === "knock";
const deadwoodText = (points) => (points === 0 ? t("gin.no_deadwood") : t("gin.deadwood_left", { n: points }));

/** While choosing how to knock: every offered knock with what it lays out, from the
 * engine's arrangement of the seat's own cards (view.knock_options). */
function panels() {
  const view = state.view;
  const box = $("knock-options");
  const options = (view.knock_options || []).filter((o) => o.type === "knock");
  box.replaceChildren();
  box.hidden = !(knocking() && view.your_turn && options.length);
  if (box.hidden) return;
  const title = el("h2", "", t("gin.knock_title"));
  title.id = "knock-options-title";
  box.append(title);
  const list = el("ul", "knock-list");
  options.forEach((option) => {
    const action = legal("knock").find((a) => a.card === option.card);
    if (!action) return;
    const item = el("li", "");
    const b = el("button", "knock-option" + (option.deadwood_points === 0 ? " gin" : ""));
    b.type = "button";
    b.disabled = state.pending !== null;
    const left = deadwoodText(option.deadwood_points);
    const cards = option.deadwood.length ? t("gin.deadwood_cards", { cards: option.deadwood.map(cardName).join(", ") }) : "";
    b.setAttribute("aria-label", cardLabel(option.card, t("gin.knock_label", { card: cardName(option.card), left })) + cards);
    const head = el("span", "knock-head");
    head.append(cardFace(option.card, "span", "small"), el("span", "knock-points", option.deadwood_points === 0 ? t("gin.gin") : `${option.deadwood_points}`));
    const layout = el("span", "knock-layout");
    layout.setAttribute("aria-hidden", "true");
    option.melds.forEach((meld) => layout.append(cardRow(meld, "meld-row")));
    if (option.deadwood.length) layout.append(cardRow(option.deadwood, "dead-row"));
    b.append(head, el("span", "knock-caption", t("gin.knock_caption", { left })), layout);
    b.querySelectorAll(".card").forEach((c) => c.removeAttribute("role"));
    b.addEventListener("click", () => { state.mode = null; act(action); });
    item.append(b);
    list.append(item);
  });
  box.append(list);
}

function actions() {
  if (!legal("knock").length) return [];
  return [button(t(knocking() ? "gin.cancel_knock" : "gin.knock"), () => {
    state.mode = knocking() ? null : "knock";
    publish("table");
    // Keyboard players land on the first knock offered (the least deadwood).
    const first = knocking() && $("knock-options").querySelector("button");
    if (first) first.focus();
  }, "knock" + (knocking() ? " on" : ""))];
}

function prompt(draws) {
  if (knocking()) return t("gin.prompt_knocking");
  if (legal("pass").length) return t("gin.prompt_pass");
  if (draws.length || !legal("knock").length) return undefined;
  const best = (state.view.knock_options || []).find((o) => o.type === "knock");
  if (!best) return t("gin.prompt_knock");
  const left = best.deadwood_points === 0 ? t("gin.best_gin") : t("gin.best_deadwood", { n: best.deadwood_points });
  return t("gin.prompt_best", { left });
}

function onCard(card) {
  if (!knocking()) return false;
  const knock = legal("knock").find((a) => a.card === card);
  if (knock) { state.mode = null; act(knock); }
  return true;
}

function decorateCard(face, card) {
  if (!knocking()) return;
  face.classList.toggle("playable", !!state.view.your_turn && legal("knock").some((a) => a.card === card));
  const info = (state.view.knock_options || []).filter((o) => o.card === card).pop();
  if (!info) return;
  const points = info.deadwood_points;
  const badge = span("dw", points === 0 ? t("gin.badge_gin") : String(points));
  badge.setAttribute("aria-hidden", "true");
  face.append(badge);
  face.setAttribute("aria-label", cardLabel(card, t("gin.knock_label", { card: cardName(card), left: points === 0 ? t("gin.badge_gin") : t("gin.deadwood_left", { n: points }) })));
}

/** Each seat's melds (the knocker's with the cards laid off on them), deadwood, lay-offs. */
function showdownSeat(last, seat, line) {
  if (!(Array.isArray(last.melds) && last.melds.length && Array.isArray(last.melds[0]))) return false;
  const melds = last.melds[seat] || [];
  const node = line(t("gin.melds"));
  melds.forEach((meld, index) => {
    const r = cardRow(meld);
    if (seat === last.knocker && last.layoff_targets) {
      last.layoffs.forEach((card, i) => {
        if (last.layoff_targets[i] !== index) return;
        const laid = cardFace(card, "span", "small laid");
        const by = seatName(1 - last.knocker);
        laid.setAttribute("aria-label", t("gin.laid_label", { card: cardLabel(card), name: by }));
        laid.title = t("gin.laid_title", { name: by });
        r.append(laid);
      });
    }
    node.append(r);
  });
  if (!melds.length) node.append(noneMark());
  line(t("gin.deadwood", { n: last.deadwood_points[seat] }), last.deadwood[seat].length ? cardRow(last.deadwood[seat]) : noneMark());
  if (seat !== last.knocker && last.knocker !== null && last.knocker !== undefined && last.layoffs && last.layoffs.length) {
    line(t("gin.laid_off"), cardRow(last.layoffs, "laid-row"));
  }
  return true;
}

export default { panels, actions, prompt, onCard, decorateCard, showdownSeat };
