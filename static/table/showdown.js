/* The last hand's showdown: who won it and how, every seat's cards, the points line by
 * line. A variant draws its own seat lines (Gin's melds and deadwood, Indian's groups).
 * When it shows, and its Next hand, are the hand overlay's (overlay.js). */
import { $, cardRow, el, seatName } from "./dom.js";
import { publish, state } from "./store.js";
import { has as known, t } from "./strings.js";

const shownKey = () => `knock:showdown:${state.data.match}`;
const given = (v) => v !== null && v !== undefined;

/** How a hand nobody won ended: "ended in a draw", or "the stock ran out" (after
 * "ended: " in the headline itself); "" for an ending without words. */
function ending(code, headline) {
  if (known(`showdown.end.${code}`)) return t(`showdown.end.${code}`);
  if (!known(`showdown.why.${code}`)) return "";
  const why = t(`showdown.why.${code}`);
  return headline ? t("showdown.ended_because", { why }) : why;
}

function headline(last) {
  const who = given(last.winner) ? seatName(last.winner) : t("showdown.nobody");
  const kind = (k) => t(`showdown.kind.${k}`, {}, undefined, k);
  let text = t("showdown.hand", { n: last.hand_number });
  if (given(last.knocker)) {
    const how = last.kind === "undercut" ? t("showdown.knocked_undercut") : kind(last.kind);
    text += t("showdown.did", { name: seatName(last.knocker), how });
  } else if (given(last.winner)) {
    text += t("showdown.did", { name: who, how: kind(last.kind) });
  } else {
    const how = ending(last.kind, true);
    const why = ending(last.reason, false);
    text += t("showdown.ended", { how: how || last.kind, why: why ? t("showdown.end_reason", { reason: why }) : "" });
  }
  if (Array.isArray(last.points)) return text;
  if (!given(last.winner)) return text + t("showdown.no_points");
  const points = { n: last.points, name: who };
  return text + (last.winner === state.view.seat ? t("showdown.you_score", points, last.points) : t("showdown.scores", points, last.points));
}

/** One line of a seat's showdown: what it is, then its cards. */
function lineMaker(row) {
  return (what, ...content) => {
    const node = el("div", "line");
    const cards = el("span", "line-cards");
    cards.append(...content);
    node.append(el("span", "what", what), cards);
    row.append(node);
    return cards;
  };
}

export function noneMark() {
  return el("span", "muted", t("showdown.none"));
}

/** Whether the player has put the last hand's showdown away (a table that does not rest
 * between hands: the next hand is on already). */
export function showdownSeen(last) {
  return Number(sessionStorage.getItem(shownKey()) || 0) >= last.hand_number;
}

/** Put the last hand's showdown away (Next hand where the table does not rest). */
export function showdownDone(last) {
  sessionStorage.setItem(shownKey(), String(last.hand_number));
  publish("showdown");
}

export function renderShowdown() {
  const view = state.view;
  const box = $("showdown");
  const last = view.table.last_hand;
  if (!last || (view.status === "active" && !view.hand_break && showdownSeen(last))) { box.hidden = true; return; }
  box.replaceChildren();
  const title = el("h2", "", headline(last));
  title.id = "showdown-title";
  box.append(title);

  const rows = el("div", "showdown-rows");
  const tableMelds = Array.isArray(last.melds) && last.melds.length && !Array.isArray(last.melds[0]);
  if (tableMelds) {
    const table = el("div", "showdown-seat table-melds");
    table.append(el("h3", "", t("showdown.on_table")));
    const line = el("div", "line");
    last.melds.forEach((m) => line.append(cardRow(m.cards)));
    table.append(line);
    rows.append(table);
  }
  (last.hands || []).forEach((hand, seat) => {
    if (!hand) return;
    const row = el("div", "showdown-seat");
    if (seat === last.winner) row.classList.add("winner");
    const head = el("h3", "", seatName(seat));
    if (seat === last.knocker) head.append(el("span", "tag", t("showdown.tag.knocked")));
    if (seat === last.winner) head.append(el("span", "tag win", t("showdown.tag.won")));
    const status = last.status && last.status[seat];
    if (status && status !== "playing" && seat !== last.winner) head.append(el("span", "tag", t(`showdown.status.${status}`, {}, undefined, status)));
    row.append(head);
    const line = lineMaker(row);
    if (!state.variant.showdownSeat(last, seat, line)) {
      line(t(seat === last.winner ? "showdown.hand_cards" : "showdown.left"), hand.length ? cardRow(hand) : noneMark());
    }
    rows.append(row);
  });
  box.append(rows);
  box.append(scoringLines(last));
  box.hidden = false;
}

/** The hand's points line by line, exactly as the engine counted them (last_hand.breakdown). */
function scoringLines(last) {
  const wrap = el("div", "scoring");
  const lines = last.breakdown || [];
  if (!lines.length) return wrap;
  wrap.append(el("h3", "", t("scoring.title")));
  const table = el("table", "score-lines");
  const body = el("tbody", "");
  const signed = (n) => (n < 0 ? `\u2212${-n}` : `+${n}`);
  const named = (line) => {
    let label = line.label.charAt(0).toUpperCase() + line.label.slice(1);
    if (line.seat !== undefined) return `${seatName(line.seat)}: ${line.label}`;
    const defender = 1 - last.knocker;
    if (/knocker/.test(line.code) && last.knocker !== undefined) label += ` (${seatName(last.knocker)})`;
    if (/defender/.test(line.code) && last.knocker !== undefined) label += ` (${seatName(defender)})`;
    return label;
  };
  const add = (label, value, cls) => {
    const tr = el("tr", cls || "");
    tr.append(el("th", "", label), el("td", "", value));
    body.append(tr);
  };
  const totals = () => last.scores.map((s, i) => `${seatName(i)} ${s}`).join(" · ");
  if (Array.isArray(last.points)) {
    // Per-seat points (Indian): each seat's lines, then its total for the deal.
    last.points.forEach((total, seat) => {
      const mine = lines.filter((l) => l.seat === seat);
      if (!mine.length) return;
      mine.forEach((l) => add(named(l), String(l.points)));
      add(t("scoring.for_deal", { name: seatName(seat) }), String(total), "total");
    });
    if (last.scores) add(t("scoring.totals_lower"), totals(), "running");
  } else {
    lines.forEach((l) => add(named(l), signed(l.points)));
    add(last.winner === state.view.seat ? t("scoring.you_score") : t("scoring.scores", { name: seatName(last.winner) }), `${last.points}`, "total");
    if (last.scores) add(t("scoring.totals"), totals(), "running");
  }
  table.append(body);
  wrap.append(table);
  return wrap;
}

