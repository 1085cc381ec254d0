// Helikon dev UI: "Save as case" appends the open, completed run to the
// server's evaluation dataset (POST agents/{agent}/runs/{id}/case): its
// input, its answer as the expected output and its tool calls as the
// expected tools, as helikon eval run reads them. Without a dataset the
// button stays off and says how to turn it on.
"use strict";

(() => {
  const h = window.helikon;
  if (!h) return;
  const btn = h.$("save-case");
  const state = { dataset: "", why: "Checking whether the server keeps eval cases…", saving: false };

  function usable() {
    return !!state.dataset && !state.saving && !!h.current() && document.body.dataset.runStatus === "completed";
  }

  function update() {
    btn.setAttribute("aria-disabled", String(!usable()));
    btn.title = !state.dataset ? state.why
      : usable() ? "Append this run to " + state.dataset + " as an eval case"
        : "Open a completed run to save it as a case in " + state.dataset;
  }

  function note(text, err) {
    const chat = h.$("chat");
    chat.append(h.el("div", { class: "note case-note" + (err ? " err" : ""), role: "status" }, text));
    chat.scrollTop = chat.scrollHeight;
  }

  async function probe() {
    try {
      state.dataset = (await h.call("GET", "eval/dataset")).dataset || "";
    } catch (err) {
      state.dataset = "";
      state.why = err.status === 501 ? "Saving cases is off: " + err.detail.replace(/^saving runs as evaluation cases is off: /, "") : "Saving cases is unavailable: " + err.message;
    }
    update();
  }

  btn.addEventListener("click", async () => {
    if (!state.dataset) { note(state.why, true); return; }
    const run = h.current();
    if (!usable() || !run) { note("Only a completed run can be saved as a case.", true); return; }
    state.saving = true;
    update();
    try {
      const r = await h.call("POST", "agents/" + h.enc(run.agent) + "/runs/" + h.enc(run.id) + "/case");
      const c = r.case, tools = c.expected_tools || [];
      const earlier = h.$("chat").querySelectorAll(".msg.user").length > 1 ? "; the session's earlier turns are not part of it" : "";
      note("Saved as case " + c.id + " in " + r.dataset + ": expects " + (tools.length ? tools.join(", ") : "no tool call") + earlier);
    } catch (err) {
      note("Not saved: " + (err.detail || err.message), true);
    } finally {
      state.saving = false;
      update();
    }
  });
  new MutationObserver(update).observe(document.body, { attributes: true, attributeFilter: ["data-run-status"] });
  h.on("run", update);
  h.on("clear", update);
  update();
  probe();
})();
