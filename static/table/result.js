/* The match's end: standings, what finalize gave this seat, and the fairness check. */
import { $, el, seatName } from "./dom.js";
import { resync } from "./socket.js";
import { state } from "./store.js";
import { t } from "./strings.js";

let rewardsTimer = null; // this module's own: the one pending re-read for the rewards

export function renderResult() {
  const view = state.view;
  const box = $("result");
  if (view.status === "active") { box.hidden = true; return; }
  box.replaceChildren();
  const result = view.result || {};
  if (view.status === "aborted") { calledOff(box); return; }
  const mine = view.seat;
  const won = mine !== null && view.placements[mine] === 1;
  const heading = view.status === "disputed" ? "result.disputed" : mine === null ? "result.over" : won ? "result.won" : "result.lost";
  const title = el("h2", "", t(heading));
  title.id = "result-title";
  box.append(title);
  const note = state.variant.resultNote(result);
  if (note) box.append(el("p", "muted", note));
  const list = el("ol", "standings");
  const totals = view.table.totals_breakdown;
  view.seats.map((s) => s.seat).sort((a, b) => view.placements[a] - view.placements[b]).forEach((seat) => {
    const li = el("li", "");
    const points = result.scores ? result.scores[seat] : view.scores[seat];
    li.append(el("strong", "", seatName(seat)), t("result.points", { n: points }));
    // The final total line by line when bonuses were added at the end (engine's lines).
    const lines = totals && totals[seat];
    if (lines && lines.length > 1) {
      li.append(el("span", "muted", " = " + lines.map((l) => `${l.label} ${l.points}`).join(" + ")));
    }
    list.append(li);
  });
  box.append(list);
  if (result.forfeit) {
    const { seat, reason } = result.forfeit;
    const said = reason === "resigned" ? t("result.resigned", { name: seatName(seat) }) : t("result.forfeit", { name: seatName(seat), reason });
    box.append(el("p", "muted", said));
  }
  if (mine !== null) box.append(rewardsPanel());
  box.append(fairPanel());
  const appearing = box.hidden;
  box.hidden = false;
  // The match ended while the page was open: bring the showdown and result into view.
  if (appearing && state.everOpen) ($("showdown").hidden ? box : $("showdown")).scrollIntoView({ block: "start", behavior: "smooth" });
}

/** A match called off before its first move: nothing to rate, reward or check. */
function calledOff(box) {
  const title = el("h2", "", t("result.aborted"));
  title.id = "result-title";
  const lobby = el("a", "button-link", t("fair.lobby"));
  lobby.href = state.data.lobby;
  box.append(title, el("p", "muted", t("result.aborted_note")), lobby);
  box.hidden = false;
}

const signedCoins = (n) => `${n < 0 ? "\u2212" : "+"}${Math.abs(n)}`;

/** What this match earned the seat, from the rows finalize wrote (view.rewards); until
 * finalize has run (a worker does it just after the end) the view is re-read now and then. */
function rewardsPanel() {
  const wrap = el("section", "rewards");
  wrap.setAttribute("aria-labelledby", "rewards-title");
  const head = el("h3", "", t("rewards.title"));
  head.id = "rewards-title";
  wrap.append(head);
  const rewards = state.view.rewards;
  if (!rewards) {
    const waited = state.rewardsTries >= 30;
    wrap.append(el("p", "muted", t(waited ? "rewards.still_recording" : "rewards.adding")));
    wrap.dataset.state = "pending";
    if (rewardsTimer === null && state.rewardsTries < 30) {
      state.rewardsTries += 1;
      rewardsTimer = setTimeout(() => { rewardsTimer = null; resync(true); }, 2000);
    }
    return wrap;
  }
  wrap.dataset.state = "ready";
  if (state.view.status === "disputed") {
    wrap.append(el("p", "muted", t("rewards.disputed")));
    return wrap;
  }
  const chips = el("div", "chips");
  chips.append(el("span", "chip xp", t("rewards.xp", { n: rewards.xp })));
  if (rewards.coin_lines.length) chips.append(el("span", "chip coins", t("rewards.coins", { n: signedCoins(rewards.coins) })));
  rewards.levels.forEach((level) => {
    const text = level.title ? t("rewards.level_title", { n: level.level, title: level.title }) : t("rewards.level", { n: level.level });
    chips.append(el("span", "chip level", text));
  });
  wrap.append(chips);
  const details = el("ul", "reward-lines");
  rewards.xp_lines.forEach((l) => details.append(el("li", "", t("rewards.xp_line", { reason: l.reason, n: l.amount }))));
  rewards.coin_lines.forEach((l) => details.append(el("li", "", t("rewards.coin_line", { reason: l.reason, n: signedCoins(l.amount) }))));
  wrap.append(details);
  if (rewards.achievements.length || rewards.titles.length) {
    const unlocked = el("ul", "unlocks");
    rewards.achievements.forEach((a) => {
      const li = el("li", "unlock achievement tier-" + a.tier);
      li.append(el("span", "unlock-kind", t("rewards.achievement")), el("strong", "", a.name));
      if (a.description) li.append(el("span", "muted", a.description));
      unlocked.append(li);
    });
    rewards.titles.forEach((title) => {
      const li = el("li", "unlock title");
      li.append(el("span", "unlock-kind", t("rewards.unlocked_title")), el("strong", "", title.name));
      if (title.reason) li.append(el("span", "muted", title.reason));
      unlocked.append(li);
    });
    wrap.append(unlocked);
  }
  return wrap;
}

/** The deal was fixed before the first move: the commitment (SHA-256 of the seed) was on
 * the table from the start, and the seed is shown now. The browser checks the hash; the
 * recipe replays every move from the seed with the engine. */
function fairPanel() {
  const view = state.view;
  const data = state.data;
  const fair = el("section", "fair");
  fair.append(el("h3", "", t("fair.title")));
  const dl = el("dl", "");
  dl.append(el("dt", "", t("fair.seed")), el("dd", "mono", view.seed || ""), el("dt", "", t("fair.commitment")), el("dd", "mono", view.commitment));
  fair.append(dl);
  const check = el("p", "hash-check muted", t("fair.checking"));
  check.id = "hash-check";
  fair.append(check);
  if (window.crypto && crypto.subtle && view.seed) {
    crypto.subtle.digest("SHA-256", new TextEncoder().encode(view.seed)).then((digest) => {
      const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
      const ok = hex === view.commitment;
      check.className = "hash-check " + (ok ? "ok" : "bad");
      check.textContent = t(ok ? "fair.matches" : "fair.differs");
    }).catch((err) => { check.textContent = t("fair.no_hash", { reason: err.message }); });
  } else {
    check.textContent = t("fair.by_hand");
  }
  fair.append(el("p", "", t("fair.replay")));
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
  const json = el("a", "", t("fair.download"));
  json.href = data.document + "?download=1";
  json.id = "match-document";
  const verify = el("a", "", t("fair.verify"));
  verify.href = data.verify;
  verify.id = "match-verify";
  links.append(json, " · ", verify, " · ");
  // A tournament's or league's table leads back to its event; a room's to the lobby.
  const back = el("a", "button-link", data.back ? data.back.label : t("fair.lobby"));
  back.href = data.back ? data.back.url : data.lobby;
  back.id = "result-back";
  links.append(back);
  fair.append(links);
  return fair;
}
