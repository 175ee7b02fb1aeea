/* Knock's live table, as native ES modules: no build step, no inline code (CSP:
 * script-src 'self'). This module boots the page; docs/architecture.md ("The table's
 * script") says which module holds what.
 *
 * State comes from the server only: the seat's view (the same JSON as GET
 * /api/matches/<id>/), first from the page's json_script data, then from the socket
 * /ws/matches/<id>/ (socket.js). The actions offered are exactly the view's
 * legal_actions, whatever the variant: cards act by click or Enter; draws, knocks, melds,
 * lay-offs and declarations by the widgets; any action type without a widget still gets
 * a plain button. */
import { bindFocus } from "./focus.js";
import { syncOrder } from "./hand.js";
import { bindTools } from "./input.js";
import { renderLastMove } from "./lastmove.js";
import { renderControls } from "./controls.js";
import { renderOverlay } from "./overlay.js";
import { render, tick } from "./render.js";
import { connect, pollWhileDown, setConn } from "./socket.js";
import { init, state } from "./store.js";
import { t } from "./strings.js";
import { renderTimeout } from "./timeouts.js";
import { load } from "./variants/index.js";

async function boot() {
  if (!document.getElementById("knock-table")) return;
  const data = JSON.parse(document.getElementById("table-data").textContent);
  init(data);
  state.variant = await load(data.variant_module);
  bindTools();
  bindFocus();
  syncOrder();
  render();
  renderOverlay();
  renderControls();
  renderTimeout();
  renderLastMove();
  setInterval(tick, 250);
  pollWhileDown();
  if (data.socket) connect();
  else setConn("done", t("conn.finished")); // a logged-out reader of a match that is over
}

boot();
