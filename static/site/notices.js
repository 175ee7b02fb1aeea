// Live notices on every page for a signed-in player: check-in has opened, your table is
// ready, your match is on. Pushed over the notice socket (/ws/notices/, config/consumers.py)
// as they happen; while that socket is down (or where none is served), polls /me/notices/
// (JSON) every 10 s while the page is visible. A notice you close stays closed for this
// browser tab. No inline code (CSP).
(function () {
  const box = document.getElementById("live-notices");
  if (!box) return;
  const url = box.dataset.url;
  const closed = new Set(JSON.parse(sessionStorage.getItem("knock-closed-notices") || "[]"));

  function render(notices) {
    box.replaceChildren();
    notices
      .filter((n) => !closed.has(n.key) && n.url !== window.location.pathname)
      .forEach((n) => {
        const item = document.createElement("div");
        item.className = "live-notice";
        item.dataset.key = n.key;
        const link = document.createElement("a");
        link.href = n.url;
        link.textContent = n.text;
        const close = document.createElement("button");
        close.type = "button";
        close.className = "close";
        close.setAttribute("aria-label", box.dataset.dismiss || "Dismiss");
        close.textContent = "×";
        close.addEventListener("click", () => {
          closed.add(n.key);
          sessionStorage.setItem("knock-closed-notices", JSON.stringify([...closed]));
          item.remove();
        });
        item.append(link, close);
        box.append(item);
      });
  }

  let socketOpen = false;
  let retry = 1000;

  function connect() {
    if (!box.dataset.socket || !("WebSocket" in window)) return;
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + window.location.host + box.dataset.socket);
    socket.addEventListener("open", () => {
      socketOpen = true;
      retry = 1000;
    });
    socket.addEventListener("message", (event) => {
      const frame = JSON.parse(event.data);
      if (frame.type === "notices") render(frame.notices);
    });
    socket.addEventListener("close", () => {
      // Down (a restart, a server without sockets): the poll carries on; try again later.
      socketOpen = false;
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 60000);
    });
  }

  async function poll() {
    if (!document.hidden && !socketOpen) {
      try {
        const response = await fetch(url, {cache: "no-store", credentials: "same-origin"});
        if (response.ok) render((await response.json()).notices);
        else console.warn("knock: notices answered", response.status);
      } catch (error) {
        // Offline for a moment: said in the console, tried again at the next tick.
        console.warn("knock: notices unavailable", error);
      }
    }
    setTimeout(poll, 10000);
  }
  connect();
  poll();
})();
