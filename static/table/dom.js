/* Elements and card faces: what every other module draws with. */
import { state } from "./store.js";
import { t } from "./strings.js";

export const RANK_ORDER = "A23456789TJQK";
export const SUIT_ORDER = "SHCD"; // alternating colours when sorted by suit
const PIPS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

export const $ = (id) => document.getElementById(id);

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function span(cls, text) {
  return el("span", cls, text);
}

/** The rank's name in words, plural or not ("seven", "sevens"): a wild rank's label. */
export function rankName(rank, plural) {
  return t(`rank${plural ? "s" : ""}.${rank}`, {}, undefined, rank);
}

export function cardName(text) {
  if (text === "JK") return t("card.joker");
  return t("card.name", { rank: rankName(text[0]), suit: t(`suit.${text[1]}`) });
}

/** What a card's corner shows: its rank and suit sign ("10\u2665"). */
export function cardFaceText(text) {
  return (text[0] === "T" ? "10" : text[0]) + PIPS[text[1]];
}

/** A card's accessible name: the face a sighted reader sees, then the words ("2\u2660, two
 * of spades"), so a voice-control user can say what they see (WCAG 2.5.3). `words` is the
 * card's name by default, or a sentence about it. The joker's face reads as its name. */
export function cardLabel(text, words = cardName(text)) {
  return text === "JK" ? words : t("card.label", { face: cardFaceText(text), name: words });
}

export function cardFace(text, tag, extra) {
  const face = document.createElement(tag || "span");
  face.className = "card" + (extra ? " " + extra : "");
  if (text === "JK") {
    face.classList.add("joker");
    face.append(span("corner", "\u2605"), span("pip", t("card.joker_pip")));
  } else {
    const [rank, suit] = [text[0], text[1]];
    face.classList.add("suit-" + suit);
    const label = rank === "T" ? "10" : rank;
    face.append(span("corner", label + "\n" + PIPS[suit]), span("pip", PIPS[suit]));
  }
  face.querySelectorAll("span").forEach((s) => s.setAttribute("aria-hidden", "true"));
  face.dataset.card = text;
  if (tag !== "button") face.setAttribute("role", "img");
  face.setAttribute("aria-label", cardLabel(text));
  return face;
}

export function cardRow(cards, cls) {
  const row = el("span", "card-row " + (cls || ""));
  cards.forEach((c) => row.append(cardFace(c, "span", "small")));
  return row;
}

/** An action button, disabled while a move is in flight. */
export function button(label, handler, cls) {
  const b = el("button", "act " + (cls || ""), label);
  b.type = "button";
  b.disabled = state.pending !== null;
  b.addEventListener("click", handler);
  return b;
}

/** Whose seat `index` is, as the page says it ("You" for the reader's own). */
export function seatName(index) {
  const p = state.data.players[index];
  return index === state.view.seat ? t("seat.you") : p ? p.name : t("seat.numbered", { n: index + 1 });
}
