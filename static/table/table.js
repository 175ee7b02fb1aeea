/* Knock's live table. Plain JavaScript, no build step, no inline code (CSP: script-src 'self').
 *
 * State comes from the server only: the seat's view (the same JSON as GET /api/matches/<id>/),
 * first from the page's json_script data, then from the socket /ws/matches/<id>/. Every
 * frame carries the match seq: an older view is ignored, and a frame from a newer seq that is
 * not a view (the client missed one), a refused stale move or a reconnect re-read the view
 * over HTTP. The actions offered are exactly the view's legal_actions, whatever the variant:
 * cards act by click or Enter; draws, knocks, melds, lay-offs and declarations by the widgets
 * below; any action type without a widget still gets a plain button.
 */
(function () {
  "use strict";

  const RANKS = {
    A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
    8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king",
  };
  const RANK_ORDER = "A23456789TJQK";
  const SUITS = { S: ["spades", "\u2660"], H: ["hearts", "\u2665"], D: ["diamonds", "\u2666"], C: ["clubs", "\u2663"] };
  const SUIT_ORDER = "SHCD"; // alternating colours when sorted by suit
  const PLAIN = { pass: "Pass", drop: "Drop (fold this deal)", big_gin: "Big gin!" };
  const ERRORS = {
    stale_seq: "The table moved on before your move arrived, so it was not played. Here is the table as it is now.",
    not_your_turn: "It is not your turn: nothing was played.",
    match_over: "The match is over: nothing was played.",
  };

  const root = document.getElementById("knock-table");
  if (!root) return;
  const data = JSON.parse(document.getElementById("table-data").textContent);
  const $ = (id) => document.getElementById(id);
  const store = {
    get(key, fallback) {
      try { const raw = localStorage.getItem(key); return raw === null ? fallback : JSON.parse(raw); }
      catch (err) { console.warn("knock: localStorage unreadable", err); return fallback; }
    },
    set(key, value) {
      try { localStorage.setItem(key, JSON.stringify(value)); }
      catch (err) { console.warn("knock: localStorage unwritable", err); }
    },
  };
  const orderKey = `knock:order:${data.match}`;
  const shownKey = `knock:showdown:${data.match}`;
  const groupsKey = `knock:groups:${data.match}`;

  let view = data.view;
  let seq = view.seq;
  let order = [];          // the player's hand order: card texts, duplicates allowed
  let groups = [];         // the player's groups (card texts): the front of `order`, in order
  let selected = new Set(); // positions in `order`
  let mode = null;          // "knock" while choosing the card to knock with
  let pending = null;       // ref of the action in flight
  let pendingTimer = null;
  let refs = 0;
  let socket = null;
  let retries = 0;
  let everOpen = false;
  let online = new Set();

  // --- cards -------------------------------------------------------------------------

  function cardName(text) {
    if (text === "JK") return "joker";
    return `${RANKS[text[0]]} of ${SUITS[text[1]][0]}`;
  }

  function cardFace(text, tag, extra) {
    const el = document.createElement(tag || "span");
    el.className = "card" + (extra ? " " + extra : "");
    if (text === "JK") {
      el.classList.add("joker");
      el.append(span("corner", "\u2605"), span("pip", "JOKER"));
    } else {
      const [rank, suit] = [text[0], text[1]];
      el.classList.add("suit-" + suit);
      const label = rank === "T" ? "10" : rank;
      el.append(span("corner", label + "\n" + SUITS[suit][1]), span("pip", SUITS[suit][1]));
    }
    el.querySelectorAll("span").forEach((s) => s.setAttribute("aria-hidden", "true"));
    el.dataset.card = text;
    if (tag === "button") el.setAttribute("aria-label", cardName(text));
    else { el.setAttribute("role", "img"); el.setAttribute("aria-label", cardName(text)); }
    return el;
  }

  function span(cls, text) {
    const el = document.createElement("span");
    el.className = cls;
    el.textContent = text;
    return el;
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardRow(cards, cls) {
    const row = el("span", "card-row " + (cls || ""));
    cards.forEach((c) => row.append(cardFace(c, "span", "small")));
    return row;
  }

  // --- hand order (the player's own, kept across reloads) -----------------------------

  function syncOrder() {
    const saved = store.get(orderKey, []);
    const remaining = view.hand.slice();
    const next = [];
    groups = store.get(groupsKey, []).filter((group) => {
      const left = remaining.slice();
      const whole = group.every((card) => { const at = left.indexOf(card); if (at < 0) return false; left.splice(at, 1); return true; });
      if (whole) group.forEach((card) => remaining.splice(remaining.indexOf(card), 1));
      return whole;
    });
    groups.forEach((group) => next.push(...group));
    for (const card of saved) {
      const at = remaining.indexOf(card);
      if (at >= 0) { next.push(card); remaining.splice(at, 1); }
    }
    const changed = next.length !== order.length || next.some((c, i) => c !== order[i]);
    order = next.concat(remaining);
    if (changed || remaining.length) selected = new Set();
    store.set(orderKey, order);
    store.set(groupsKey, groups);
  }

  // --- groups: sets and runs the player builds (Indian declarations, planning melds) ----

  function groupSelected() {
    const cards = selectedCards();
    if (!cards.length) return;
    // Groups sit at the front of the order: take the chosen cards out of wherever they
    // were, and add them as the last group.
    let position = 0;
    const kept = groups.map((group) => group.filter(() => !selected.has(position++)));
    const rest = order.filter((_, at) => at >= position && !selected.has(at));
    groups = kept.filter((group) => group.length).concat([cards]);
    order = groups.flat().concat(rest);
    selected = new Set();
    store.set(groupsKey, groups);
    store.set(orderKey, order);
    render();
  }

  function ungroup() {
    groups = [];
    store.set(groupsKey, groups);
    render();
  }

  function groupKind(cards) {
    const wildRank = view.table.wild_rank;
    const wild = (c) => c === "JK" || (wildRank !== undefined && c[0] === wildRank);
    const natural = cards.filter((c) => !wild(c));
    const wilds = cards.length - natural.length;
    if (cards.length < 3) return "too short";
    if (!natural.length) return "set";
    const suits = new Set(natural.map((c) => c[1]));
    if (natural.every((c) => c[0] === natural[0][0]) && suits.size === natural.length && cards.length <= 4) return "set";
    if (suits.size === 1) {
      for (const aceHigh of [false, true]) {
        const ranks = natural.map((c) => (c[0] === "A" && aceHigh ? 14 : RANK_ORDER.indexOf(c[0]) + 1)).sort((a, b) => a - b);
        if (new Set(ranks).size !== ranks.length) continue;
        if (ranks[ranks.length - 1] - ranks[0] + 1 - ranks.length <= wilds) return wilds ? "run" : "pure run";
      }
    }
    return "not a set or run";
  }

  function sortBy(key) {
    const value = (c) => {
      if (c === "JK") return 99;
      const r = RANK_ORDER.indexOf(c[0]);
      const s = SUIT_ORDER.indexOf(c[1]);
      return key === "suit" ? s * 20 + r : r * 5 + s;
    };
    order.sort((a, b) => value(a) - value(b));
    selected = new Set();
    groups = [];
    store.set(groupsKey, groups);
    store.set(orderKey, order);
    renderHand();
  }

  function move(from, to) {
    if (to < 0 || to >= order.length || from === to) return;
    const [card] = order.splice(from, 1);
    order.splice(to, 0, card);
    selected = new Set();
    groups = [];
    store.set(groupsKey, groups);
    store.set(orderKey, order);
    renderHand(to);
  }

  // --- legal actions ------------------------------------------------------------------

  function legal(type) { return view.legal_actions.filter((a) => a.type === type); }
  function sameCards(a, b) {
    if (a.length !== b.length) return false;
    const x = a.slice().sort(), y = b.slice().sort();
    return x.every((c, i) => c === y[i]);
  }
  function selectedCards() { return [...selected].sort((a, b) => a - b).map((i) => order[i]); }
  // Variants whose moves take several cards (a table of melds, declarations, lay-offs)
  // select cards first, then say what to do with them; the others act on a click.
  function selecting() {
    return Array.isArray(view.table.melds) ||
      view.legal_actions.some((a) => Array.isArray(a.cards) || Array.isArray(a.groups) || a.type === "layoff");
  }

  function onCard(position) {
    const card = order[position];
    if (mode === "knock") {
      const knock = legal("knock").find((a) => a.card === card);
      if (knock) { mode = null; act(knock); }
      return;
    }
    if (selecting()) {
      if (selected.has(position)) selected.delete(position); else selected.add(position);
      render();
      return;
    }
    const discard = legal("discard").find((a) => a.card === card);
    if (discard) act(discard);
  }

  // --- sending ------------------------------------------------------------------------

  function act(action) {
    if (pending !== null || view.status !== "active") return;
    hideMessage();
    pending = ++refs;
    root.classList.add("busy");
    pendingTimer = setTimeout(() => { settle(); resync(); }, 8000);
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "act", seq: seq, action: action, ref: pending }));
      return;
    }
    fetch(data.actions, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify({ seq: seq, action: action }),
    })
      .then((response) => response.json().then((body) => ({ ok: response.ok, body })))
      .then(({ ok, body }) => {
        settle();
        if (ok) apply(body);
        else refused(body.error || { code: "error", message: "The move was refused." });
      })
      .catch((err) => { settle(); showMessage("The move could not be sent: " + err.message); });
  }

  function settle() {
    pending = null;
    clearTimeout(pendingTimer);
    root.classList.remove("busy");
  }

  function refused(error) {
    showMessage(ERRORS[error.code] || error.message || "That move is not allowed.");
    resync();
  }

  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function resync(quiet) {
    return fetch(data.api, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error("HTTP " + response.status))))
      .then((fresh) => { if (fresh.seq >= seq) apply(fresh); })
      .catch((err) => {
        if (quiet) console.warn("knock: reading the table failed", err);
        else showMessage("Could not reload the table: " + err.message);
      });
  }

  // While the socket is down (a restart, a proxy without WebSockets) the table still moves:
  // its view is read over HTTP every few seconds until the socket is back.
  setInterval(() => {
    const down = !socket || socket.readyState !== WebSocket.OPEN;
    if (down && view.status === "active" && pending === null && !document.hidden) resync(true);
  }, 3000);

  // --- the socket ---------------------------------------------------------------------

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}${data.socket}`);
    socket.addEventListener("open", () => {
      retries = 0;
      setConn("live", "Live");
      if (everOpen) resync(); // back after a drop: whatever was missed comes over HTTP
      everOpen = true;
    });
    socket.addEventListener("message", (event) => frame(JSON.parse(event.data)));
    socket.addEventListener("close", () => {
      if (pending !== null) { settle(); resync(); }
      if (view.status !== "active" && everOpen) { setConn("done", "Finished"); return; }
      const delay = Math.min(30000, 500 * 2 ** retries) * (0.75 + Math.random() / 2);
      retries += 1;
      setConn("down", `Reconnecting in ${Math.ceil(delay / 1000)} s…`);
      setTimeout(connect, delay);
    });
  }

  function frame(msg) {
    if (msg.type === "view") {
      if (msg.ref !== undefined && msg.ref === pending) settle();
      if (msg.seq >= seq) apply(msg.view);
    } else if (msg.type === "error") {
      if (msg.ref === pending) { settle(); refused(msg.error); }
      else if (msg.seq !== null && msg.seq > seq) resync();
    } else if (msg.type === "presence") {
      online = new Set(msg.online);
      if (msg.seq !== null && msg.seq > seq) resync(); // a gap: a view went missing
      renderSeats();
    }
  }

  function setConn(state, text) {
    const conn = $("conn");
    conn.dataset.state = state;
    conn.textContent = text;
  }

  // --- rendering ----------------------------------------------------------------------

  function apply(fresh) {
    const newHand = fresh.seq !== view.seq || fresh.status !== view.status;
    view = fresh;
    seq = fresh.seq;
    if (newHand) mode = null;
    syncOrder();
    render();
  }

  function render() {
    const t = view.table;
    const target = (view.options && view.options.target) || t.target;
    const me = view.seat;
    const meta = [`Hand ${t.hand_number || 1}`];
    if (target) meta.push(`first to ${target}`);
    if (me !== null && view.scores) meta.push(`your score ${view.scores[me]}`);
    $("table-meta").textContent = meta.join(" · ");
    root.dataset.seq = String(view.seq);
    root.dataset.status = view.status;
    root.classList.toggle("spectating", me === null);
    root.classList.toggle("my-turn", !!view.your_turn);
    renderSeats();
    renderPiles();
    renderMelds();
    renderActions();
    renderHand();
    renderShowdown();
    renderResult();
  }

  function seatName(index) {
    const p = data.players[index];
    return index === view.seat ? "You" : p ? p.name : `Seat ${index + 1}`;
  }

  function renderSeats() {
    const list = $("seats");
    list.replaceChildren();
    const target = (view.options && view.options.target) || view.table.target;
    view.seats.forEach((seat) => {
      const p = data.players[seat.seat] || {};
      const li = el("li", "seat");
      li.dataset.seat = seat.seat;
      if (seat.seat === view.seat) li.classList.add("me");
      if (view.status === "active" && view.to_move === seat.seat) li.classList.add("to-move");
      const head = el("div", "seat-head");
      const name = el("a", "seat-name", seat.seat === view.seat ? `${p.name} (you)` : p.name);
      name.href = p.profile;
      const state = el("span", "presence");
      if (p.bot) { state.textContent = "bot"; state.dataset.state = "bot"; }
      else if (online.has(seat.seat)) { state.textContent = "online"; state.dataset.state = "on"; }
      else { state.textContent = "away"; state.dataset.state = "off"; }
      head.append(name, state);
      const facts = [];
      if (p.title) facts.push(p.title);
      facts.push(`level ${p.level}`);
      if (p.rating !== null && p.rating !== undefined) facts.push(`rating ${p.rating}`);
      const detail = el("div", "seat-facts", facts.join(" · "));
      const score = el("div", "seat-score");
      score.append(el("strong", "", String(view.scores[seat.seat])), el("span", "", target ? ` / ${target}` : " pts"));
      const cards = el("div", "seat-cards", `${seat.card_count} card${seat.card_count === 1 ? "" : "s"}`);
      if (seat.seat !== view.seat) {
        const backs = el("span", "backs");
        backs.setAttribute("aria-hidden", "true");
        for (let i = 0; i < Math.min(seat.card_count, 13); i += 1) backs.append(el("span", "back"));
        cards.prepend(backs);
      }
      if (view.status === "active" && view.to_move === seat.seat) {
        const clock = el("span", "clock");
        clock.dataset.deadline = p.bot ? "" : view.turn_deadline || "";
        clock.textContent = p.bot ? "thinking…" : "";
        clock.setAttribute("aria-label", "time left for this turn");
        score.append(clock);
      }
      li.append(head, detail, score, cards);
      list.append(li);
    });
    tick();
  }

  function renderPiles() {
    const t = view.table;
    const stock = $("stock");
    $("stock-count").textContent = t.stock_count;
    stock.setAttribute("aria-label", `Stock, ${t.stock_count} cards`);
    const drawStock = legal("draw").find((a) => a.source === "stock");
    stock.disabled = !drawStock || pending !== null;
    stock.classList.toggle("playable", !!drawStock);
    stock.onclick = drawStock ? () => act(drawStock) : null;

    const pile = $("discard");
    pile.replaceChildren();
    const top = t.discard.length ? t.discard[t.discard.length - 1] : null;
    const takePile = legal("draw").find((a) => a.source === "discard");
    if (top) {
      const card = cardFace(top, takePile ? "button" : "span", "upcard");
      if (takePile) {
        card.type = "button";
        card.classList.add("playable");
        card.setAttribute("aria-label", `Take the ${cardName(top)} from the discard pile`);
        card.addEventListener("click", () => act(takePile));
      }
      if (t.discard.length > 1) pile.classList.add("stacked"); else pile.classList.remove("stacked");
      pile.append(card);
    } else {
      pile.append(el("span", "empty-pile", "empty"));
    }
    const extra = $("extra");
    extra.replaceChildren();
    extra.hidden = !t.cut_joker;
    if (t.cut_joker) {
      extra.append(cardFace(t.cut_joker, "span", "cut"), el("span", "pile-label", `Cut joker: ${RANKS[t.wild_rank] || t.wild_rank}s are wild`));
    }
  }

  function renderMelds() {
    const box = $("melds");
    const melds = view.table.melds || [];
    box.hidden = melds.length === 0;
    box.replaceChildren();
    const chosen = selectedCards();
    melds.forEach((meld, index) => {
      const item = el("div", "meld");
      item.append(el("span", "meld-kind", meld.kind || "meld"), cardRow(meld.cards));
      const layoff = chosen.length === 1 && legal("layoff").find((a) => a.meld === index && a.card === chosen[0]);
      if (layoff) {
        const button = el("button", "act layoff", `Lay off the ${cardName(chosen[0])} here`);
        button.type = "button";
        button.addEventListener("click", () => { selected = new Set(); act(layoff); });
        item.append(button);
        item.classList.add("target");
      }
      box.append(item);
    });
  }

  function button(label, handler, cls) {
    const b = el("button", "act " + (cls || ""), label);
    b.type = "button";
    b.disabled = pending !== null;
    b.addEventListener("click", handler);
    return b;
  }

  function renderActions() {
    const box = $("actions");
    box.replaceChildren();
    const prompt = $("prompt");
    if (view.status !== "active") { prompt.textContent = "The match is over."; return; }
    if (!view.your_turn) {
      prompt.textContent = view.seat === null ? `${seatName(view.to_move)} to play.` : `Waiting for ${seatName(view.to_move)}…`;
      return;
    }
    const handled = new Set(["discard", "knock", "meld", "layoff", "declare"]);
    const draws = legal("draw");
    draws.forEach((a) => {
      const top = view.table.discard[view.table.discard.length - 1];
      const label = a.source === "stock" ? "Draw from the stock" : `Take the ${cardName(top)}`;
      box.append(button(label, () => act(a), "primary"));
    });
    handled.add("draw");
    const knocks = legal("knock");
    if (knocks.length) {
      box.append(button(mode === "knock" ? "Cancel knock" : "Knock…", () => {
        mode = mode === "knock" ? null : "knock";
        render();
      }, "knock" + (mode === "knock" ? " on" : "")));
    }
    const chosen = selectedCards();
    if (selecting()) {
      const offer = (label, action, cls) => {
        const b = button(label, () => { selected = new Set(); act(action); }, cls);
        b.disabled = !action || pending !== null;
        box.append(b);
      };
      const meld = legal("meld").find((a) => sameCards(a.cards, chosen));
      if (legal("meld").length) offer("Meld the selected cards", meld, meld ? "primary" : "");
      const discard = chosen.length === 1 && legal("discard").find((a) => a.card === chosen[0]);
      if (legal("discard").length) {
        offer(discard ? `Discard the ${cardName(chosen[0])}` : "Discard (select one card)", discard);
      }
      const offered = chosen.length === 1 && legal("declare").find((a) => a.card === chosen[0]);
      // The player's own groups when they hold every other card; else the engine's.
      const mine = offered && sameCards(groups.flat(), order.filter((_, at) => !selected.has(at)));
      const declare = offered && (mine ? { type: "declare", card: offered.card, groups: groups } : offered);
      if (legal("declare").length) {
        const label = !declare ? "Declare (select the card to discard)"
          : `Declare ${mine ? "my groups" : "(the engine groups the cards)"}, discarding the ${cardName(chosen[0])}`;
        offer(label, declare, "primary");
      }
    }
    view.legal_actions.forEach((a) => {
      if (handled.has(a.type)) return;
      const label = PLAIN[a.type] || (a.type.charAt(0).toUpperCase() + a.type.slice(1).replace(/_/g, " "));
      box.append(button(label, () => act(a), a.type === "big_gin" ? "primary" : ""));
    });
    let text;
    if (mode === "knock") text = "Knock: choose the card to discard face down (every lit card keeps you within the knock limit).";
    else if (legal("pass").length) text = "Your turn: take the upcard, or pass.";
    else if (draws.length) text = "Your turn: draw from the stock or take the top of the discard pile.";
    else if (selecting()) text = legal("declare").length ? "Your turn: group your cards, select the one to discard, then declare or discard." : "Your turn: select cards to meld or lay off, then select one card to discard.";
    else text = knocks.length ? "Your turn: discard a card, or knock." : "Your turn: discard a card.";
    prompt.textContent = text;
  }

  function renderHand(focusAt) {
    const hand = $("hand");
    const active = document.activeElement;
    const focused = active && active.closest && active.closest("#hand") ? Number(active.dataset.position) : null;
    hand.replaceChildren();
    $("hand-area").hidden = view.seat === null;
    const discards = new Set(legal("discard").map((a) => a.card));
    const knocks = new Set(legal("knock").map((a) => a.card));
    const picking = selecting();
    const ends = new Set();
    groups.reduce((at, group) => { ends.add(at + group.length - 1); return at + group.length; }, 0);
    const grouped = groups.reduce((n, group) => n + group.length, 0);
    order.forEach((card, position) => {
      const li = el("li", "slot");
      if (ends.has(position)) li.classList.add("group-end");
      if (position < grouped) li.classList.add("grouped");
      li.draggable = true;
      li.dataset.position = position;
      const face = cardFace(card, "button");
      face.type = "button";
      face.dataset.position = position;
      const playable = mode === "knock" ? knocks.has(card) : picking || discards.has(card);
      face.classList.toggle("playable", view.your_turn && playable);
      face.classList.toggle("selected", selected.has(position));
      if (picking) face.setAttribute("aria-pressed", selected.has(position) ? "true" : "false");
      if (view.taken_from_discard === card || view.table.taken_from_discard === card) face.classList.add("taken");
      face.addEventListener("click", () => onCard(position));
      face.addEventListener("keydown", (event) => {
        if (!event.altKey) return;
        if (event.key === "ArrowLeft") { event.preventDefault(); move(position, position - 1); }
        if (event.key === "ArrowRight") { event.preventDefault(); move(position, position + 1); }
      });
      li.addEventListener("dragstart", (event) => { event.dataTransfer.setData("text/plain", String(position)); li.classList.add("dragging"); });
      li.addEventListener("dragend", () => li.classList.remove("dragging"));
      li.addEventListener("dragover", (event) => event.preventDefault());
      li.addEventListener("drop", (event) => {
        event.preventDefault();
        move(Number(event.dataTransfer.getData("text/plain")), position);
      });
      li.append(face);
      hand.append(li);
    });
    $("hand-note").textContent = view.hand.length ? `· ${view.hand.length} cards` : "";
    $("group-tools").hidden = !picking;
    $("group-selected").disabled = selected.size === 0;
    $("ungroup").disabled = groups.length === 0;
    const note = $("groups-note");
    note.replaceChildren();
    groups.forEach((group, index) => {
      const kind = groupKind(group);
      const item = el("li", kind === "not a set or run" || kind === "too short" ? "bad" : "good", `Group ${index + 1}: ${kind}`);
      note.append(item);
    });
    const again = focusAt !== undefined ? focusAt : focused;
    if (again !== null && again !== undefined && !Number.isNaN(again)) {
      const target = hand.querySelector(`button[data-position="${Math.min(again, order.length - 1)}"]`);
      if (target) target.focus();
    }
  }

  function renderShowdown() {
    const box = $("showdown");
    const last = view.table.last_hand;
    const seen = Number(sessionStorage.getItem(shownKey) || 0);
    if (!last || (seen >= last.hand_number && view.status === "active")) { box.hidden = true; return; }
    box.replaceChildren();
    const who = last.winner === null || last.winner === undefined ? "Nobody" : seatName(last.winner);
    const kinds = { knock: "knocked", gin: "went gin", big_gin: "went big gin", undercut: "was undercut", out: "went out", declared: "declared" };
    let headline = `Hand ${last.hand_number}: `;
    if (last.knocker !== undefined && last.knocker !== null) {
      headline += `${seatName(last.knocker)} ${last.kind === "undercut" ? "knocked and was undercut" : kinds[last.kind] || last.kind}. `;
    } else if (last.kind) headline += `${kinds[last.kind] || last.kind}. `;
    const points = Array.isArray(last.points) ? "" : ` ${who === "You" ? "You score" : who + " scores"} ${last.points} points.`;
    box.append(el("h2", "", headline + (last.winner !== null && last.winner !== undefined ? `${who} won the hand.` : "") + points));
    box.firstChild.id = "showdown-title";
    const rows = el("div", "showdown-rows");
    (last.hands || []).forEach((hand, seat) => {
      const row = el("div", "showdown-seat");
      row.append(el("h3", "", seatName(seat)));
      const melds = last.melds && Array.isArray(last.melds[seat]) ? last.melds[seat] : null;
      const groups = last.groups && last.groups[seat] ? last.groups[seat] : null;
      if (melds) {
        const line = el("div", "line");
        line.append(el("span", "what", "Melds"));
        melds.forEach((m) => line.append(cardRow(m)));
        if (!melds.length) line.append(el("span", "muted", "none"));
        row.append(line);
      } else if (groups) {
        const line = el("div", "line");
        line.append(el("span", "what", "Groups"));
        groups.groups.forEach((g) => line.append(cardRow(g)));
        row.append(line);
      }
      const dead = last.deadwood ? last.deadwood[seat] : groups ? groups.ungrouped : hand;
      const line = el("div", "line");
      const deadPoints = last.deadwood_points ? ` (${last.deadwood_points[seat]})` : "";
      line.append(el("span", "what", (last.deadwood || groups ? "Deadwood" : "Hand") + deadPoints), cardRow(dead));
      row.append(line);
      if (last.layoffs && last.layoffs.length && seat !== last.knocker) {
        const lay = el("div", "line");
        lay.append(el("span", "what", "Laid off"), cardRow(last.layoffs));
        row.append(lay);
      }
      rows.append(row);
    });
    box.append(rows);
    if (view.status === "active") {
      const next = button("Next hand", () => { sessionStorage.setItem(shownKey, String(last.hand_number)); renderShowdown(); }, "primary");
      next.disabled = false;
      box.append(next);
    }
    box.hidden = false;
  }

  function renderResult() {
    const box = $("result");
    if (view.status === "active") { box.hidden = true; return; }
    box.replaceChildren();
    const result = view.result || {};
    const mine = view.seat;
    const title = el("h2", "", view.status === "disputed" ? "Match under review" : mine === null ? "Match over" : view.placements[mine] === 1 ? "You won the match!" : "Match over: you lost this one");
    title.id = "result-title";
    box.append(title);
    const list = el("ol", "standings");
    view.seats.map((s) => s.seat).sort((a, b) => view.placements[a] - view.placements[b]).forEach((seat) => {
      list.append(el("li", "", `${seatName(seat)}: ${result.scores ? result.scores[seat] : view.scores[seat]} points`));
    });
    box.append(list);
    if (result.forfeit) box.append(el("p", "muted", `${seatName(result.forfeit.seat)} forfeited (${result.forfeit.reason}).`));
    const fair = el("div", "fair");
    fair.append(el("h3", "", "Check the deal"));
    const dl = el("dl", "");
    dl.append(el("dt", "", "Seed"), el("dd", "mono", view.seed || ""), el("dt", "", "Commitment (SHA-256 of the seed, shown from the first move)"), el("dd", "mono", view.commitment));
    fair.append(dl);
    fair.append(el("p", "", "Replay every move from the seed with this checkout's engine:"));
    fair.append(el("pre", "recipe", [
      "import json",
      "from engine import fair, variants",
      `view = json.load(open("match-${data.match}.json"))  # saved from ${data.api}`,
      "assert fair.commitment(view[\"seed\"]) == view[\"commitment\"]",
      "game = variants.get(view[\"variant\"]).replay(view[\"moves\"], len(view[\"seats\"]), view[\"seed\"], view[\"options\"])",
      "assert game.result == view[\"result\"]",
    ].join("\n")));
    const links = el("p", "");
    const json = el("a", "", "The match as JSON (seed, moves, result)");
    json.href = data.api;
    const lobby = el("a", "button-link", "Back to the lobby");
    lobby.href = data.lobby;
    links.append(json, " · ", lobby);
    fair.append(links);
    box.append(fair);
    box.hidden = false;
  }

  function tick() {
    document.querySelectorAll(".clock[data-deadline]").forEach((clock) => {
      if (!clock.dataset.deadline) return;
      const left = Math.max(0, Math.round((Date.parse(clock.dataset.deadline) - Date.now()) / 1000));
      clock.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
      clock.classList.toggle("urgent", left <= 10);
    });
  }

  // --- messages and tools --------------------------------------------------------------

  function showMessage(text) {
    const box = $("message");
    box.textContent = text;
    box.hidden = false;
  }
  function hideMessage() { $("message").hidden = true; }

  const fourColour = $("four-colour");
  function setFourColour(on) {
    root.classList.toggle("four-colour", on);
    fourColour.setAttribute("aria-pressed", on ? "true" : "false");
    store.set("knock:four-colour", on);
  }
  fourColour.addEventListener("click", () => setFourColour(!root.classList.contains("four-colour")));
  setFourColour(store.get("knock:four-colour", false));
  $("sort-suit").addEventListener("click", () => sortBy("suit"));
  $("sort-rank").addEventListener("click", () => sortBy("rank"));
  $("group-selected").addEventListener("click", groupSelected);
  $("ungroup").addEventListener("click", ungroup);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && mode) { mode = null; render(); }
  });

  syncOrder();
  render();
  setInterval(tick, 250);
  connect();
})();
