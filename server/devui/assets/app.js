// Helikon dev UI: chat with an agent and watch its run live. Plain DOM, no
// framework. Every model and tool text is untrusted: it only ever reaches
// the page as a Text node (textContent, append of strings), never as HTML.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const apiBase = new URL(document.querySelector('meta[name="helikon-api"]').content || "../", location.href);
  const url = (path) => new URL(path, apiBase).href;
  const enc = encodeURIComponent;

  // el builds an element; kids that are strings become Text nodes.
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids) if (kid != null) e.append(kid);
    return e;
  }

  // ---- authentication -------------------------------------------------
  // The page and its files load without credentials; the API may want a
  // bearer token. On a 401 the UI asks for one, keeps it for the tab in
  // sessionStorage and sends it as Authorization on every request (fetch
  // rather than EventSource, which cannot send headers).
  const auth = {
    asking: null,
    token() { try { return sessionStorage.getItem("helikon.token") || ""; } catch { return ""; } },
    headers(h) {
      const t = this.token();
      if (t) h.Authorization = "Bearer " + t;
      return h;
    },
    // ask shows the token dialog once however many requests were refused,
    // and resolves when the user answered (true) or dismissed it (false).
    ask(why) {
      if (this.asking) return this.asking;
      this.asking = new Promise((resolve) => {
        const dlg = $("auth"), form = $("auth-form"), input = $("auth-token");
        $("auth-why").textContent = why || "The agent server wants a bearer token.";
        input.value = "";
        const done = (ok) => {
          form.removeEventListener("submit", onSubmit);
          dlg.removeEventListener("close", onClose);
          if (dlg.open) dlg.close();
          this.asking = null;
          resolve(ok);
        };
        const onSubmit = (e) => {
          e.preventDefault();
          const t = input.value.trim();
          if (!t) return;
          try { sessionStorage.setItem("helikon.token", t); } catch { /* storage off: this page only */ }
          done(true);
        };
        const onClose = () => done(false);
        form.addEventListener("submit", onSubmit);
        dlg.addEventListener("close", onClose);
        dlg.showModal();
        input.focus();
      });
      return this.asking;
    },
  };

  // errorOf reads the server's JSON error shape from a failed response.
  async function errorOf(resp) {
    const text = await resp.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    const err = new Error(data && data.error ? data.error.code + ": " + data.error.message : "HTTP " + resp.status);
    err.status = resp.status;
    err.detail = data && data.error ? data.error.message : "";
    return err;
  }

  // request fetches an API path with the token, asking for a token and
  // trying again while the server answers 401 and the user gives one.
  async function request(path, init) {
    for (;;) {
      const resp = await fetch(url(path), { ...init, headers: auth.headers({ ...(init.headers || {}) }) });
      if (resp.status !== 401) return resp;
      const err = await errorOf(resp);
      if (!(await auth.ask(err.detail))) throw err;
    }
  }

  async function call(method, path, body, headers) {
    const init = { method, headers: { Accept: "application/json", ...(headers || {}) } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    const resp = await request(path, init);
    if (!resp.ok) throw await errorOf(resp);
    const text = await resp.text();
    try { return text ? JSON.parse(text) : null; } catch { return null; }
  }

  // ---- state ----------------------------------------------------------
  const state = { agents: [], agentNames: new Set(), view: null };
  const store = {
    get(k, d) { try { const v = localStorage.getItem("helikon." + k); return v == null ? d : JSON.parse(v); } catch { return d; } },
    set(k, v) { try { localStorage.setItem("helikon." + k, JSON.stringify(v)); } catch { /* private mode */ } },
  };

  // ---- extensions -----------------------------------------------------
  // Each further view (trace.js, request.js, …) lives in its own file and
  // listens here: "run" (a run view opened: {id, agent}), "clear" (the
  // views were cleared), "event" (each raw event of the open run, as it
  // arrives: ev, run) and "turn" (a model call's timeline item was added:
  // {run, item, ev, nested}).
  const hooks = new Map();
  function emit(name, ...args) {
    for (const fn of hooks.get(name) || []) {
      try { fn(...args); } catch (err) { console.error("helikon: " + name + " hook", err); }
    }
  }

  function newID() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }

  function setStatus(text) { $("status").textContent = text; }
  function setRunStatus(s) { document.body.dataset.runStatus = s; }
  // setLiveStatus shows a run the server drives: queued for its session's
  // turn (another run of the session holds it), or running.
  function setLiveStatus(s) {
    setRunStatus(s);
    setStatus(s === "queued" ? "queued: waiting for the session's previous run" : "running");
  }

  // ---- formatting -----------------------------------------------------
  function pretty(v) {
    if (typeof v === "string") {
      const t = v.trim();
      if (t.startsWith("{") || t.startsWith("[")) {
        try { return JSON.stringify(JSON.parse(t), null, 2); } catch { /* plain text */ }
      }
      return v;
    }
    return JSON.stringify(v, null, 2);
  }

  // block shows text in a <pre>, collapsed under a summary when long.
  function block(label, text) {
    const lines = text.split("\n").length;
    const pre = el("pre", { tabindex: "0" }, text);
    if (lines <= 8 && text.length <= 400) return el("div", null, el("div", { class: "label" }, label), pre);
    return el("details", null, el("summary", null, label + " (" + lines + " lines, " + text.length + " chars)"), pre);
  }

  // costText shows cents to 4 places and smaller sums to 3 significant
  // digits: one model call often costs a fraction of a cent.
  function costText(c) { return c ? "$" + (c >= 0.01 ? c.toFixed(4) : c.toPrecision(3)) : "cost n/a"; }

  function usageText(u) {
    if (!u) return "";
    const parts = [(u.input_tokens || 0) + " in", (u.output_tokens || 0) + " out"];
    if (u.cached_input_tokens) parts.push(u.cached_input_tokens + " cached");
    if (u.reasoning_tokens) parts.push(u.reasoning_tokens + " reasoning");
    return parts.join(" · ") + " tokens · " + costText(u.cost);
  }

  function partsText(parts) {
    return (parts || []).map((p) => (p.type === "text" ? p.text : p.type === "image" ? "[image]" : "")).join("");
  }

  function when(iso) {
    const d = new Date(iso);
    return isNaN(d) ? "" : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  // ---- raw JSON dialog -------------------------------------------------
  function showRaw(title, events) {
    $("raw-title").textContent = title;
    $("raw-json").textContent = JSON.stringify(events.length === 1 ? events[0] : events, null, 2);
    $("raw").showModal();
    $("raw-close").focus();
  }

  // ---- following a run's events ---------------------------------------
  // follow reads the run's events as Server-Sent Events from after on,
  // resuming after a dropped connection, until a terminal event.
  class Follower {
    constructor(agent, id, onEvent, onEnd) {
      Object.assign(this, { agent, id, onEvent, onEnd, last: 0, ctl: new AbortController(), done: false });
    }
    stop() { this.done = true; this.ctl.abort(); }
    async run() {
      let failures = 0;
      while (!this.done) {
        try {
          const resp = await request("agents/" + enc(this.agent) + "/runs/" + enc(this.id) + "/events?after=" + this.last,
            { headers: { Accept: "text/event-stream" }, signal: this.ctl.signal, cache: "no-store" });
          if (!resp.ok) throw await errorOf(resp);
          if (resp.status === 204) { this.stop(); this.onEnd(null); return; } // resumed after the terminal event
          const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
          let buf = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            let t0 = performance.now();
            buf += value;
            // Walk the frames with an index and cut the buffer once: a
            // chunk may hold thousands of frames. A long chunk yields the
            // main thread every few milliseconds, so that parsing never
            // blocks input or a frame for long.
            let at = 0, cut;
            while ((cut = buf.indexOf("\n\n", at)) >= 0) {
              const frame = buf.slice(at, cut);
              at = cut + 2;
              if (this.frame(frame)) {
                if (window.helikonPerf) window.helikonPerf.push(performance.now() - t0);
                this.stop(); this.onEnd(null); return;
              }
              if (performance.now() - t0 > 6) {
                if (window.helikonPerf) window.helikonPerf.push(performance.now() - t0);
                await new Promise((r) => setTimeout(r, 0));
                if (this.done) return;
                t0 = performance.now();
              }
            }
            buf = buf.slice(at);
            failures = 0;
            if (window.helikonPerf) window.helikonPerf.push(performance.now() - t0);
          }
        } catch (err) {
          if (this.done) return;
          if (err.status === 404 || err.status === 401 || err.status === 410 || ++failures > 5) { this.done = true; this.onEnd(err); return; }
        }
        if (!this.done) await new Promise((r) => setTimeout(r, 500 * failures + 100));
      }
    }
    // frame handles one SSE frame; it reports a terminal event.
    frame(text) {
      let id = 0, type = "message", data = "";
      for (const line of text.split("\n")) {
        if (line.startsWith("id: ")) id = Number(line.slice(4));
        else if (line.startsWith("event: ")) type = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (!data) return false;
      let ev;
      try { ev = JSON.parse(data); } catch { return false; }
      if (id > 0) this.last = id;
      this.onEvent({ seq: id, type, data: ev });
      return type === "run_completed" || type === "run_failed";
    }
  }

  // ---- one run: chat messages and timeline ----------------------------
  // A scope is where one run's events go in the timeline: the run itself,
  // or the sub-run of an agent tool, nested under its call. Only the run's
  // own scope writes to the chat.
  function newScope(container, nested) {
    return { root: container, parent: container, turn: null, calls: new Map(), subs: new Map(), refused: new Set(), nested };
  }

  class RunView {
    constructor(run) {
      this.run = run; // {id, agent, input, status, record}
      this.closed = false;
      this.queue = [];
      this.scheduled = false;
      this.root = $("timeline");
      this.top = newScope(this.root, false);
      this.bubble = null;
      this.pending = "";
      this.approvals = null;
      this.dirtyTurns = new Set();
      this.total = { calls: 0, usage: {}, final: null };
      this.totalDirty = true;
      $("run-id").textContent = run.id;
      if (run.input) addMessage("user", "you", run.input);
      if (run.status === "queued") setLiveStatus("queued");
      else setRunStatus("running");
      emit("run", run);
      this.follower = new Follower(run.agent, run.id, (ev) => this.enqueue(ev), (err) => this.ended(err));
      this.follower.run();
      $("cancel").hidden = false;
    }

    // close stops the view for good: the chat and the timeline now belong
    // to another run, so events still queued or parsed are dropped.
    close() {
      this.closed = true;
      this.follower.stop();
      this.queue = [];
      this.endBubble();
      $("cancel").hidden = true;
    }

    enqueue(ev) {
      if (this.closed) return;
      if (ev.type !== "_end") emit("event", ev, this.run);
      this.queue.push(ev);
      if (!this.scheduled) {
        this.scheduled = true;
        requestAnimationFrame(() => this.flush());
      }
    }

    // flush applies queued events within a frame's budget, then writes the
    // streamed text, the counters and the totals to the DOM once: reads of
    // layout come first, writes after, so a frame lays out at most once.
    flush() {
      this.scheduled = false;
      if (this.closed) return;
      const start = performance.now();
      const chat = $("chat");
      const stick = nearBottom(chat);
      let i = 0;
      for (; i < this.queue.length; i++) {
        this.apply(this.queue[i], this.top);
        if ((i & 31) === 31 && performance.now() - start > 8) { i++; break; }
      }
      this.queue.splice(0, i);
      this.writeText();
      for (const t of this.dirtyTurns) t.meta.textContent = turnMeta(t);
      this.dirtyTurns.clear();
      if (this.totalDirty) { $("run-total").textContent = totalText(this.total); this.totalDirty = false; }
      if (stick) scrollDown(chat);
      if (this.queue.length) {
        this.scheduled = true;
        requestAnimationFrame(() => this.flush());
      }
      if (window.helikonPerf) window.helikonPerf.push(performance.now() - start);
    }

    // writeText appends the frame's streamed text as a new Text node, so
    // the browser lays out only the new words, not the whole answer again.
    writeText() {
      if (this.pending && this.bubble) this.bubble.body.append(this.pending);
      this.pending = "";
    }

    item(kind, icon, title, meta, ev, parent) {
      const events = ev ? [ev] : [];
      const iconEl = el("span", { class: "icon", "aria-hidden": "true" }, icon);
      const titleEl = document.createTextNode(title);
      const btn = el("button", { type: "button", title: "Show raw JSON" }, iconEl, titleEl);
      const metaEl = el("span", { class: "meta" }, meta || "");
      const li = el("li", { class: "tl k-" + kind, "data-type": ev ? ev.type : kind, "data-agent": this.agentNow }, el("div", { class: "head" }, btn, metaEl));
      const it = { li, meta: metaEl, events, kids: null, title, iconEl, titleEl };
      btn.addEventListener("click", () => showRaw(title, it.events));
      parent.append(li);
      return it;
    }

    kidsOf(it) {
      if (!it.kids) { it.kids = el("ol"); it.li.append(it.kids); }
      return it.kids;
    }

    endBubble() {
      if (this.bubble) {
        this.writeText();
        this.bubble.el.classList.remove("streaming");
      }
      this.bubble = null;
    }

    // subScope is the scope of the sub-run an agent tool's call started,
    // under the call's timeline item.
    subScope(sc, d) {
      let sub = sc.subs.get(d.call_id);
      if (!sub) {
        const call = sc.calls.get(d.call_id);
        if (call && call.li.classList.contains("k-tool")) {
          // An agent tool the server does not serve as an agent of its own.
          call.iconEl.textContent = "❖";
          call.titleEl.data = "Agent tool " + (d.tool || d.agent);
        }
        sub = newScope(call ? this.kidsOf(call) : sc.parent, true);
        sub.agent = d.agent || "";
        sc.subs.set(d.call_id, sub);
      }
      return sub;
    }

    apply(ev, sc) {
      if (ev.type === "_end") { this.finish(ev.data.err); return; }
      const d = ev.data || {};
      const top = !sc.nested;
      // A queued run's first event, or a paused one's next, says it runs.
      const st = document.body.dataset.runStatus;
      if (top && (st === "queued" || st === "paused") && ev.type !== "run_paused" && ev.type !== "run_completed" && ev.type !== "run_failed") {
        setLiveStatus("running");
      }
      if (top && this.approvals && ev.type !== "run_paused") { this.approvals.resolved(); this.approvals = null; }
      const under = (it) => (it ? this.kidsOf(it) : sc.parent);
      // The agent whose event this is, for the agent graph's filter: the
      // scope's agent, which run starts, turns, agent updates and
      // handoffs change.
      if (ev.type !== "sub_run_event" && typeof d.agent === "string" && d.agent) sc.agent = d.agent;
      this.agentNow = (ev.type === "handoff_item" && d.from) || sc.agent || this.run.agent;
      if (ev.type === "handoff_item" && d.to) sc.agent = d.to;
      switch (ev.type) {
        case "sub_run_event": {
          const inner = d.event || {};
          this.apply({ seq: ev.seq, type: inner.type || "event", data: inner, outer: ev }, this.subScope(sc, d));
          break;
        }
        case "run_started":
          this.item(top ? "run" : "sub", top ? "▶" : "⤷", top ? "Run started" : "Sub-run started", d.agent || "", ev, sc.parent);
          break;
        case "turn_started":
          if (top) this.endBubble();
          sc.turn = this.item("model", "◆", "Model call · turn " + d.turn, d.agent || "", ev, sc.parent);
          Object.assign(sc.turn, { agent: d.agent || "", deltas: 0, chars: 0, reasoning: 0, callDeltas: 0, usage: null, model: "" });
          emit("turn", { run: this.run, item: sc.turn, ev, nested: !top });
          break;
        case "model_responded": {
          let t = sc.turn;
          if (!t || t.usage) {
            // A resumed stream may start past its turn's opening.
            t = sc.turn = this.item("model", "◆", "Model call · turn " + d.turn, d.agent || "", ev, sc.parent);
            Object.assign(t, { agent: d.agent || "", deltas: 0, chars: 0, reasoning: 0, callDeltas: 0 });
            emit("turn", { run: this.run, item: t, ev, nested: !top });
          } else {
            t.events.push(ev);
          }
          t.usage = d.usage || {};
          t.model = d.model || "";
          t.li.dataset.model = "responded";
          this.dirtyTurns.add(t);
          this.total.calls++;
          this.total.usage = addUsage(this.total.usage, t.usage);
          this.totalDirty = true;
          break;
        }
        case "token_delta": {
          if (top) {
            if (!this.bubble) this.bubble = addMessage("assistant", (sc.turn && sc.turn.agent) || this.run.agent, "", true);
            this.pending += d.text || "";
          }
          this.countDelta(sc, ev, "chars", (d.text || "").length);
          break;
        }
        case "reasoning_delta":
          this.countDelta(sc, ev, "reasoning", (d.text || "").length);
          break;
        case "tool_call_delta":
          this.countDelta(sc, ev, "callDeltas", 1);
          break;
        case "message_output": {
          const item = d.item || {};
          const text = partsText(item.content);
          if (!top) {
            // A sub-run's answer reaches the chat as its call's result.
          } else if (this.bubble) {
            this.writeText();
            if (text && this.bubble.body.textContent !== text) this.bubble.body.textContent = text;
            if (item.agent) this.bubble.who.textContent = item.agent;
            this.bubble.el.classList.remove("streaming");
            this.bubble = null;
          } else if (text) {
            addMessage("assistant", item.agent || this.run.agent, text);
          }
          const it = this.item("msg", "✎", "Message", (item.agent || "") + " · " + text.length + " chars", ev, under(sc.turn));
          if (text) it.li.append(block("text", text));
          break;
        }
        case "tool_call_item": {
          for (const p of (d.item && d.item.content) || []) {
            if (p.type !== "tool_use") continue;
            const agentTool = state.agentNames.has(p.name) || sc.subs.has(p.call_id);
            const it = this.item("tool", agentTool ? "❖" : "⚙", (agentTool ? "Agent tool " : "Tool ") + p.name, p.call_id || "", ev, under(sc.turn));
            it.li.append(block("arguments", pretty(p.args)));
            it.li.dataset.tool = p.name;
            sc.calls.set(p.call_id, it);
          }
          break;
        }
        case "tool_output_item": {
          for (const p of (d.item && d.item.content) || []) {
            if (p.type !== "tool_result") continue;
            const call = sc.calls.get(p.call_id);
            const it = this.item(p.is_error ? "err" : "ok", p.is_error ? "✗" : "↩", p.is_error ? "Tool error" : "Result", p.name || "", ev, under(call));
            it.li.append(block("output", pretty(partsText(p.content))));
            if (call) call.events.push(ev);
            // The chat says what became of the call once it is settled: a
            // refused call's note is its refusal's, not "called".
            if (top && !sc.refused.has(p.call_id)) addNote(p.is_error ? (p.name || "a tool") + " failed" : "called " + p.name, p.is_error);
          }
          break;
        }
        case "handoff_item": {
          if (top) this.endBubble();
          const it = this.item("handoff", "⇢", "Handoff " + d.from + " → " + d.to, "", ev, sc.parent);
          sc.parent = this.kidsOf(it);
          if (top) addNote("handoff: " + d.from + " → " + d.to);
          break;
        }
        case "agent_updated":
          this.item("note", "•", "Agent now " + d.agent, "", ev, sc.parent);
          break;
        case "guardrail_triggered": {
          const it = this.item("err", "⚠", "Guardrail tripped (" + d.kind + ")", "", ev, sc.parent);
          if (d.info != null) it.li.append(block("info", pretty(d.info)));
          break;
        }
        case "approval_requested": {
          const it = this.item("warn", "?", "Approval requested: " + d.tool, d.asked_by || "", ev, under(sc.calls.get(d.call_id)));
          if (d.prompt) it.li.append(el("div", { class: "label" }, d.prompt));
          break;
        }
        case "permission_denied": {
          const it = this.item("err", "⊘", "Permission denied: " + d.tool, "", ev, under(sc.calls.get(d.call_id)));
          it.li.append(el("div", { class: "label" }, d.reason || ""));
          sc.refused.add(d.call_id);
          if (top) addNote(d.tool + " not run: " + (d.reason || "denied"), true);
          break;
        }
        case "repair_started":
          if (top) this.endBubble();
          this.item("warn", "↻", "Structured-output repair, attempt " + d.attempt, "", ev, sc.parent);
          break;
        case "structured_output_failed": {
          const n = (d.schema_errors || []).length;
          const it = this.item("err", "✗", "Structured output failed", n + (n === 1 ? " schema error" : " schema errors"), ev, sc.parent);
          it.li.append(block("schema errors", (d.schema_errors || []).join("\n")));
          break;
        }
        case "run_paused": {
          const st = d.state || {};
          this.item("warn", "‖", top ? "Paused for approval" : "Sub-run paused", (st.pending || []).length + " pending · " + usageText(d.usage), ev, sc.root);
          if (!top) break;
          this.endBubble();
          this.approvals = new ApprovalCard(this.run, st);
          setRunStatus("paused");
          setStatus("paused: waiting for your decision");
          break;
        }
        case "run_completed":
          this.item("ok", "✓", top ? "Completed" : "Sub-run completed", usageText(d.usage), ev, sc.root);
          if (!top) break;
          this.endBubble();
          // The run's own sum is the authority: it counts what no model
          // call reported (a step that failed after spending, say).
          this.total.final = d.usage || null;
          this.totalDirty = true;
          addNote("completed · " + usageText(d.usage));
          break;
        case "run_failed": {
          const e = d.error || {};
          const it = this.item("err", "✗", (top ? "Failed: " : "Sub-run failed: ") + (e.kind || "other"), usageText(d.usage), ev, sc.root);
          it.li.append(el("div", { class: "label" }, errorText(e)));
          if (!top) break;
          this.endBubble();
          this.total.final = d.usage || null;
          this.totalDirty = true;
          addNote(failureText(e), true);
          break;
        }
        default:
          this.item("note", "•", ev.type, "", ev, sc.parent);
      }
    }

    countDelta(sc, ev, field, n) {
      const t = sc.turn;
      if (!t) return;
      t.deltas++;
      t[field] += n;
      if (t.events.length < 200) t.events.push(ev);
      this.dirtyTurns.add(t);
    }

    // ended queues the stream's end behind the events still waiting for a
    // frame, so that it settles after them.
    ended(err) {
      $("cancel").hidden = true;
      this.enqueue({ type: "_end", data: { err } });
    }

    finish(err) {
      this.endBubble();
      if (err && err.status === 410 && this.run.record) { this.fromRecord(this.run.record, err); return; }
      const last = this.root.lastElementChild;
      const type = last ? last.dataset.type : "";
      const s = err ? "error" : type === "run_completed" ? "completed" : "failed";
      setRunStatus(s);
      setStatus(err ? "lost the run's events: " + err.message : s);
      refreshRuns();
    }
  }

  // fromRecord shows a past run whose events the server no longer keeps
  // (it restarted on an in-memory event log; its run index kept the
  // record): what it was asked, what it answered, how it ended.
  RunView.prototype.fromRecord = function (r, err) {
    const res = r.result || {};
    if (res.final_output) addMessage("assistant", res.last_agent || r.agent, res.final_output);
    else if (r.error) addNote(failureText(r.error), true);
    const it = this.item("note", "•", "Events not kept", "record only", { type: "record", data: r }, this.root);
    it.li.append(el("div", { class: "label" }, err.detail || "the server no longer keeps this run's events"));
    if (res.usage) it.li.append(el("div", { class: "label" }, usageText(res.usage)));
    setRunStatus(r.status || "completed");
    setStatus((r.status || "") + " · events no longer kept: showing the run's record");
  };

  // errorText says why a run failed: the error's message, else its schema
  // errors (an invalid structured output carries only those).
  function errorText(e) { return e.message || (e.schema_errors || []).join("; "); }

  function failureText(e) {
    const why = errorText(e);
    return "failed (" + (e.kind || "other") + ")" + (why ? ": " + why : "");
  }

  function addUsage(a, b) {
    const out = { ...a };
    for (const k of ["input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens", "cost"]) out[k] = (a[k] || 0) + (b[k] || 0);
    return out;
  }

  // totalText sums the run's model calls, its own and its sub-runs'.
  function totalText(t) {
    if (!t.calls && !t.final) return "";
    const u = t.final || t.usage;
    return "Total: " + t.calls + " model call" + (t.calls === 1 ? "" : "s") + " · " + usageText(u);
  }

  function turnMeta(t) {
    const parts = [t.agent];
    if (t.model) parts.push(t.model);
    if (t.usage) parts.push(usageText(t.usage));
    if (t.deltas) parts.push(t.deltas + " deltas", t.chars + " chars");
    if (t.reasoning) parts.push(t.reasoning + " reasoning chars");
    if (t.callDeltas) parts.push(t.callDeltas + " call deltas");
    return parts.filter(Boolean).join(" · ");
  }

  function nearBottom(box) { return box.scrollHeight - box.scrollTop - box.clientHeight < 40; }
  function scrollDown(box) { box.scrollTop = box.scrollHeight; }

  function addMessage(role, who, text, streaming) {
    const whoEl = el("span", { class: "who" }, who);
    const body = el("span", { class: "text" }, text);
    const m = el("div", { class: "msg " + role + (streaming ? " streaming" : "") }, whoEl, body);
    $("chat").append(m);
    scrollDown($("chat"));
    return { el: m, body, who: whoEl };
  }

  function addNote(text, err) {
    $("chat").append(el("div", { class: "note" + (err ? " err" : "") }, text));
  }

  // ApprovalCard shows a paused run's pending calls with their decisions.
  class ApprovalCard {
    constructor(run, st) {
      this.run = run;
      this.pauseID = st.pause_id;
      this.el = el("section", { class: "approvals", "aria-label": "Pending approvals" }, el("h3", null, "Approval needed"));
      this.buttons = [];
      for (const p of st.pending || []) {
        const row = el("div", { class: "row" });
        const outcome = el("span", { class: "meta", role: "status" });
        for (const [kind, label, cls] of [["approve", "Approve", "approve"], ["reject", "Reject", "reject"], ["always", "Always", ""]]) {
          const b = el("button", { type: "button", class: cls, "data-kind": kind, onclick: () => this.decide(p, kind, outcome) }, label);
          this.buttons.push(b);
          row.append(b);
        }
        row.append(outcome);
        this.el.append(el("div", { class: "approval", "data-approval": p.id },
          el("div", null, el("strong", null, p.tool), " ", el("span", { class: "meta" }, (p.path || []).join(" › "))),
          p.prompt ? el("div", { class: "label" }, p.prompt) : null,
          p.asked_by ? el("div", { class: "label" }, "asked by " + p.asked_by) : null,
          block("arguments", pretty(p.args)), row));
      }
      $("chat").append(this.el);
      scrollDown($("chat"));
      if (this.buttons[0]) this.buttons[0].focus();
    }
    async decide(p, kind, outcome) {
      for (const b of this.buttons) b.disabled = true;
      outcome.textContent = "sending…";
      try {
        const acc = await call("POST", "agents/" + enc(this.run.agent) + "/runs/" + enc(this.run.id) + "/approvals",
          { pause_id: this.pauseID, decisions: [{ id: p.id, kind }] });
        outcome.textContent = kind === "reject" ? "rejected" : kind === "always" ? "approved (always)" : "approved";
        // The continuation's events may have arrived before this answer.
        if (document.body.dataset.runStatus === "paused") setLiveStatus(acc && acc.status === "queued" ? "queued" : "running");
      } catch (err) {
        outcome.textContent = err.status === 409 ? "the run is no longer paused here" : String(err.message);
      }
    }
    resolved() {
      for (const b of this.buttons) b.disabled = true;
      this.el.classList.add("resolved");
    }
  }

  // ---- agents, sessions, runs ------------------------------------------
  async function loadAgents() {
    const data = await call("GET", "agents");
    state.agents = data.agents || [];
    state.agentNames = new Set(state.agents.map((a) => a.name));
    const sel = $("agent");
    sel.replaceChildren(...state.agents.map((a) => el("option", { value: a.name, title: a.description }, a.name)));
    const want = store.get("agent", "");
    if (state.agentNames.has(want)) sel.value = want;
  }

  // The session picker lists the caller's sessions as the server knows
  // them (GET /sessions: scoped to the token's principal, kept across a
  // restart with a run index), plus sessions started here that have no run
  // yet.
  const sessionList = { server: [], fresh: [] };

  function sessionLabel(s) {
    const what = s.label || s.id.slice(0, 8);
    return (what.length > 48 ? what.slice(0, 47) + "…" : what) + " · " + when(s.updated_at);
  }

  function renderSessions(current) {
    const known = new Set(sessionList.server.map((s) => s.id));
    sessionList.fresh = sessionList.fresh.filter((f) => !known.has(f.id));
    const opts = [
      ...sessionList.fresh.map((f) => el("option", { value: f.id }, "New session · " + f.at)),
      ...sessionList.server.map((s) => el("option", { value: s.id, title: s.label + " (" + s.runs + (s.runs === 1 ? " run)" : " runs)") }, sessionLabel(s))),
    ];
    const keep = current || $("session").value;
    $("session").replaceChildren(...opts);
    if (keep && opts.some((o) => o.value === keep)) $("session").value = keep;
  }

  async function loadSessions() {
    try {
      sessionList.server = (await call("GET", "sessions")).sessions || [];
    } catch (err) {
      sessionList.server = [];
      if (err.status !== 501) setStatus("cannot list sessions: " + err.message);
    }
    renderSessions();
  }

  function addSession(id) {
    if (!sessionList.server.some((s) => s.id === id) && !sessionList.fresh.some((f) => f.id === id)) {
      sessionList.fresh.unshift({ id, at: new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) });
    }
    renderSessions(id);
  }

  function newSession() {
    addSession(newID());
    openSession($("session").value);
  }

  function clearViews() {
    if (state.view) state.view.close();
    state.view = null;
    $("chat").replaceChildren();
    $("timeline").replaceChildren();
    $("run-id").textContent = "";
    $("run-total").textContent = "";
    setStatus("");
    delete document.body.dataset.runStatus;
    emit("clear");
  }

  // openSession shows a session's conversation: earlier runs from their
  // records, the latest one live from its events.
  async function openSession(id) {
    clearViews();
    if (!id) return;
    let runs = [];
    try { runs = (await call("GET", "runs?session=" + enc(id) + "&limit=100")).runs || []; } catch (err) { setStatus(err.message); }
    runs.reverse();
    const last = runs.pop();
    for (const r of runs) {
      if (r.input) addMessage("user", "you", r.input);
      if (r.result && r.result.final_output) addMessage("assistant", r.result.last_agent || r.agent, r.result.final_output);
      else if (r.error) addNote(failureText(r.error), true);
    }
    if (last) openRun(last, true);
    markCurrentRun(last ? last.id : "");
  }

  function openRun(r, keepChat) {
    if (!keepChat) clearViews();
    else if (state.view) state.view.close();
    $("timeline").replaceChildren();
    if (state.agentNames.has(r.agent)) $("agent").value = r.agent;
    state.view = new RunView({ id: r.id, agent: r.agent, input: r.input || "", status: r.status, record: r });
    markCurrentRun(r.id);
  }

  function markCurrentRun(id) {
    for (const b of $("runs").querySelectorAll("button")) b.setAttribute("aria-current", String(b.dataset.run === id));
  }

  let refreshing = null;
  function refreshRuns() {
    if (refreshing) return refreshing;
    refreshing = (async () => {
      try {
        const runs = (await call("GET", "runs?limit=200")).runs || [];
        const current = state.view ? state.view.run.id : "";
        $("runs").replaceChildren(...runs.map((r) => el("li", null, el("button", {
          type: "button", "data-run": r.id, "aria-current": String(r.id === current),
          onclick: () => {
            if (r.session_id) addSession(r.session_id);
            openRun(r, false);
          },
        },
        el("span", { class: "what" }, r.input || "(messages)"),
        el("span", { class: "meta" }, el("span", { class: "badge s-" + r.status }, r.status), " " + r.agent + " · " + when(r.created_at))))));
        if (!runs.length) $("runs").append(el("li", { class: "muted" }, "No runs yet."));
      } catch (err) {
        $("runs").replaceChildren(el("li", { class: "muted" }, err.status === 501 ? "This server's event log cannot list runs." : err.message));
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  async function send() {
    // Trimmed: a newline the Enter that sent the last message left behind
    // (its key event can land after the box was cleared) is no part of the
    // next one.
    const text = $("input").value.trim();
    if (!text) return;
    const agent = $("agent").value;
    if (!agent) return;
    if (!$("session").value) addSession(newID());
    const session = $("session").value;
    $("send").disabled = true;
    $("input").value = "";
    try {
      const acc = await call("POST", "agents/" + enc(agent) + "/runs?mode=async&capture=calls", { input: text }, { "X-Session-Id": session });
      if (state.view) state.view.close();
      $("timeline").replaceChildren();
      state.view = new RunView({ id: acc.run_id, agent, input: text, status: acc.status });
      setLiveStatus(acc.status === "queued" ? "queued" : "running");
      refreshRuns();
      loadSessions();
    } catch (err) {
      if (!$("input").value.trim()) $("input").value = text; // give the words back to retry
      setStatus("could not start the run: " + err.message);
    } finally {
      $("send").disabled = false;
      $("input").focus();
    }
  }

  function applyTheme(theme) {
    if (theme) document.documentElement.dataset.theme = theme;
    const dark = theme ? theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    $("theme").textContent = dark ? "Light theme" : "Dark theme";
    $("theme").setAttribute("aria-pressed", String(dark));
  }

  window.helikon = {
    $, el, call, request, enc, pretty, block, usageText, partsText, showRaw, openRun, refreshRuns,
    current: () => (state.view ? state.view.run : null),
    on(name, fn) { if (!hooks.has(name)) hooks.set(name, []); hooks.get(name).push(fn); },
  };

  // ---- wiring -----------------------------------------------------------
  $("composer").addEventListener("submit", (e) => { e.preventDefault(); send(); });
  $("input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
  });
  $("new-session").addEventListener("click", newSession);
  $("session").addEventListener("change", () => openSession($("session").value));
  $("agent").addEventListener("change", () => store.set("agent", $("agent").value));
  $("refresh").addEventListener("click", refreshRuns);
  $("raw-close").addEventListener("click", () => $("raw").close());
  $("cancel").addEventListener("click", async () => {
    const v = state.view;
    if (!v) return;
    try { await call("POST", "agents/" + enc(v.run.agent) + "/runs/" + enc(v.run.id) + "/cancel"); } catch (err) { setStatus(err.message); }
  });
  $("theme").addEventListener("click", () => {
    const dark = $("theme").getAttribute("aria-pressed") === "true";
    store.set("theme", dark ? "light" : "dark");
    applyTheme(dark ? "light" : "dark");
  });

  applyTheme(store.get("theme", ""));
  (async () => {
    try {
      await loadAgents();
    } catch (err) {
      setStatus("cannot reach the agent server: " + err.message);
      return;
    }
    // Session names once kept in this browser's storage: another token
    // in the same tab saw them, so they are no longer kept.
    try { localStorage.removeItem("helikon.sessions"); } catch { /* storage off */ }
    await loadSessions();
    if (!sessionList.server.length) addSession(newID());
    else await openSession(sessionList.server[0].id);
    await refreshRuns();
    document.body.dataset.ready = "true";
  })();
})();
