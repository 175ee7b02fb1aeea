/* The table's one shared state, and who redraws when it changes.
 *
 * Every module reads and writes `state`; none keeps shared variables of its own. A change
 * is announced with `publish(topic)`, and the drawing modules `subscribe` to the topics:
 * "table" (everything), "hand" (the hand, with the position to keep focus on), "seats"
 * (presence), "showdown". Publishing instead of calling keeps the modules free of cycles.
 */

export const state = {
  data: null, // the page's json_script: match id, URLs, players
  view: null, // the seat's view: the server's JSON, as GET /api/matches/<id>/
  seq: 0,
  variant: null, // the variant's module (variants/index.js)
  order: [], // the player's hand order: card texts, duplicates allowed
  groups: [], // the player's groups (card texts): the front of `order`, in order
  selected: new Set(), // positions in `order`
  mode: null, // "knock" while choosing the card to knock with
  pending: null, // ref of the action in flight
  online: new Set(), // seats with a socket open
  everOpen: false, // the socket has been open once (so a close is a drop)
  heldShown: false, // the stock was shown held for a claim window
  rewardsTries: 0,
};

const subscribers = new Map();

export function subscribe(topic, handler) {
  if (!subscribers.has(topic)) subscribers.set(topic, []);
  subscribers.get(topic).push(handler);
}

export function publish(topic, detail) {
  (subscribers.get(topic) || []).forEach((handler) => handler(detail));
}

/** The view's legal actions of one type. */
export function legal(type) {
  return state.view.legal_actions.filter((a) => a.type === type);
}

/** The mover's stock draw waits while others may still buy the discard (Dummy's cut-ins). */
export function stockHeld() {
  return !!state.view.claim_deadline && Date.parse(state.view.claim_deadline) > Date.now();
}

/** localStorage as JSON, where a browser that refuses it only loses the saved order. */
export const saved = {
  get(key, fallback) {
    try {
      const raw = localStorage.getItem(key);
      return raw === null ? fallback : JSON.parse(raw);
    } catch (err) {
      console.warn("knock: localStorage unreadable", err);
      return fallback;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch (err) {
      console.warn("knock: localStorage unwritable", err);
    }
  },
};

export function init(data) {
  state.data = data;
  state.view = data.view;
  state.seq = data.view.seq;
}
