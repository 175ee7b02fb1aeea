/* Leaving a table: Resign (any time, in turn or not) and, before the first move of a
 * room's match, Call off; each asks for confirmation first, and goes to the server as a
 * control (socket.js), answered with the table's new view. */
import { $, button, el } from "./dom.js";
import { control } from "./socket.js";
import { state, subscribe } from "./store.js";
import { t } from "./strings.js";

let asking = null; // this module's own: "resign" or "abort" while its confirmation shows

function ask(kind) {
  asking = kind;
  renderControls();
  const yes = $("confirm-yes");
  if (yes) yes.focus();
}

function renderConfirm() {
  const box = $("confirm");
  // A redraw while the question shows (the opponent moved) keeps the focus on its answer.
  const answering = box.contains(document.activeElement) ? document.activeElement.id : null;
  box.replaceChildren();
  box.hidden = asking === null;
  if (asking === null) return;
  const text = el("p", "", t(`controls.${asking}_confirm`));
  text.id = "confirm-text";
  const yes = button(t(`controls.${asking}_yes`), () => {
    const kind = asking;
    asking = null;
    renderControls();
    control(kind);
  }, "danger");
  yes.id = "confirm-yes";
  const no = button(t("controls.keep_playing"), () => { asking = null; renderControls(); const back = $("control-resign"); if (back) back.focus(); });
  no.id = "confirm-no";
  box.append(text, yes, no);
  if (answering) $(answering).focus();
}

export function renderControls() {
  const view = state.view;
  const box = $("controls");
  box.replaceChildren();
  const seated = view.seat !== null && view.status === "active";
  if (!seated) asking = null;
  else if (!view.can_abort && asking === "abort") asking = null;
  if (seated && view.can_abort) {
    const abort = button(t("controls.abort"), () => ask("abort"), "tool");
    abort.id = "control-abort";
    box.append(abort);
  }
  if (seated) {
    const resign = button(t("controls.resign"), () => ask("resign"), "tool danger");
    resign.id = "control-resign";
    box.append(resign);
  }
  renderConfirm();
}

subscribe("table", renderControls);
