// Helikon dev UI: the agent graph. It draws the selected agent's structure
// (GET agents/{name}/graph: tools, agents called as tools, handoffs, and a
// workflow's members and edges, nested) as SVG, highlights the agent the
// open run is in, and filters the timeline to the agent a click chooses.
// Names only ever reach the page as Text nodes.
"use strict";

(() => {
  const h = window.helikon;
  if (!h) return;
  const { $, call, enc } = h;
  const NS = "http://www.w3.org/2000/svg";
  const CH = 6.8; // px per character of the 12 px font, a generous estimate
  const GAP = 14, ROW = 30, PAD = 10, TITLE = 20, LINE = 15, MAXTOOLS = 6, MAXCHARS = 26;

  function svg(tag, attrs, ...kids) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v != null) e.setAttribute(k, String(v));
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  const cut = (s) => (s.length > MAXCHARS ? s.slice(0, MAXCHARS - 1) + "…" : s);
  const width = (lines, min) => Math.max(min, ...lines.map((l) => cut(l).length * CH + 2 * PAD));

  // ---- layout ---------------------------------------------------------
  // layout returns a node's box {w, h, draw(g, x, y)}: draw appends the
  // node at (x, y) and returns its anchors {top, bottom: [x, y]}.
  function layout(n) {
    if (n.ref || n.truncated) return leaf(n, [n.ref ? "↺ " + n.name : (n.name || "…") + " …"], ["see above", "not described"][n.ref ? 0 : 1]);
    if (n.members && n.members.length) return composite(n);
    return llm(n);
  }

  // box draws one agent as a rectangle of text lines.
  function box(n, lines, sub, extraClass) {
    const w = width([...lines, sub || ""], 96), hh = 8 + LINE * (lines.length + (sub ? 1 : 0));
    return {
      w, h: hh,
      draw(g, x, y) {
        const gn = svg("g", { class: "gnode " + (extraClass || "") + " k-" + (n.kind || "agent"), "data-agent": n.name || "", tabindex: "0", role: "button", transform: `translate(${x},${y})` },
          svg("title", null, (n.name || "") + (n.description ? ": " + n.description : "")),
          svg("rect", { width: w, height: hh, rx: 6 }));
        lines.forEach((l, i) => gn.append(svg("text", { x: PAD, y: 4 + LINE * (i + 1) - 3, class: i === 0 ? "name" : "tool" }, cut(l))));
        if (sub) gn.append(svg("text", { x: PAD, y: 4 + LINE * (lines.length + 1) - 3, class: "sub" }, cut(sub)));
        g.append(gn);
        return { top: [x + w / 2, y], bottom: [x + w / 2, y + hh] };
      },
    };
  }

  function leaf(n, lines, sub) { return box(n, lines, sub, n.ref ? "ref" : "trunc"); }

  // llm is an agent box with its function tools listed, and below it the
  // agents it calls as tools and hands off to, connected.
  function llm(n) {
    const tools = (n.tools || []).filter((t) => !t.agent);
    const lines = [n.name, ...tools.slice(0, MAXTOOLS).map((t) => "⚙ " + t.name)];
    if (tools.length > MAXTOOLS) lines.push("+" + (tools.length - MAXTOOLS) + " more tools");
    const head = box(n, lines, n.kind === "llm" ? (n.model || "llm") : n.kind);
    const kids = [
      ...(n.tools || []).filter((t) => t.agent).map((t) => ({ label: "tool " + t.name, dashed: false, b: layout(t.agent) })),
      ...(n.handoffs || []).map((a) => ({ label: "handoff", dashed: true, b: layout(a) })),
    ];
    if (!kids.length) return head;
    const rowW = kids.reduce((s, k) => s + k.b.w, 0) + GAP * (kids.length - 1);
    const w = Math.max(head.w, rowW), hh = head.h + ROW + Math.max(...kids.map((k) => k.b.h));
    return {
      w, h: hh,
      draw(g, x, y) {
        const a = head.draw(g, x + (w - head.w) / 2, y);
        let cx = x + (w - rowW) / 2;
        for (const k of kids) {
          const ka = k.b.draw(g, cx, y + head.h + ROW);
          edge(g, a.bottom, ka.top, k.label, k.dashed);
          cx += k.b.w + GAP;
        }
        return a;
      },
    };
  }

  // composite is a workflow's frame: its members in layers by their edges
  // (a sequence is a column, parallel branches a row, a graph its layers),
  // a loop's way back and a swarm's handoffs drawn as arcs.
  function composite(n) {
    const members = n.members.map((m) => ({ m, b: layout(m), key: m.key || m.name }));
    const byKey = new Map(members.map((x, i) => [x.key, i]));
    const forward = (n.edges || []).filter((e) => !e.label && byKey.has(e.from) && byKey.has(e.to));
    const depth = members.map(() => 0);
    // Longest path from a root, bounded by the member count (a cycle
    // cannot be drawn in layers and is not one a graph allows).
    for (let pass = 0; pass < members.length; pass++) {
      let moved = false;
      for (const e of forward) {
        const f = byKey.get(e.from), t = byKey.get(e.to);
        if (depth[t] < depth[f] + 1) { depth[t] = depth[f] + 1; moved = true; }
      }
      if (!moved) break;
    }
    const layers = [];
    members.forEach((x, i) => (layers[depth[i]] ||= []).push(x));
    const sizes = layers.map((l) => ({ w: l.reduce((s, x) => s + x.b.w, 0) + GAP * (l.length - 1), h: Math.max(...l.map((x) => x.b.h)) }));
    const arcs = (n.edges || []).filter((e) => e.label && byKey.has(e.from) && byKey.has(e.to));
    const below = n.kind === "swarm" && arcs.length ? 18 + 6 * Math.min(members.length, 8) : 0;
    const side = n.kind === "loop" ? 24 : 0;
    const innerW = Math.max(...sizes.map((s) => s.w));
    let title = n.kind + " · " + n.name;
    if (n.max_iterations) title += " · ≤" + n.max_iterations + "×";
    const w = Math.max(innerW + 2 * PAD + side, width([title], 120));
    const hh = TITLE + PAD + sizes.reduce((s, l) => s + l.h, 0) + ROW * (sizes.length - 1) + PAD + below;
    return {
      w, h: hh,
      draw(g, x, y) {
        const frame = svg("g", { class: "gnode frame k-" + n.kind, "data-agent": n.name, tabindex: "0", role: "button" },
          svg("title", null, n.name + (n.description ? ": " + n.description : "")),
          svg("rect", { x, y, width: w, height: hh, rx: 8 }),
          svg("text", { x: x + PAD, y: y + 14, class: "name" }, cut(title)));
        g.append(frame);
        const at = [];
        let ly = y + TITLE + PAD;
        layers.forEach((l, li) => {
          let lx = x + (w - side - sizes[li].w) / 2;
          for (const m of l) {
            const a = m.b.draw(g, lx, ly + (sizes[li].h - m.b.h) / 2);
            at[byKey.get(m.key)] = { ...a, x: lx, w: m.b.w, y: ly, h: m.b.h };
            if (n.entry && m.key === n.entry) g.append(svg("text", { x: lx, y: ly - 3, class: "sub" }, "entry ▾"));
            lx += m.b.w + GAP;
          }
          ly += sizes[li].h + ROW;
        });
        for (const e of forward) edge(g, at[byKey.get(e.from)].bottom, at[byKey.get(e.to)].top, "", false);
        for (const e of arcs) {
          const f = at[byKey.get(e.from)], t = at[byKey.get(e.to)];
          if (n.kind === "loop") {
            // Back from the last step's right side to the first's.
            const rx = x + w - side / 2 - 4;
            g.append(svg("path", { class: "edge back", d: `M${f.x + f.w},${f.y + f.h / 2} H${rx} V${t.y + t.h / 2} H${t.x + t.w}`, "marker-end": "url(#g-arrow)" }));
            g.append(svg("text", { x: rx - 2, y: (f.y + t.y + t.h) / 2, class: "elabel", "text-anchor": "end" }, e.label));
          } else {
            // A swarm's handoffs curve under the row, each a little deeper.
            const sx = f.bottom[0] + (t.x > f.x ? 6 : -6), tx = t.bottom[0] + (t.x > f.x ? -6 : 6);
            const dip = f.y + f.h + 10 + 5 * Math.abs(byKey.get(e.from) - byKey.get(e.to));
            g.append(svg("path", { class: "edge handoff", d: `M${sx},${f.y + f.h} Q${(sx + tx) / 2},${dip + 8} ${tx},${t.y + t.h}`, "marker-end": "url(#g-arrow)" }));
          }
        }
        return { top: [x + w / 2, y], bottom: [x + w / 2, y + hh] };
      },
    };
  }

  function edge(g, [x1, y1], [x2, y2], label, dashed) {
    const my = (y1 + y2) / 2;
    g.append(svg("path", { class: "edge" + (dashed ? " handoff" : ""), d: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2 - 2}`, "marker-end": "url(#g-arrow)" }));
    if (label) g.append(svg("text", { x: (x1 + x2) / 2 + 4, y: my + 4, class: "elabel" }, cut(label)));
  }

  // ---- the pane -------------------------------------------------------
  const graphs = new Map(); // agent name → its description (or a failure)
  const view = { agent: "", active: "", seen: new Set(), filter: "" };

  async function show(agent) {
    if (!agent || agent === view.agent) return;
    view.agent = agent;
    const box = $("graph");
    if (!graphs.has(agent)) {
      box.replaceChildren(h.el("p", { class: "muted" }, "Loading " + agent + "…"));
      try { graphs.set(agent, await call("GET", "agents/" + enc(agent) + "/graph")); } catch (err) { graphs.set(agent, { error: err.message }); }
      if (view.agent !== agent) return;
    }
    draw(graphs.get(agent));
  }

  function draw(d) {
    const box = $("graph");
    if (d.error) { box.replaceChildren(h.el("p", { class: "muted" }, "No graph: " + d.error)); return; }
    const b = layout(d);
    const root = svg("g");
    b.draw(root, 1, 1);
    const s = svg("svg", { class: "gsvg", width: b.w + 2, height: b.h + 2, viewBox: `0 0 ${b.w + 2} ${b.h + 2}`, role: "group", "aria-label": "Structure of " + d.name },
      svg("defs", null, svg("marker", { id: "g-arrow", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
        svg("path", { d: "M0,0 L8,4 L0,8 z", class: "arrow" }))),
      root);
    box.replaceChildren(s);
    mark();
  }

  // mark highlights the agent the run is in and those it has been in.
  function mark() {
    for (const g of $("graph").querySelectorAll(".gnode")) {
      const a = g.dataset.agent;
      g.classList.toggle("active", a === view.active);
      g.classList.toggle("seen", view.seen.has(a));
      g.classList.toggle("chosen", a === view.filter);
      g.setAttribute("aria-pressed", String(a === view.filter));
    }
    document.body.dataset.graphActive = view.active;
  }

  // ---- the run: which agent is active ---------------------------------
  // An event names its agent (a run's start, a turn, an agent update, a
  // handoff's target); an agent tool's sub-run wraps its events.
  function agentOf(ev) {
    let d = ev.data || {}, type = ev.type;
    for (let i = 0; type === "sub_run_event" && i < 64; i++) { type = (d.event || {}).type; d = d.event || {}; }
    if (type === "handoff_item") return d.to || "";
    if (type === "run_started" || type === "turn_started" || type === "agent_updated") return d.agent || "";
    return "";
  }

  h.on("run", (run) => {
    view.active = ""; view.seen = new Set();
    show(run.agent);
    mark();
  });
  h.on("event", (ev) => {
    if (ev.type === "run_completed" || ev.type === "run_failed") { view.active = ""; mark(); return; }
    const a = agentOf(ev);
    if (!a || a === view.active) return;
    view.active = a;
    view.seen.add(a);
    mark();
  });

  // ---- filtering the timeline -----------------------------------------
  function setFilter(agent) {
    view.filter = agent === view.filter ? "" : agent;
    $("graph-all").hidden = !view.filter;
    $("graph-all").textContent = view.filter ? "Showing " + view.filter + " · show all" : "";
    applyFilter();
    mark();
  }

  function applyFilter() {
    const tl = $("timeline");
    tl.classList.toggle("filtered", !!view.filter);
    for (const li of tl.querySelectorAll("li.tl")) li.classList.toggle("off", !!view.filter && li.dataset.agent !== view.filter);
  }

  $("graph").addEventListener("click", (e) => {
    const g = e.target.closest(".gnode");
    if (g && g.dataset.agent) setFilter(g.dataset.agent);
  });
  $("graph").addEventListener("keydown", (e) => {
    const g = e.target.closest && e.target.closest(".gnode");
    if (g && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); setFilter(g.dataset.agent); }
  });
  $("graph-all").addEventListener("click", () => setFilter(view.filter));
  // Items the run adds while a filter is on obey it too.
  new MutationObserver(() => { if (view.filter) applyFilter(); }).observe($("timeline"), { childList: true, subtree: true });
  // The agent picker: its options arrive once the agents are loaded.
  const pick = () => show($("agent").value);
  $("agent").addEventListener("change", pick);
  new MutationObserver(pick).observe($("agent"), { childList: true });
  pick();
})();
