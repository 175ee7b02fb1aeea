/* Talking to the server: moves (over the socket, else HTTP), the socket with its
 * reconnects, and re-reading the view over HTTP whenever a frame may have been missed.
 *
 * Every frame carries the match seq: an older view is ignored, and a frame from a newer
 * seq that is not a view (the client missed one), a refused stale move or a reconnect
 * re-read the view over HTTP. */
import { $ } from "./dom.js";
import { syncOrder } from "./hand.js";
import { publish, state } from "./store.js";
import { t } from "./strings.js";

let socket = null; // this module's own: nothing else touches the socket
let retries = 0;
let refs = 0;
let pendingTimer = null;

function showMessage(text) {
  const box = $("message");
  box.textContent = text;
  box.hidden = false;
}

function hideMessage() {
  $("message").hidden = true;
}

/** A fresh view from the server: the hand order follows it, then the page redraws. */
function apply(fresh) {
  const ended = fresh.status !== state.view.status;
  const newHand = fresh.seq !== state.view.seq || ended;
  state.view = fresh;
  state.seq = fresh.seq;
  if (newHand) state.mode = null;
  if (ended && socket && socket.readyState === WebSocket.OPEN) showConnected();
  syncOrder();
  publish("table");
}

/** Connected: "Live" while the match is played, "Finished" once it is over. */
function showConnected() {
  if (state.view.status === "active") setConn("live", t("conn.live"));
  else setConn("done", t("conn.finished"));
}

export function act(action) {
  if (state.pending !== null || state.view.status !== "active") return;
  hideMessage();
  state.pending = ++refs;
  $("knock-table").classList.add("busy");
  pendingTimer = setTimeout(() => { settle(); resync(); }, 8000);
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ type: "act", seq: state.seq, action, ref: state.pending }));
    return;
  }
  send(state.data.actions, { seq: state.seq, action });
}

/** An action that is no turn: "resign", "abort" or "next_hand", over the socket, else
 * HTTP (the URLs the page names in data.controls). */
export function control(kind) {
  if (state.pending !== null || state.view.status !== "active") return;
  hideMessage();
  state.pending = ++refs;
  $("knock-table").classList.add("busy");
  pendingTimer = setTimeout(() => { settle(); resync(); }, 8000);
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ type: kind, ref: state.pending }));
    return;
  }
  send(state.data.controls[kind], {});
}

function send(url, body) {
  fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  })
    .then((response) => response.json().then((answer) => ({ ok: response.ok, answer })))
    .then(({ ok, answer }) => {
      settle();
      if (ok) apply(answer);
      else refused(answer.error || { code: "error", message: t("send.refused") });
    })
    .catch((err) => { settle(); showMessage(t("send.failed", { reason: err.message })); });
}

function settle() {
  state.pending = null;
  clearTimeout(pendingTimer);
  $("knock-table").classList.remove("busy");
}

function refused(error) {
  const known = `error.${error.code}`;
  showMessage(t(known, {}, undefined, error.message || t("send.not_allowed")));
  resync();
}

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export function resync(quiet) {
  return fetch(state.data.api, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error("HTTP " + response.status))))
    .then((fresh) => { if (fresh.seq >= state.seq) apply(fresh); })
    .catch((err) => {
      if (quiet) console.warn("knock: reading the table failed", err);
      else showMessage(t("send.reload", { reason: err.message }));
    });
}

export function setConn(status, text) {
  const conn = $("conn");
  conn.dataset.state = status;
  conn.textContent = text;
}

function frame(msg) {
  if (msg.type === "view") {
    if (msg.ref !== undefined && msg.ref === state.pending) settle();
    if (msg.seq >= state.seq) apply(msg.view);
  } else if (msg.type === "error") {
    if (msg.ref === state.pending) { settle(); refused(msg.error); }
    else if (msg.seq !== null && msg.seq > state.seq) resync();
  } else if (msg.type === "presence") {
    state.online = new Set(msg.online);
    if (msg.seq !== null && msg.seq > state.seq) resync(); // a gap: a view went missing
    publish("seats");
  }
}

export function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}${state.data.socket}`);
  socket.addEventListener("open", () => {
    retries = 0;
    showConnected();
    if (state.everOpen) resync(); // back after a drop: whatever was missed comes over HTTP
    state.everOpen = true;
  });
  socket.addEventListener("message", (event) => frame(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    if (state.pending !== null) { settle(); resync(); }
    if (state.view.status !== "active" && state.everOpen) { setConn("done", t("conn.finished")); return; }
    const delay = Math.min(30000, 500 * 2 ** retries) * (0.75 + Math.random() / 2);
    retries += 1;
    setConn("down", t("conn.reconnecting", { s: Math.ceil(delay / 1000) }));
    setTimeout(connect, delay);
  });
}

/** While the socket is down (a restart, a proxy without WebSockets) the table still
 * moves: its view is read over HTTP every few seconds until the socket is back. */
export function pollWhileDown() {
  setInterval(() => {
    const down = !socket || socket.readyState !== WebSocket.OPEN;
    if (down && state.view.status === "active" && state.pending === null && !document.hidden) resync(true);
  }, 3000);
}
