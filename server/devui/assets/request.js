// Helikon dev UI: the Request view of a model call — the request exactly as
// the loop gave it to the model (instructions, messages after compaction and
// projection, tools with their schemas, settings), as the server kept it for
// a run started with capture=calls, secrets already redacted by the run's
// redactor. Every text reaches the page as a Text node.
"use strict";

(() => {
  const h = window.helikon;
  if (!h) return;
  const { el, $, call, enc, pretty, block } = h;

  const dlg = el("dialog", { id: "request", "aria-labelledby": "request-title" });
  const title = el("h2", { id: "request-title" }, "Request");
  const close = el("button", { type: "button" }, "Close");
  const body = el("div", { class: "req-body", tabindex: "0" });
  dlg.append(el("div", { class: "pane-head" }, title, el("span", { class: "grow" }), close), body);
  document.body.append(dlg);
  close.addEventListener("click", () => dlg.close());

  // partText is one content part as a line of the view.
  function partText(p) {
    switch (p.type) {
      case "text": return p.text || "";
      case "reasoning": return "(reasoning) " + (p.text || "");
      case "image": return "[image]";
      case "tool_use": return "→ " + p.name + " " + pretty(p.args == null ? {} : p.args).replace(/\s+/g, " ");
      case "tool_result": return "← " + (p.name || p.call_id) + (p.is_error ? " (error)" : "") + ": " + (p.content || []).map(partText).join("");
    }
    return "[" + p.type + "]";
  }

  function itemText(it) { return (it.content || []).map(partText).join("\n"); }

  function messageEl(it, i) {
    const who = it.role + (it.agent ? " · " + it.agent : "");
    return el("li", { class: "req-msg r-" + it.role, "data-index": String(i) },
      el("div", { class: "label" }, who), el("pre", { tabindex: "0" }, itemText(it)));
  }

  // render fills the dialog with one call's request.
  function render(run, c) {
    const r = c.request || {};
    title.textContent = "Request · " + c.agent + " · turn " + c.turn;
    const head = el("p", { class: "label" }, [c.model, "call " + c.index, c.depth ? "depth " + c.depth : "", new Date(c.at).toLocaleTimeString()].filter(Boolean).join(" · "));
    const parts = [head];
    if (c.forkable && h.forkFrom) {
      const b = el("button", { type: "button", class: "primary", id: "fork-here" }, "Fork from here");
      b.addEventListener("click", () => { dlg.close(); h.forkFrom(run, c); });
      parts.push(el("div", { class: "row" }, b));
    }
    parts.push(el("h3", null, "Settings"), r.settings ? block("settings", pretty(r.settings)) : el("p", { class: "muted" }, "provider defaults"));
    parts.push(el("h3", null, "Instructions"));
    if ((r.instructions || []).length) for (const s of r.instructions) parts.push(block("system", s));
    else parts.push(el("p", { class: "muted" }, "none"));
    parts.push(el("h3", null, "Messages (" + (r.messages || []).length + ")"),
      el("ol", { class: "req-msgs" }, ...(r.messages || []).map(messageEl)));
    parts.push(el("h3", null, "Tools (" + (r.tools || []).length + ")"));
    for (const t of r.tools || []) {
      parts.push(el("details", { class: "req-tool" }, el("summary", null, t.name + (t.description ? " — " + t.description : "")),
        el("pre", { tabindex: "0" }, pretty(t.parameters || {}))));
    }
    body.replaceChildren(...parts);
  }

  // calls fetches a run's kept model calls.
  function calls(run) {
    return call("GET", "agents/" + enc(run.agent) + "/runs/" + enc(run.id) + "/calls");
  }

  // find picks the call of agent's turn, the ordinal-th such call of the run.
  function find(list, key) {
    let n = 0;
    for (const c of list) {
      if (c.agent !== key.agent || c.turn !== key.turn) continue;
      if (n++ === (key.ordinal || 0)) return c;
    }
    return null;
  }

  async function show(run, key) {
    title.textContent = "Request · " + key.agent + " · turn " + key.turn;
    body.replaceChildren(el("p", { class: "muted" }, "loading…"));
    if (!dlg.open) dlg.showModal();
    close.focus();
    try {
      const got = await calls(run);
      const c = got.captured ? find(got.calls || [], key) : null;
      if (c) render(run, c);
      else {
        body.replaceChildren(el("p", { class: "muted" }, !got.captured
          ? "The server kept no requests of this run: runs started from this UI keep them (capture=calls), and the server keeps its newest runs' only."
          : got.truncated ? "This call is past what the server keeps of a run." : "The server has not seen this call yet."));
      }
    } catch (err) {
      body.replaceChildren(el("p", { class: "note err" }, String(err.message)));
    }
  }
  h.showRequest = show;
  h.modelCalls = calls;
  h.itemText = itemText;

  // Each model call in the timeline gets a Request button.
  let ordinals = new Map();
  h.on("run", () => { ordinals = new Map(); });
  h.on("turn", ({ run, item, ev }) => {
    const d = ev.data || {};
    const key = { agent: d.agent || item.agent || run.agent, turn: d.turn };
    const k = key.agent + "#" + key.turn;
    key.ordinal = ordinals.get(k) || 0;
    ordinals.set(k, key.ordinal + 1);
    const b = el("button", { type: "button", class: "req-open", title: "What the model got" }, "Request");
    b.addEventListener("click", () => show(run, key));
    item.li.querySelector(".head").append(b);
  });
})();
