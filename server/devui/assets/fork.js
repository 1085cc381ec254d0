// Helikon dev UI: fork a run. From a model call's turn boundary (its Request
// view), edit the next user message, a tool result or the instructions, run
// on into a new run, and compare the two side by side, marking where they
// diverge. The fork never re-runs what came before the boundary; the
// original run is untouched. Every text reaches the page as a Text node.
"use strict";

(() => {
  const h = window.helikon;
  if (!h || !h.modelCalls) return;
  const { el, call, enc } = h;

  const dlg = el("dialog", { id: "fork", "aria-labelledby": "fork-title" });
  const title = el("h2", { id: "fork-title" }, "Fork");
  const close = el("button", { type: "button" }, "Close");
  const body = el("div", { class: "fork-body" });
  dlg.append(el("div", { class: "pane-head" }, title, el("span", { class: "grow" }), close), body);
  document.body.append(dlg);
  close.addEventListener("click", () => dlg.close());

  function field(label, id, value, rows) {
    const ta = el("textarea", { id, rows: String(rows || 3), spellcheck: "false" });
    ta.value = value;
    return { ta, el: el("label", { class: "fork-field", for: id }, el("span", { class: "label" }, label), ta) };
  }

  // forkFrom opens the editor for the boundary before call c of run.
  function forkFrom(run, c) {
    const r = c.request || {};
    const msgs = r.messages || [];
    let user = null;
    for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].role === "user") { user = msgs[i]; break; }
    const fields = [];
    const userF = user ? field("Next user message (the question this turn answers)", "fork-user", h.itemText(user), 3) : null;
    if (userF) fields.push(userF.el);
    const results = [];
    for (const it of msgs) {
      for (const p of it.content || []) {
        if (p.type !== "tool_result") continue;
        const text = (p.content || []).map((x) => (x.type === "text" ? x.text : "")).join("");
        const f = field("Tool result of " + (p.name || "") + " (" + p.call_id + ")", "fork-result-" + results.length, text, 2);
        f.ta.dataset.callId = p.call_id;
        results.push({ f, text });
        fields.push(f.el);
      }
    }
    const instr = (r.instructions || []).join("\n");
    const instrF = field("Instructions", "fork-instructions", instr, 3);
    fields.push(instrF.el);
    const status = el("p", { class: "label", role: "status" });
    const go = el("button", { type: "submit", class: "primary", id: "fork-run" }, "Run the fork");
    const form = el("form", { class: "fork-form" }, ...fields, el("div", { class: "row" }, go, status));
    title.textContent = "Fork " + run.agent + " before turn " + c.turn;
    body.replaceChildren(el("p", { class: "label" }, "Edit what the model will see at this boundary; nothing before it runs again, and run " + run.id.slice(0, 8) + " stays as it is."), form);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const req = { call: c.index };
      if (userF && userF.ta.value !== h.itemText(user)) req.user_message = userF.ta.value;
      const edits = {};
      for (const { f, text } of results) if (f.ta.value !== text) edits[f.ta.dataset.callId] = f.ta.value;
      if (Object.keys(edits).length) req.tool_results = edits;
      if (instrF.ta.value !== instr) req.instructions = instrF.ta.value;
      go.disabled = true;
      status.textContent = "starting…";
      try {
        const acc = await call("POST", "agents/" + enc(run.agent) + "/runs/" + enc(run.id) + "/fork", req);
        compare(run, { id: acc.run_id, agent: run.agent }, c);
        h.refreshRuns();
      } catch (err) {
        status.textContent = String(err.message);
        go.disabled = false;
      }
    });
    if (!dlg.open) dlg.showModal();
    (userF ? userF.ta : instrF.ta).focus();
  }

  // transcript is a run's conversation as its top-level agent's last model
  // call saw it, then its answer.
  async function transcript(run) {
    const [info, got] = await Promise.all([
      call("GET", "agents/" + enc(run.agent) + "/runs/" + enc(run.id)),
      h.modelCalls(run),
    ]);
    const own = (got.calls || []).filter((c) => c.depth === 0);
    const last = own[own.length - 1];
    const items = last ? (last.request.messages || []).map((it) => ({ who: it.role + (it.agent ? " · " + it.agent : ""), text: h.itemText(it) })) : [];
    if (info.result && info.result.final_output) items.push({ who: "answer · " + (info.result.last_agent || run.agent), text: info.result.final_output });
    else if (info.error) items.push({ who: "failed", text: info.error.message || info.error.kind });
    return { info, items, instructions: last ? (last.request.instructions || []).join("\n") : "" };
  }

  const settled = new Set(["completed", "failed", "cancelled", "interrupted", "paused"]);

  // compare shows the original and the fork side by side once the fork has
  // settled, rows aligned, the first that differs marked.
  async function compare(orig, fork, c) {
    title.textContent = "Original and fork, side by side";
    const status = el("p", { class: "label", role: "status" }, "running the fork…");
    body.replaceChildren(status);
    try {
      for (let i = 0; i < 600; i++) {
        const info = await call("GET", "agents/" + enc(fork.agent) + "/runs/" + enc(fork.id));
        if (settled.has(info.status)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const [a, b] = await Promise.all([transcript(orig), transcript(fork)]);
      const rows = [];
      if (a.instructions !== b.instructions) rows.push([{ who: "instructions", text: a.instructions }, { who: "instructions", text: b.instructions }]);
      const n = Math.max(a.items.length, b.items.length);
      for (let i = 0; i < n; i++) rows.push([a.items[i], b.items[i]]);
      let diverged = false;
      const grid = el("div", { class: "cmp", id: "compare" },
        el("div", { class: "cmp-h" }, "Original · " + orig.id.slice(0, 8) + " · " + a.info.status),
        el("div", { class: "cmp-h" }, "Fork · " + fork.id.slice(0, 8) + " · " + b.info.status + " (from turn " + c.turn + ")"));
      for (const [x, y] of rows) {
        const same = x && y && x.who === y.who && x.text === y.text;
        const first = !same && !diverged;
        if (!same) diverged = true;
        const cell = (v) => el("div", { class: "cmp-cell" + (same ? "" : " diff") + (first ? " first" : "") },
          v ? el("div", { class: "label" }, v.who) : el("div", { class: "label" }, "—"), v ? el("pre", { tabindex: "0" }, v.text) : null);
        if (first) grid.append(el("div", { class: "cmp-mark", role: "note" }, "⟂ the runs diverge here"));
        grid.append(cell(x), cell(y));
      }
      const open = el("button", { type: "button", id: "open-fork" }, "Open the fork's run");
      open.addEventListener("click", () => { dlg.close(); h.openRun({ id: fork.id, agent: fork.agent, input: b.info.input }, false); });
      body.replaceChildren(el("div", { class: "row" }, open), grid);
      dlg.dataset.compared = "true";
    } catch (err) {
      status.textContent = String(err.message);
    }
  }

  h.forkFrom = forkFrom;
})();
