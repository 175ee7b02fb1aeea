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
    claim_window_open: "Others may still buy the discard: the stock opens when the countdown ends.",
    already_claimed: "You have asked for this card already.",
    no_claim_window: "Too late: the card was taken before your cut-in arrived.",
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

  // The hand as zones: the player's groups, then the loose cards. `order` is always
  // groups.flat() followed by the loose cards, so positions in `order` stay the card ids.
  function zones() {
    const grouped = groups.reduce((n, group) => n + group.length, 0);
    return groups.map((group) => group.slice()).concat([order.slice(grouped)]);
  }

  function locate(position) {
    let at = position;
    const all = zones();
    for (let z = 0; z < all.length; z += 1) {
      if (at < all[z].length || z === all.length - 1) return [z, at];
      at -= all[z].length;
    }
    return [all.length - 1, 0];
  }

  function saveZones(all) {
    const loose = all.pop();
    groups = all.filter((group) => group.length);
    order = groups.flat().concat(loose);
    store.set(groupsKey, groups);
    store.set(orderKey, order);
  }

  function groupSelected() {
    const cards = selectedCards();
    if (!cards.length) return;
    // The chosen cards leave wherever they were and become the last group.
    const all = zones();
    let position = 0;
    const kept = all.map((zone) => zone.filter(() => !selected.has(position++)));
    kept.splice(kept.length - 1, 0, cards);
    selected = new Set();
    saveZones(kept);
    render();
    announce(`Group ${groups.length} made: ${groupKind(cards)}.`);
  }

  function ungroup() {
    groups = [];
    store.set(groupsKey, groups);
    render();
    announce("Groups cleared.");
  }

  // Move the card at `position` to index `index` of zone `zone` ("new" makes a new group).
  function moveCard(position, zone, index) {
    const all = zones();
    const [from, at] = locate(position);
    const [card] = all[from].splice(at, 1);
    if (zone === "new") {
      all.splice(all.length - 1, 0, [card]);
      zone = all.length - 2;
      index = 0;
    } else {
      index = Math.max(0, Math.min(index, all[zone].length));
      all[zone].splice(index, 0, card);
    }
    // Where the card lands once empty groups are gone, to keep the focus on it.
    let landed = index;
    for (let z = 0; z < zone; z += 1) landed += all[z].length;
    saveZones(all);
    selected = new Set();
    renderHand(landed);
    const [now] = locate(landed);
    const inGroup = now < groups.length;
    announce(`${cardName(card)} moved ${inGroup ? `to group ${now + 1}: ${groupKind(groups[now])}` : "to the loose cards"}.`);
  }

  // Touch screens fire no HTML drag events. A long press picks a card up (a quick swipe still
  // scrolls the page), the finger carries it, and lifting it over a card or a group drops it
  // there, as a mouse drag would; lifting it anywhere else puts it back.
  const LONG_PRESS_MS = 250;
  function carryByTouch(li, position) {
    let timer = null;
    let start = null;
    let lifted = false;
    let over = null;
    const hover = (node) => {
      if (over) over.classList.remove("over");
      over = node;
      if (over) over.classList.add("over");
    };
    const putDown = () => {
      clearTimeout(timer);
      lifted = false;
      li.style.transform = "";
      li.classList.remove("dragging");
      $("hand").classList.remove("dragging-card");
      const target = over;
      hover(null);
      return target;
    };
    li.addEventListener("touchstart", (event) => {
      if (event.touches.length !== 1) return;
      start = event.touches[0];
      timer = setTimeout(() => {
        lifted = true;
        li.classList.add("dragging", "carried");
        $("hand").classList.add("dragging-card");
      }, LONG_PRESS_MS);
    }, { passive: true });
    li.addEventListener("touchmove", (event) => {
      const touch = event.touches[0];
      if (!lifted) {
        if (Math.hypot(touch.clientX - start.clientX, touch.clientY - start.clientY) > 10) clearTimeout(timer);
        return;
      }
      event.preventDefault(); // the page holds still while a card is carried
      li.style.transform = `translate(${touch.clientX - start.clientX}px, ${touch.clientY - start.clientY}px)`;
      const under = document.elementFromPoint(touch.clientX, touch.clientY);
      hover(under && under.closest("#hand .slot, #hand .zone"));
    }, { passive: false });
    li.addEventListener("touchend", (event) => {
      if (!lifted) { clearTimeout(timer); return; }
      event.preventDefault(); // no click follows: the card was moved, not chosen
      li.classList.remove("carried");
      const target = putDown();
      if (!target || target === li) return;
      if (target.classList.contains("slot")) moveCard(position, Number(target.dataset.zone), Number(target.dataset.index));
      else if (target.dataset.zone === "new") moveCard(position, "new", 0);
      else moveCard(position, Number(target.dataset.zone), Infinity);
    });
    li.addEventListener("touchcancel", () => { li.classList.remove("carried"); putDown(); });
  }

  // Keyboard moves: Alt+←/→ step through the hand, across group edges; Alt+↑/↓ jump to
  // the previous or next group (Alt+↓ from the loose cards starts a new group).
  function keyMove(position, key) {
    const all = zones();
    const [z, at] = locate(position);
    const last = all.length - 1;
    if (key === "ArrowLeft") {
      if (at > 0) moveCard(position, z, at - 1);
      else if (z > 0) moveCard(position, z - 1, all[z - 1].length);
    } else if (key === "ArrowRight") {
      if (at < all[z].length - 1) moveCard(position, z, at + 1);
      else if (z < last) moveCard(position, z + 1, 0);
    } else if (key === "ArrowUp") {
      if (z > 0) moveCard(position, z - 1, all[z - 1].length);
    } else if (key === "ArrowDown") {
      if (z < last) moveCard(position, z + 1, z + 1 === last ? 0 : all[z + 1].length);
      else if (selecting()) moveCard(position, "new", 0);
    }
  }

  // The engine's classify (engine/melds.py), step for step, so a group is named as the engine
  // will judge it: a card of the wild rank may stand for itself (4H 5H 6H with sixes wild is
  // a pure run), every meld needs a card standing for itself, and runs are tried before sets.
  function groupKind(cards) {
    const wildRank = view.table.wild_rank;
    if (cards.length < 3) return "too short";
    const rankOf = (c, aceHigh) => (c[0] === "A" && aceHigh ? 14 : RANK_ORDER.indexOf(c[0]) + 1);
    const isRun = (naturals, size) => new Set(naturals.map((c) => c[1])).size === 1
      && size <= RANK_ORDER.length
      && [false, true].some((aceHigh) => {
        const ranks = naturals.map((c) => rankOf(c, aceHigh)).sort((a, b) => a - b);
        return new Set(ranks).size === ranks.length && ranks[ranks.length - 1] - ranks[0] + 1 <= size;
      });
    const isSet = (naturals, size) => size <= 4
      && naturals.every((c) => c[0] === naturals[0][0])
      && new Set(naturals.map((c) => c[1])).size === naturals.length;
    if (!cards.includes("JK")) {
      // n distinct ranks spanning at most n places are consecutive: a run with no gap to fill.
      if (isRun(cards, cards.length)) return "pure run";
      if (isSet(cards, cards.length)) return "set";
    }
    const naturals = cards.filter((c) => c !== "JK" && c[0] !== wildRank);
    if (!naturals.length || naturals.length === cards.length) return "not a set or run";
    if (isRun(naturals, cards.length)) return "run";
    if (isSet(naturals, cards.length)) return "set";
    return "not a set or run";
  }

  function sortBy(key) {
    const value = (c) => {
      if (c === "JK") return 99;
      const r = RANK_ORDER.indexOf(c[0]);
      const s = SUIT_ORDER.indexOf(c[1]);
      return key === "suit" ? s * 20 + r : r * 5 + s;
    };
    // Groups stay as the player built them; the loose cards are sorted.
    const all = zones();
    all[all.length - 1].sort((a, b) => value(a) - value(b));
    saveZones(all);
    selected = new Set();
    renderHand();
  }

  // --- legal actions ------------------------------------------------------------------

  function legal(type) { return view.legal_actions.filter((a) => a.type === type); }
  // The mover's stock draw waits while others may still buy the discard (Dummy's cut-ins).
  function stockHeld() {
    return !!view.claim_deadline && Date.parse(view.claim_deadline) > Date.now();
  }
  let heldShown = false;
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
    renderClaim();
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
      const t = view.table;
      let contract = null;
      if (Array.isArray(t.contract_names)) {
        // Dummy: each seat's own contract, whether it is down, and its cut-ins this hand.
        const name = t.contract_names[seat.seat];
        contract = el("div", "seat-contract", name ? `Contract ${t.contracts[seat.seat]}/12: ${name}` : "All twelve contracts done");
        if (t.down[seat.seat]) contract.append(el("span", "tag", "down"));
        if (t.cut_ins[seat.seat]) contract.append(el("span", "tag", `${t.cut_ins[seat.seat]} cut-in${t.cut_ins[seat.seat] === 1 ? "" : "s"}`));
      }
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
      li.append(head, detail, ...(contract ? [contract] : []), score, cards);
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
    stock.disabled = !drawStock || pending !== null || stockHeld();
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
      const kind = meld.kind || "meld";
      item.append(el("span", "meld-kind", meld.owner === undefined ? kind : `${seatName(meld.owner)} · ${kind}`), cardRow(meld.cards));
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

  // Dummy's claim window: the offered card, who asked for it, a countdown for every seat and
  // a Buy button for the seats the engine lets claim (view.legal_actions).
  function renderClaim() {
    const box = $("claim-window");
    const w = view.table.claim_window;
    box.replaceChildren();
    // Shown while someone may still buy the card or has asked for it.
    box.hidden = !w || view.status !== "active" || !(w.may_claim.length || w.claims.length);
    heldShown = stockHeld();
    if (box.hidden) return;
    const head = el("div", "claim-head");
    head.append(el("strong", "", "Cut-in: "), cardFace(w.card, "span", "small"), ` the ${cardName(w.card)} is on offer`);
    const clock = el("span", "claim-clock");
    clock.dataset.claimDeadline = view.claim_deadline || "";
    head.append(clock);
    box.append(head);
    const asked = w.claims.map(seatName);
    box.append(el("p", "claim-asked", asked.length ? `Asked for it: ${asked.join(", ")} (the nearest to ${seatName(view.to_move)}'s left gets it if ${seatName(view.to_move)} draws from the stock).` : `${seatName(view.to_move)} may take it; others may buy it.`));
    const claim = legal("claim")[0];
    if (claim) {
      const penalty = view.options.cut_in_penalty;
      const b = button(`Buy the ${cardName(w.card)} (+${penalty} from the stock)`, () => act(claim), "primary buy");
      box.append(b);
    }
    tickClaim();
  }

  function tickClaim() {
    const clock = document.querySelector(".claim-clock");
    if (!clock) return;
    const deadline = clock.dataset.claimDeadline;
    const left = deadline ? Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000)) : 0;
    clock.textContent = left ? ` · ${left} s to buy` : ` · waiting for ${seatName(view.to_move)} to draw`;
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
    renderKnockOptions();
    const prompt = $("prompt");
    if (view.status !== "active") { prompt.textContent = "The match is over."; return; }
    if (!view.your_turn) {
      if (legal("claim").length) { prompt.textContent = `Waiting for ${seatName(view.to_move)}… You may buy the discard.`; return; }
      prompt.textContent = view.seat === null ? `${seatName(view.to_move)} to play. You are watching: the hands stay hidden.` : `Waiting for ${seatName(view.to_move)}…`;
      return;
    }
    const handled = new Set(["discard", "knock", "meld", "layoff", "declare", "claim"]);
    const draws = legal("draw");
    draws.forEach((a) => {
      const top = view.table.discard[view.table.discard.length - 1];
      const held = a.source === "stock" && stockHeld();
      const label = a.source === "stock" ? (held ? "Draw from the stock (others may buy first)" : "Draw from the stock") : `Take the ${cardName(top)}`;
      const b = button(label, () => act(a), "primary");
      b.disabled = b.disabled || held;
      box.append(b);
    });
    handled.add("draw");
    const knocks = legal("knock");
    if (knocks.length) {
      box.append(button(mode === "knock" ? "Cancel knock" : "Knock…", () => {
        mode = mode === "knock" ? null : "knock";
        render();
        // Keyboard players land on the first knock offered (the least deadwood).
        const first = mode === "knock" && $("knock-options").querySelector("button");
        if (first) first.focus();
      }, "knock" + (mode === "knock" ? " on" : "")));
    }
    const chosen = selectedCards();
    if (selecting()) {
      const offer = (label, action, cls) => {
        const b = button(label, () => { selected = new Set(); act(action); }, cls);
        b.disabled = !action || pending !== null;
        box.append(b);
      };
      const contract = legal("meld").find((a) => Array.isArray(a.groups));
      if (contract) {
        // A contract goes down whole: the player's own groups when they make it, else the engine's.
        const mine = groups.length === contract.groups.length && groups.every((g, i) => g.length >= contract.groups[i].length);
        offer(mine ? "Lay down my groups as the contract" : "Lay down the contract (the engine groups the cards)", mine ? { type: "meld", groups: groups } : contract, "primary");
      } else {
        const meld = legal("meld").find((a) => sameCards(a.cards, chosen));
        if (legal("meld").length) offer("Meld the selected cards", meld, meld ? "primary" : "");
      }
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
    if (mode === "knock") text = "Knock: pick the card to discard face down. Each choice shows the deadwood it leaves.";
    else if (legal("pass").length) text = "Your turn: take the upcard, or pass.";
    else if (draws.length) text = "Your turn: draw from the stock or take the top of the discard pile.";
    else if (selecting()) text = legal("declare").length ? "Your turn: group your cards, select the one to discard, then declare or discard." : "Your turn: select cards to meld or lay off, then select one card to discard.";
    else if (knocks.length) {
      const best = (view.knock_options || []).find((o) => o.type === "knock");
      text = best ? `Your turn: discard a card, or knock: your best knock leaves ${best.deadwood_points === 0 ? "no deadwood (gin)" : `${best.deadwood_points} deadwood`}.` : "Your turn: discard a card, or knock.";
    } else text = "Your turn: discard a card.";
    prompt.textContent = text;
  }

  // While choosing how to knock: every offered knock with what it lays out, from the
  // engine's arrangement of the seat's own cards (view.knock_options).
  function renderKnockOptions() {
    const box = $("knock-options");
    const options = (view.knock_options || []).filter((o) => o.type === "knock");
    box.replaceChildren();
    box.hidden = !(mode === "knock" && view.your_turn && options.length);
    if (box.hidden) return;
    const title = el("h2", "", "Knock: discard one card face down");
    title.id = "knock-options-title";
    box.append(title);
    const list = el("ul", "knock-list");
    options.forEach((option) => {
      const action = legal("knock").find((a) => a.card === option.card);
      if (!action) return;
      const item = el("li", "");
      const b = el("button", "knock-option" + (option.deadwood_points === 0 ? " gin" : ""));
      b.type = "button";
      b.disabled = pending !== null;
      const left = option.deadwood_points === 0 ? "gin: no deadwood" : `${option.deadwood_points} deadwood left`;
      b.setAttribute("aria-label", `Knock discarding the ${cardName(option.card)}: ${left}` +
        (option.deadwood.length ? ` (${option.deadwood.map(cardName).join(", ")})` : ""));
      const head = el("span", "knock-head");
      head.append(cardFace(option.card, "span", "small"), el("span", "knock-points", option.deadwood_points === 0 ? "Gin!" : `${option.deadwood_points}`));
      const layout = el("span", "knock-layout");
      layout.setAttribute("aria-hidden", "true");
      option.melds.forEach((meld) => layout.append(cardRow(meld, "meld-row")));
      if (option.deadwood.length) layout.append(cardRow(option.deadwood, "dead-row"));
      b.append(head, el("span", "knock-caption", `discard · ${left}`), layout);
      b.querySelectorAll(".card").forEach((c) => c.removeAttribute("role"));
      b.addEventListener("click", () => { mode = null; act(action); });
      item.append(b);
      list.append(item);
    });
    box.append(list);
  }

  function renderHand(focusAt) {
    const hand = $("hand");
    const active = document.activeElement;
    const focused = active && active.closest && active.closest("#hand") ? Number(active.dataset.position) : null;
    hand.replaceChildren();
    $("hand-area").hidden = view.seat === null;
    const discards = new Set(legal("discard").map((a) => a.card));
    const knocks = new Set(legal("knock").map((a) => a.card));
    const knockInfo = new Map((view.knock_options || []).filter((o) => o.card).map((o) => [o.card, o]));
    const picking = selecting();
    const zoned = picking && groups.length > 0;
    hand.classList.toggle("zoned", zoned);
    const all = zones();
    let position = 0;

    function slot(card, zone, index) {
      const at = position++;
      const li = el("li", "slot");
      li.draggable = true;
      li.dataset.position = at;
      const face = cardFace(card, "button");
      face.type = "button";
      face.dataset.position = at;
      const playable = mode === "knock" ? knocks.has(card) : picking || discards.has(card);
      face.classList.toggle("playable", view.your_turn && playable);
      face.classList.toggle("selected", selected.has(at));
      if (picking) face.setAttribute("aria-pressed", selected.has(at) ? "true" : "false");
      if (view.taken_from_discard === card || view.table.taken_from_discard === card) face.classList.add("taken");
      if (mode === "knock" && knockInfo.has(card)) {
        const points = knockInfo.get(card).deadwood_points;
        const badge = span("dw", points === 0 ? "gin" : String(points));
        badge.setAttribute("aria-hidden", "true");
        face.append(badge);
        face.setAttribute("aria-label", `Knock discarding the ${cardName(card)}: ${points === 0 ? "gin" : `${points} deadwood left`}`);
      }
      face.addEventListener("click", () => onCard(at));
      face.addEventListener("keydown", (event) => {
        if (!event.altKey || !event.key.startsWith("Arrow")) return;
        event.preventDefault();
        keyMove(at, event.key);
      });
      li.addEventListener("dragstart", (event) => {
        event.dataTransfer.setData("text/plain", String(at));
        event.dataTransfer.effectAllowed = "move";
        li.classList.add("dragging");
        hand.classList.add("dragging-card");
      });
      li.addEventListener("dragend", () => { li.classList.remove("dragging"); hand.classList.remove("dragging-card"); });
      li.addEventListener("dragover", (event) => event.preventDefault());
      li.addEventListener("drop", (event) => {
        event.preventDefault();
        event.stopPropagation();
        moveCard(Number(event.dataTransfer.getData("text/plain")), zone, index);
      });
      li.dataset.zone = zone;
      li.dataset.index = index;
      carryByTouch(li, at);
      li.append(face);
      return li;
    }

    function dropTarget(node, zone) {
      node.addEventListener("dragover", (event) => { event.preventDefault(); node.classList.add("over"); });
      node.addEventListener("dragleave", () => node.classList.remove("over"));
      node.addEventListener("drop", (event) => {
        event.preventDefault();
        node.classList.remove("over");
        moveCard(Number(event.dataTransfer.getData("text/plain")), zone, zone === "new" ? 0 : all[zone].length);
      });
    }

    if (!order.length) {
      hand.append(el("li", "empty-hand", view.status === "active" ? "No cards in hand." : "No cards left: you went out."));
    } else if (!zoned) {
      all[all.length - 1].forEach((card, index) => hand.append(slot(card, all.length - 1, index)));
    } else {
      all.forEach((cards, zone) => {
        const loose = zone === all.length - 1;
        if (loose && !cards.length) return;
        const kind = loose ? null : groupKind(cards);
        const ok = kind && kind !== "not a set or run" && kind !== "too short";
        const box = el("li", "zone " + (loose ? "loose" : ok ? "good" : "bad"));
        box.dataset.zone = zone;
        const label = loose ? `Loose · ${cards.length}` : `${zone + 1} · ${kind}`;
        box.append(el("span", "zone-label", label));
        box.setAttribute("aria-label", loose ? `Loose cards, ${cards.length}` : `Group ${zone + 1}: ${kind}, ${cards.length} cards`);
        const row = el("ol", "zone-cards");
        cards.forEach((card, index) => row.append(slot(card, zone, index)));
        box.append(row);
        dropTarget(box, zone);
        hand.append(box);
      });
    }
    if (picking && view.status === "active" && order.length) {
      const fresh = el("li", "zone new-group", "+ new group");
      fresh.dataset.zone = "new";
      fresh.setAttribute("aria-hidden", "true"); // Alt+↓ on a loose card does it by keyboard
      dropTarget(fresh, "new");
      hand.append(fresh);
    }

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
    const summary = $("groups-summary");
    summary.textContent = groups.length ? groupsSummary() : "";
    summary.hidden = !groups.length;
    const again = focusAt !== undefined ? focusAt : focused;
    if (again !== null && again !== undefined && !Number.isNaN(again)) {
      const target = hand.querySelector(`button[data-position="${Math.min(again, order.length - 1)}"]`);
      if (target) target.focus();
    }
  }

  // How far the groups are from a declaration: a hint while building, the engine decides.
  function groupsSummary() {
    const kinds = groups.map(groupKind);
    const runs = kinds.filter((k) => k === "run" || k === "pure run").length;
    const pure = kinds.filter((k) => k === "pure run").length;
    const bad = kinds.filter((k) => k === "not a set or run" || k === "too short").length;
    const grouped = groups.reduce((n, g) => n + g.length, 0);
    const parts = [`${grouped} of ${order.length} cards grouped`, `${runs} run${runs === 1 ? "" : "s"} (${pure} pure)`];
    if (bad) parts.push(`${bad} group${bad === 1 ? "" : "s"} to fix`);
    return parts.join(" · ");
  }

  function announce(text) { $("hand-live").textContent = text; }

  function renderShowdown() {
    const box = $("showdown");
    const last = view.table.last_hand;
    const seen = Number(sessionStorage.getItem(shownKey) || 0);
    if (!last || (seen >= last.hand_number && view.status === "active")) { box.hidden = true; return; }
    box.replaceChildren();
    const has = (v) => v !== null && v !== undefined;
    const who = has(last.winner) ? seatName(last.winner) : "Nobody";
    const kinds = { knock: "knocked", gin: "went gin", big_gin: "went big gin", undercut: "was undercut", out: "went out", rummy: "went rummy", declared: "declared", last_left: "was the last one playing" };
    const stalemates = { draw: "ended in a draw", stock_exhausted: "ended: the stock ran out", stalemate: "ended in a stalemate", pile_limit: "ended: the discard pile was taken too often", no_finish_possible: "ended: nobody could go out" };
    let headline = `Hand ${last.hand_number}: `;
    if (has(last.knocker)) {
      headline += `${seatName(last.knocker)} ${last.kind === "undercut" ? "knocked and was undercut" : kinds[last.kind] || last.kind}. `;
    } else if (has(last.winner)) headline += `${who} ${kinds[last.kind] || last.kind}. `;
    else headline += `${stalemates[last.kind] || last.kind}${last.reason && stalemates[last.reason] ? ` (${stalemates[last.reason].replace(/^ended: /, "")})` : ""}. `;
    const points = Array.isArray(last.points) ? "" : has(last.winner) ? ` ${who === "You" ? "You score" : who + " scores"} ${last.points} point${last.points === 1 ? "" : "s"}.` : " No points.";
    const title = el("h2", "", headline + points);
    title.id = "showdown-title";
    box.append(title);

    const rows = el("div", "showdown-rows");
    const seatMelds = Array.isArray(last.melds) && last.melds.length && Array.isArray(last.melds[0]);
    if (!seatMelds && Array.isArray(last.melds) && last.melds.length) {
      const table = el("div", "showdown-seat table-melds");
      table.append(el("h3", "", "On the table"));
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
      if (seat === last.knocker) head.append(el("span", "tag", "knocked"));
      if (seat === last.winner) head.append(el("span", "tag win", "won the hand"));
      if (last.status && last.status[seat] !== "playing" && seat !== last.winner) head.append(el("span", "tag", { dropped: "dropped", wrong: "wrong declaration", out: "out of the pool" }[last.status[seat]] || last.status[seat]));
      row.append(head);
      const groupsOf = last.groups && last.groups[seat] ? last.groups[seat] : null;
      const line = (what, ...content) => {
        const node = el("div", "line");
        const cards = el("span", "line-cards");
        cards.append(...content);
        node.append(el("span", "what", what), cards);
        row.append(node);
        return cards;
      };
      if (seatMelds) {
        const melds = last.melds[seat] || [];
        const node = line("Melds");
        melds.forEach((meld, index) => {
          const r = cardRow(meld);
          // Cards the defender laid off on this meld of the knocker's, marked as such.
          if (seat === last.knocker && last.layoff_targets) {
            last.layoffs.forEach((card, i) => {
              if (last.layoff_targets[i] !== index) return;
              const laid = cardFace(card, "span", "small laid");
              laid.setAttribute("aria-label", `${cardName(card)}, laid off by ${seatName(1 - last.knocker)}`);
              laid.title = `Laid off by ${seatName(1 - last.knocker)}`;
              r.append(laid);
            });
          }
          node.append(r);
        });
        if (!melds.length) node.append(el("span", "muted", "none"));
        line(`Deadwood · ${last.deadwood_points[seat]}`, last.deadwood[seat].length ? cardRow(last.deadwood[seat]) : el("span", "muted", "none"));
        if (seat !== last.knocker && has(last.knocker) && last.layoffs && last.layoffs.length) {
          line("Laid off", cardRow(last.layoffs, "laid-row"));
        }
      } else if (groupsOf) {
        const node = line("Groups");
        groupsOf.groups.forEach((g) => node.append(cardRow(g)));
        if (groupsOf.ungrouped.length) line("Ungrouped", cardRow(groupsOf.ungrouped));
      } else {
        line(seat === last.winner ? "Hand" : "Left in hand", hand.length ? cardRow(hand) : el("span", "muted", "none"));
      }
      rows.append(row);
    });
    box.append(rows);
    box.append(scoringLines(last));
    if (view.status === "active") {
      const next = button("Next hand", () => { sessionStorage.setItem(shownKey, String(last.hand_number)); renderShowdown(); }, "primary");
      next.disabled = false;
      box.append(next);
    }
    box.hidden = false;
  }

  // The hand's points line by line, exactly as the engine counted them (last_hand.breakdown).
  function scoringLines(last) {
    const wrap = el("div", "scoring");
    const lines = last.breakdown || [];
    if (!lines.length) return wrap;
    wrap.append(el("h3", "", "How the hand scored"));
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
    if (Array.isArray(last.points)) {
      // Per-seat points (Indian): each seat's lines, then its total for the deal.
      last.points.forEach((total, seat) => {
        const mine = lines.filter((l) => l.seat === seat);
        if (!mine.length) return;
        mine.forEach((l) => add(named(l), String(l.points)));
        add(`${seatName(seat)} for this deal`, String(total), "total");
      });
      if (last.scores) add("Totals so far (lower is better)", last.scores.map((s, i) => `${seatName(i)} ${s}`).join(" · "), "running");
    } else {
      lines.forEach((l) => add(named(l), signed(l.points)));
      add(`${last.winner === view.seat ? "You score" : `${seatName(last.winner)} scores`}`, `${last.points}`, "total");
      if (last.scores) add("Totals so far", last.scores.map((s, i) => `${seatName(i)} ${s}`).join(" · "), "running");
    }
    table.append(body);
    wrap.append(table);
    return wrap;
  }

  let rewardsTimer = null;
  let rewardsTries = 0;

  function renderResult() {
    const box = $("result");
    if (view.status === "active") { box.hidden = true; return; }
    box.replaceChildren();
    const result = view.result || {};
    const mine = view.seat;
    const won = mine !== null && view.placements[mine] === 1;
    const title = el("h2", "", view.status === "disputed" ? "Match under review" : mine === null ? "Match over" : won ? "You won the match!" : "Match over: you lost this one");
    title.id = "result-title";
    box.append(title);
    if (result.lower_wins && Array.isArray(result.contracts)) {
      box.append(el("p", "muted", "Ranked by contracts completed, then the lowest penalty points."));
    }
    const list = el("ol", "standings");
    const totals = view.table.totals_breakdown;
    view.seats.map((s) => s.seat).sort((a, b) => view.placements[a] - view.placements[b]).forEach((seat) => {
      const li = el("li", "");
      li.append(el("strong", "", seatName(seat)), ` ${result.scores ? result.scores[seat] : view.scores[seat]} points`);
      // The final total line by line when bonuses were added at the end (engine's lines).
      const lines = totals && totals[seat];
      if (lines && lines.length > 1) {
        li.append(el("span", "muted", " = " + lines.map((l) => `${l.label} ${l.points}`).join(" + ")));
      }
      list.append(li);
    });
    box.append(list);
    if (result.forfeit) box.append(el("p", "muted", `${seatName(result.forfeit.seat)} forfeited (${result.forfeit.reason}).`));
    if (mine !== null) box.append(rewardsPanel());
    box.append(fairPanel());
    const appearing = box.hidden;
    box.hidden = false;
    // The match ended while the page was open: bring the showdown and result into view.
    if (appearing && everOpen) ($("showdown").hidden ? box : $("showdown")).scrollIntoView({ block: "start", behavior: "smooth" });
  }

  // What this match earned the seat, from the rows finalize wrote (view.rewards); until
  // finalize has run (a worker does it just after the end) the view is re-read now and then.
  function rewardsPanel() {
    const wrap = el("section", "rewards");
    wrap.setAttribute("aria-labelledby", "rewards-title");
    const head = el("h3", "", "Your rewards");
    head.id = "rewards-title";
    wrap.append(head);
    const rewards = view.rewards;
    if (!rewards) {
      const waited = rewardsTries >= 30;
      wrap.append(el("p", "muted", waited ? "Your XP and coins are still being recorded: they will show here, and on your profile, once they are." : "Adding up your XP and coins…"));
      wrap.dataset.state = "pending";
      if (rewardsTimer === null && rewardsTries < 30) {
        rewardsTries += 1;
        rewardsTimer = setTimeout(() => { rewardsTimer = null; resync(true); }, 2000);
      }
      return wrap;
    }
    wrap.dataset.state = "ready";
    if (view.status === "disputed") {
      wrap.append(el("p", "muted", "Nothing is awarded while the match is under review."));
      return wrap;
    }
    const chips = el("div", "chips");
    chips.append(el("span", "chip xp", `+${rewards.xp} XP`));
    if (rewards.coin_lines.length) chips.append(el("span", "chip coins", `${rewards.coins < 0 ? "\u2212" : "+"}${Math.abs(rewards.coins)} coins`));
    rewards.levels.forEach((level) => chips.append(el("span", "chip level", `Level ${level.level} reached${level.title ? ` · ${level.title}` : ""}`)));
    wrap.append(chips);
    const details = el("ul", "reward-lines");
    rewards.xp_lines.forEach((l) => details.append(el("li", "", `${l.reason}: +${l.amount} XP`)));
    rewards.coin_lines.forEach((l) => details.append(el("li", "", `${l.reason}: ${l.amount < 0 ? "\u2212" : "+"}${Math.abs(l.amount)} coins`)));
    wrap.append(details);
    if (rewards.achievements.length || rewards.titles.length) {
      const unlocked = el("ul", "unlocks");
      rewards.achievements.forEach((a) => {
        const li = el("li", "unlock achievement tier-" + a.tier);
        li.append(el("span", "unlock-kind", "Achievement"), el("strong", "", a.name));
        if (a.description) li.append(el("span", "muted", a.description));
        unlocked.append(li);
      });
      rewards.titles.forEach((t) => {
        const li = el("li", "unlock title");
        li.append(el("span", "unlock-kind", "Title"), el("strong", "", t.name));
        if (t.reason) li.append(el("span", "muted", t.reason));
        unlocked.append(li);
      });
      wrap.append(unlocked);
    }
    return wrap;
  }

  // The deal was fixed before the first move: the commitment (SHA-256 of the seed) was on
  // the table from the start, and the seed is shown now. The browser checks the hash; the
  // recipe replays every move from the seed with the engine.
  function fairPanel() {
    const fair = el("section", "fair");
    fair.append(el("h3", "", "Check the deal"));
    const dl = el("dl", "");
    dl.append(el("dt", "", "Seed (secret until the end)"), el("dd", "mono", view.seed || ""), el("dt", "", "Commitment (SHA-256 of the seed, public from the first move)"), el("dd", "mono", view.commitment));
    fair.append(dl);
    const check = el("p", "hash-check muted", "Checking the commitment…");
    check.id = "hash-check";
    fair.append(check);
    if (window.crypto && crypto.subtle && view.seed) {
      crypto.subtle.digest("SHA-256", new TextEncoder().encode(view.seed)).then((digest) => {
        const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
        const ok = hex === view.commitment;
        check.className = "hash-check " + (ok ? "ok" : "bad");
        check.textContent = ok ? "\u2713 Your browser hashed the seed: it matches the commitment, so the deal was fixed before play began." : "\u2717 The seed does not hash to the commitment: report this match.";
      }).catch((err) => { check.textContent = "Your browser could not hash the seed: " + err.message; });
    } else {
      check.textContent = "Hash the seed with SHA-256 (e.g. `printf %s SEED | sha256sum`) and compare it with the commitment.";
    }
    fair.append(el("p", "", "Every deal is shuffled from the seed and the players' client seeds (engine/README.md, “Fair dealing”); replaying the moves must give this result:"));
    fair.append(el("pre", "recipe", [
      "import json",
      "from engine import fair, variants",
      `view = json.load(open("match-${data.match}.json"))  # saved from ${data.document}`,
      "assert fair.commitment(view[\"seed\"]) == view[\"commitment\"]",
      "seed = fair.deal_seed(view[\"seed\"], view[\"client_seeds\"])",
      "game = variants.get(view[\"variant\"]).replay(view[\"moves\"], len(view[\"seats\"]), seed, view[\"options\"])",
      "assert game.result == view[\"result\"]",
    ].join("\n")));
    const links = el("p", "");
    const json = el("a", "", "Download the match (JSON: seeds, moves, result)");
    json.href = data.document + "?download=1";
    json.id = "match-document";
    const verify = el("a", "", "Verify it move by move");
    verify.href = data.verify;
    verify.id = "match-verify";
    links.append(json, " · ", verify, " · ");
    const lobby = el("a", "button-link", "Back to the lobby");
    lobby.href = data.lobby;
    links.append(lobby);
    fair.append(links);
    return fair;
  }

  function tick() {
    tickClaim();
    if (heldShown && !stockHeld()) { heldShown = false; render(); } // the window closed: the stock opens
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
  if (data.socket) connect();
  else setConn("done", "Finished"); // a logged-out reader of a match that is over
})();
