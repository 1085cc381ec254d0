// Helikon dev UI: the trace view, a waterfall of the open run beside its
// timeline. Its model (Trace) is pure: it turns the run's events, each
// stamped with "at" (RFC 3339, UTC), into rows with a start, an end and
// their nesting; the view draws the rows as bars on the run's time axis.
// Model and tool texts only ever reach the page as Text nodes.
"use strict";

(() => {
  // parseAt reads an RFC 3339 time to milliseconds since the epoch, keeping
  // the sub-millisecond digits Date.parse drops (a tool call can take 0.2 ms).
  function parseAt(s) {
    if (typeof s !== "string" || s.length < 20) return null;
    const m = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(s);
    if (!m) return null;
    const base = Date.parse(m[1] + m[3]);
    if (isNaN(base)) return null;
    return base + (m[2] ? Number("0" + m[2]) * 1000 : 0);
  }

  const deltas = new Set(["token_delta", "reasoning_delta", "tool_call_delta"]);

  // Trace is a run's waterfall, built event by event. Rows are in the
  // order they began; each has kind (run, model, tool, agent, branch,
  // handoff, approval, mark), label, depth, start and end (ms since the
  // epoch; end null while open) and, for model calls, ttft and tokens.
  class Trace {
    constructor() {
      this.rows = [];
      this.first = null; // the earliest time seen
      this.last = null; // the latest time seen
      this.stamped = 0; // events with a time
      this.ended = false;
      this.paused = false;
      this.version = 0; // bumped by every change a view must draw
      this.ordinals = new Map(); // "agent#turn" → model calls seen
      this.top = this.scope(null, 0);
    }

    scope(row, depth) {
      return { row, depth, parent: row, turn: null, round: null, calls: new Map(), subs: new Map(), handoffs: [], lastAt: null };
    }

    row(fields, sc) {
      const r = { id: this.rows.length, kind: "mark", label: "", depth: sc.depth, start: null, end: null, parent: sc.parent ? sc.parent.id : null, ...fields };
      this.rows.push(r);
      return r;
    }

    // add applies one raw event of the run: {type, data}, sub-runs' events
    // wrapped in sub_run_event. It reports whether the trace changed.
    add(ev) {
      if (deltas.has(ev.type)) return false;
      this.apply(ev.type, ev.data || {}, this.top);
      this.version++;
      return true;
    }

    time(d, sc) {
      const at = parseAt(d.at);
      if (at == null) return sc.lastAt != null ? sc.lastAt : this.last;
      this.stamped++;
      if (this.first == null || at < this.first) this.first = at;
      if (this.last == null || at > this.last) this.last = at;
      sc.lastAt = at;
      return at;
    }

    apply(type, d, sc) {
      const at = this.time(d, sc);
      const top = sc === this.top;
      if (top && this.paused && type !== "run_paused") {
        // Approved: the run goes on in the same log.
        this.paused = false;
        if (sc.row) sc.row.status = "";
      }
      switch (type) {
        case "sub_run_event": {
          const sub = this.subScope(sc, d, at);
          const inner = d.event || {};
          this.apply(inner.type || "event", inner, sub);
          break;
        }
        case "run_started":
          if (top) {
            sc.row = sc.parent = this.row({ kind: "run", label: "Run " + (d.agent || ""), agent: d.agent || "", start: at }, sc);
            sc.depth = 1;
          }
          else if (sc.row && sc.row.start == null) sc.row.start = at;
          break;
        case "turn_started":
          sc.turn = this.modelRow(sc, d, at);
          break;
        case "model_responded": {
          let t = sc.turn;
          if (!t || t.end != null) t = sc.turn = this.modelRow(sc, d, sc.lastAt != null ? at : null);
          t.end = at;
          const ft = parseAt(d.first_token_at);
          if (ft != null && t.start != null) t.ttft = Math.max(0, ft - t.start);
          const u = d.usage || {};
          t.tokens = { in: u.input_tokens || 0, out: u.output_tokens || 0 };
          if (d.model) t.model = d.model;
          sc.round = null;
          break;
        }
        case "tool_call_item": {
          const under = sc.parent;
          for (const p of (d.item && d.item.content) || []) {
            if (p.type !== "tool_use") continue;
            // The calls one model turn asked for are one round: they run
            // side by side, so the view groups them.
            if (!sc.round) sc.round = { size: 0, turn: sc.turn ? sc.turn.id : null };
            sc.round.size++;
            const r = this.row({ kind: "tool", label: p.name, tool: p.name, callId: p.call_id || "", start: at, round: sc.round }, sc);
            r.parent = under ? under.id : null;
            sc.calls.set(p.call_id, r);
          }
          break;
        }
        case "tool_output_item":
          for (const p of (d.item && d.item.content) || []) {
            if (p.type !== "tool_result") continue;
            const r = sc.calls.get(p.call_id);
            if (!r) continue;
            const started = parseAt(d.started_at);
            if (started != null) r.start = started;
            r.end = at;
            if (p.is_error) r.status = r.status || "error";
            for (const w of r.waits || []) if (w.end == null) w.end = started != null ? started : at;
          }
          break;
        case "approval_requested": {
          const call = sc.calls.get(d.call_id);
          const w = this.row({ kind: "approval", label: "approval: " + (d.tool || ""), start: at, depth: sc.depth + 1, callId: d.call_id || "" }, sc);
          if (call) {
            w.parent = call.id;
            (call.waits = call.waits || []).push(w);
          }
          break;
        }
        case "permission_denied": {
          const call = sc.calls.get(d.call_id);
          if (call) call.status = "denied";
          break;
        }
        case "handoff_item": {
          const h = this.row({ kind: "handoff", label: "handoff " + d.from + " → " + d.to, start: at }, sc);
          sc.handoffs.push(h);
          // What follows runs in the target agent: it nests under the handoff.
          sc.parent = h;
          sc.depth++;
          sc.turn = null;
          break;
        }
        case "guardrail_triggered":
          this.row({ kind: "mark", label: "guardrail tripped (" + (d.kind || "") + ")", start: at, end: at, status: "error" }, sc);
          break;
        case "repair_started":
          this.row({ kind: "mark", label: "structured-output repair " + (d.attempt || ""), start: at, end: at }, sc);
          break;
        case "run_paused":
          if (top) { this.paused = true; if (sc.row) sc.row.status = "paused"; }
          break;
        case "run_completed":
        case "run_failed":
          this.close(sc, at, type === "run_failed" ? "error" : "");
          if (top) { this.ended = true; this.paused = false; }
          break;
      }
    }

    modelRow(sc, d, at) {
      const agent = d.agent || (sc.row && sc.row.agent) || "";
      const k = agent + "#" + d.turn;
      const ordinal = this.ordinals.get(k) || 0;
      this.ordinals.set(k, ordinal + 1);
      return this.row({ kind: "model", label: agent + " · turn " + d.turn, agent, turn: d.turn, ordinal, start: at, nested: sc !== this.top }, sc);
    }

    subScope(sc, d, at) {
      let sub = sc.subs.get(d.call_id);
      if (sub) return sub;
      let r = sc.calls.get(d.call_id);
      if (r) {
        r.kind = "agent";
        r.label = "agent tool " + (d.tool || d.agent || "");
      } else {
        // A workflow's branch: no model call asked for it.
        r = this.row({ kind: "branch", label: d.agent || d.call_id || "branch", start: at }, sc);
      }
      r.agent = d.agent || "";
      sub = this.scope(r, (r.depth || 0) + 1);
      sc.subs.set(d.call_id, sub);
      return sub;
    }

    close(sc, at, status) {
      const r = sc.row;
      if (r) {
        if (r.end == null || at > r.end) r.end = at;
        if (status) r.status = status;
        else if (r.status === "paused") r.status = "";
      }
      for (const h of sc.handoffs) if (h.end == null) h.end = at;
    }

    // layout places every row on the run's time axis: left and width as
    // fractions of the span from the first to the last time (now, for an
    // open row of a live run), with the durations the view prints.
    layout(now) {
      const t0 = this.first;
      let t1 = this.last;
      const live = !this.ended;
      // A live run's open rows reach now; a paused one's wait is shown to
      // its last event, however long ago the pause began.
      if (live && !this.paused && now != null && t1 != null && now > t1) t1 = now;
      const span = t0 != null && t1 != null ? Math.max(t1 - t0, 0.001) : 0;
      return {
        span, start: t0, live, stamped: this.stamped > 0,
        rows: this.rows.map((r) => {
          const open = r.end == null;
          const start = r.start != null ? r.start : t0;
          const end = open ? t1 : r.end;
          const out = {
            id: r.id, parent: r.parent, kind: r.kind, label: r.label, depth: r.depth, status: r.status || (!open || !this.stamped ? "" : this.paused ? "waiting" : live ? "running" : "open"),
            open, duration: start != null && end != null ? Math.max(0, end - start) : null,
            left: span && start != null ? (start - t0) / span : 0, width: span && start != null && end != null ? Math.max(0, end - start) / span : 0,
          };
          if (r.kind === "model") Object.assign(out, { agent: r.agent, turn: r.turn, ordinal: r.ordinal, nested: r.nested, ttft: r.ttft != null ? r.ttft : null, tokens: r.tokens || null, model: r.model || "" });
          if (r.round) Object.assign(out, { parallel: r.round.size, callId: r.callId });
          if (r.kind === "agent" || r.kind === "branch") out.agent = r.agent;
          return out;
        }),
      };
    }
  }

  // duration prints milliseconds as the waterfall labels them.
  function duration(ms) {
    if (ms == null) return "";
    if (ms < 1) return ms.toFixed(2) + " ms";
    if (ms < 1000) return (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + " ms";
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
    return Math.floor(ms / 60000) + " m " + Math.round((ms % 60000) / 1000) + " s";
  }

  // layout is the model's pure entry for tests: the rows of a whole event list.
  function layout(events, now) {
    const t = new Trace();
    for (const ev of events) t.add(ev);
    return t.layout(now);
  }

  window.helikonTrace = { Trace, layout, parseAt, duration };

  const h = window.helikon;
  if (!h) return;
  const { el, $ } = h;

  // The view: a tab beside the timeline's, a list of rows with a bar each.
  const pane = $("timeline-pane");
  const timeline = $("timeline");
  const tabs = el("div", { class: "tabs", role: "tablist", "aria-label": "Run views" });
  const tlTab = el("button", { type: "button", role: "tab", id: "tab-timeline", "aria-selected": "true", "aria-controls": "timeline" }, "Timeline");
  const trTab = el("button", { type: "button", role: "tab", id: "tab-trace", "aria-selected": "false", "aria-controls": "trace" }, "Trace");
  tabs.append(tlTab, trTab);
  const heading = pane.querySelector(".pane-head h2");
  heading.after(tabs);
  heading.classList.add("sr-only");
  const box = el("div", { id: "trace", class: "trace", role: "tabpanel", "aria-labelledby": "tab-trace", hidden: true });
  const summary = el("p", { class: "trace-sum", role: "status" });
  const list = el("ol", { class: "trace-rows" });
  box.append(summary, list);
  timeline.after(box);

  let trace = new Trace();
  let run = null;
  let scheduled = false;
  let ticker = 0;
  const rowsEl = new Map();

  function visible() { return !box.hidden; }

  function select(which) {
    const tr = which === "trace";
    tlTab.setAttribute("aria-selected", String(!tr));
    trTab.setAttribute("aria-selected", String(tr));
    timeline.hidden = tr;
    box.hidden = !tr;
    if (tr) schedule();
    tick();
  }
  tlTab.addEventListener("click", () => select("timeline"));
  trTab.addEventListener("click", () => select("trace"));
  tabs.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    const to = document.activeElement === tlTab ? trTab : tlTab;
    to.focus();
    to.click();
  });

  function reset(r) {
    trace = new Trace();
    run = r;
    rowsEl.clear();
    list.replaceChildren();
    summary.textContent = "";
    schedule();
  }

  function schedule() {
    if (scheduled || !visible()) return;
    scheduled = true;
    requestAnimationFrame(draw);
  }

  // tick redraws a live run's open bars twice a second while the trace
  // is shown, so that they grow between events.
  function tick() {
    const want = visible() && run && !trace.ended && !trace.paused && trace.rows.length > 0;
    if (want && !ticker) ticker = setInterval(schedule, 500);
    else if (!want && ticker) { clearInterval(ticker); ticker = 0; }
  }

  function rowEl(r) {
    let e = rowsEl.get(r.id);
    if (e) return e;
    const name = el("span", { class: "tr-name" }, r.label);
    const dur = el("span", { class: "tr-dur" });
    const meta = el("span", { class: "tr-meta" });
    const bar = el("span", { class: "tr-bar" });
    const ttft = el("span", { class: "tr-ttft" });
    bar.append(ttft);
    const lane = el("span", { class: "tr-lane" }, bar);
    const label = el("span", { class: "tr-label" }, name, meta);
    const li = el("li", { class: "tr k-" + r.kind, "data-kind": r.kind }, label, lane, dur);
    li.style.setProperty("--depth", String(r.depth));
    if (r.kind === "model" && h.showRequest) {
      const b = el("button", { type: "button", class: "tr-req", title: "The request the model got" }, "Request");
      b.addEventListener("click", () => h.showRequest(run, { agent: r.agent, turn: r.turn, ordinal: r.ordinal }));
      label.append(b);
    }
    e = { li, name, dur, meta, bar, ttft };
    rowsEl.set(r.id, e);
    list.append(li);
    return e;
  }

  function draw() {
    scheduled = false;
    if (!visible()) return;
    const t0 = performance.now();
    const lay = trace.layout(Date.now());
    for (const r of lay.rows) {
      const e = rowEl(r);
      e.li.dataset.status = r.status;
      e.bar.style.left = (r.left * 100).toFixed(3) + "%";
      e.bar.style.width = "max(2px, " + (r.width * 100).toFixed(3) + "%)";
      e.dur.textContent = lay.stamped ? duration(r.duration) + (r.open ? "…" : "") : "";
      const meta = [];
      if (r.kind === "model") {
        if (r.ttft != null) meta.push("first token " + duration(r.ttft));
        if (r.tokens) meta.push(r.tokens.in + " in · " + r.tokens.out + " out");
        if (r.ttft != null && r.duration) {
          e.ttft.style.width = Math.min(100, (r.ttft / r.duration) * 100).toFixed(2) + "%";
        }
      }
      if (r.parallel > 1) meta.push("parallel ×" + r.parallel);
      if (r.status && r.status !== "running") meta.push(r.status);
      const m = meta.join(" · ");
      if (e.meta.textContent !== m) e.meta.textContent = m;
    }
    summary.textContent = !lay.rows.length ? "No events yet." : !lay.stamped
      ? "This run's events carry no times (recorded before events were stamped): the trace shows its structure only."
      : (lay.live ? (trace.paused ? "Paused · " : "Running · ") : "Total ") + duration(lay.span) + " · " + lay.rows.length + " spans";
    if (window.helikonPerf) window.helikonPerf.push(performance.now() - t0);
  }

  h.on("clear", () => { reset(null); tick(); });
  h.on("run", (r) => { reset(r); tick(); });
  h.on("event", (ev, r) => {
    if (run && r.id !== run.id) return;
    if (!trace.add(ev)) return;
    schedule();
    if (ev.type === "run_completed" || ev.type === "run_failed" || ev.type === "run_paused" || trace.rows.length === 1) tick();
  });
})();
