// graphmem review page: keyboard, messages, live updates (server-sent events), the picture.
(function () {
  "use strict";
  const page = document.body.dataset.page;
  const toastEl = document.getElementById("toast");
  let toastTimer = null;

  function toast(message, isError) {
    toastEl.textContent = message;
    toastEl.className = "toast" + (isError ? " error" : "");
    toastEl.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toastEl.hidden = true; }, isError ? 9000 : 4000);
  }
  window.graphmemToast = toast;

  // Errors come back as one plain sentence (never a stack trace): show it.
  document.body.addEventListener("htmx:responseError", (e) => {
    toast(e.detail.xhr.responseText || ("request failed: " + e.detail.xhr.status), true);
  });
  document.body.addEventListener("htmx:sendError", () => toast("the review page is not answering (was `graphmem ui` stopped?)", true));
  document.body.addEventListener("htmx:afterRequest", (e) => {
    const xhr = e.detail.xhr;
    if (e.detail.successful && xhr && xhr.getResponseHeader("content-type") && xhr.getResponseHeader("content-type").startsWith("text/plain")) {
      toast(xhr.responseText, false);
    }
  });

  // ------------------------------------------------------------------ queue: selection and keys
  function items() { return Array.from(document.querySelectorAll("#items > li.item:not(.done)")); }
  function selected() { return document.querySelector("#items > li.item.selected, article.item"); }
  function select(el) {
    document.querySelectorAll("#items > li.item.selected").forEach((x) => x.classList.remove("selected"));
    if (!el) return;
    el.classList.add("selected");
    el.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }
  function move(step) {
    const all = items();
    if (!all.length) return;
    const cur = document.querySelector("#items > li.item.selected");
    let i = cur ? all.indexOf(cur) : -1;
    i = i < 0 ? 0 : Math.min(all.length - 1, Math.max(0, i + step));
    select(all[i]);
  }
  function press(key) {
    const el = selected();
    if (!el) return;
    const btn = el.querySelector(`[data-key="${key}"]`);
    if (btn) btn.click();
  }
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))) return;
    if (e.key === "j") { move(1); e.preventDefault(); }
    else if (e.key === "k") { move(-1); e.preventDefault(); }
    else if (["c", "a", "e", "o"].includes(e.key)) { press(e.key); e.preventDefault(); }
    else if (e.key === "x") {
      const el = selected(); const box = el && el.querySelector("input[name=ids]");
      if (box && !box.disabled) { box.checked = !box.checked; updateBulk(); }
      e.preventDefault();
    }
  });
  document.addEventListener("click", (e) => {
    const li = e.target.closest && e.target.closest("#items > li.item");
    if (li && !li.classList.contains("done")) select(li);
  });
  // After an item was confirmed or archived (swapped for its "done" line), select the next one.
  document.body.addEventListener("htmx:afterSwap", (e) => {
    const el = e.detail.elt;
    if (el && el.classList && el.classList.contains("done") && el.parentElement && el.parentElement.id === "items") {
      let next = el.nextElementSibling;
      while (next && next.classList.contains("done")) next = next.nextElementSibling;
      select(next || items()[items().length - 1]);
      setCount(items().length);
    }
    if (e.detail.target && e.detail.target.id === "bulk-result") {
      const done = e.detail.target.querySelector("[data-archived]");
      (done ? done.dataset.archived.split(" ") : []).filter(Boolean).forEach((id) => markGone(id, "archived"));
      updateBulk();
    }
  });

  function setCount(n) { const c = document.getElementById("count"); if (c) c.textContent = n; }
  function updateBulk() {
    const n = document.querySelectorAll("#items input[name=ids]:checked").length;
    const s = document.getElementById("selected"); const b = document.getElementById("bulk-archive");
    if (s) s.textContent = n; if (b) b.disabled = n === 0;
  }
  document.addEventListener("change", (e) => { if (e.target.name === "ids") updateBulk(); });
  if (page === "queue") select(items()[0]);

  function markGone(id, status) {
    const el = document.getElementById("item-" + id);
    // only an item of the queue's list: a note's own page (same id) keeps showing the note
    if (!el || el.classList.contains("done") || !el.closest("#items")) return;
    el.outerHTML = `<li class="item done" id="item-${id}" data-id="${id}" data-done="${status}"><p><span class="badge fresh">${status}</span> <a href="/note/${id}">${id}</a></p></li>`;
    setCount(items().length);
  }

  // ------------------------------------------------------------------ live: server-sent events
  const live = document.getElementById("live");
  const progress = document.getElementById("progress");
  if (window.EventSource) {
    const source = new EventSource("/events");
    source.onopen = () => { live.textContent = "live"; live.className = "live on"; };
    source.onerror = () => { live.textContent = "reconnecting…"; live.className = "live off"; };
    source.addEventListener("item", (e) => {
      const d = JSON.parse(e.data);
      const list = document.getElementById("items");
      if (!list) { toast(`${d.id} is ${d.state} now: ${d.reason}`, false); return; }
      const tmp = document.createElement("template");
      tmp.innerHTML = d.html.trim();
      const el = tmp.content.firstElementChild;
      el.classList.add("new");
      const old = document.getElementById("item-" + d.id);
      if (old) old.replaceWith(el); else list.prepend(el);
      const empty = document.getElementById("empty"); if (empty) empty.remove();
      htmx.process(el);
      setCount(items().length);
      if (!document.querySelector("#items > li.item.selected")) select(el);
    });
    source.addEventListener("gone", (e) => { const d = JSON.parse(e.data); markGone(d.id, d.status); });
    source.addEventListener("progress", (e) => {
      const d = JSON.parse(e.data);
      if (d.state === "ready" || !d.total) { progress.hidden = true; return; }
      progress.hidden = false;
      progress.textContent = `indexing ${d.done}/${d.total}`;
    });
    source.addEventListener("lost", () => toast("some live updates were missed: reload the page to see everything", true));
    source.addEventListener("error", (e) => {
      if (e.data) { const d = JSON.parse(e.data); live.textContent = "reconnecting…"; live.className = "live off"; live.title = d.message; }
    });
  }

  // ------------------------------------------------------------------ the picture
  const graphEl = document.getElementById("graph");
  if (graphEl && window.cytoscape) {
    if (window.cytoscapeDagre) { try { cytoscape.use(cytoscapeDagre); } catch (err) { /* already registered */ } }
    const colour = { stale: "#c92a2a", suspect: "#d9822b", fresh: "#2b8a3e", "": "#c4cad4" };
    const edgeColour = { CALLS: "#3b5bdb", IMPORTS: "#0c8599", INHERITS: "#ae3ec9", CONTAINS: "#adb5bd" };
    const panel = document.getElementById("node");
    const info = document.getElementById("picture-info");
    let cy = null;

    function esc(s) { return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c])); }
    function showNode(d) {
      const notes = (d.notes || []).map((n) => `<li><span class="badge ${esc(n.state)}">${esc(n.state)}</span> <a href="/note/${esc(n.id)}">${esc(n.text.slice(0, 140))}</a></li>`).join("");
      panel.innerHTML = `<h3>${esc(d.ref || d.label)}</h3>
        <p class="muted">${esc(d.kind)}${d.lines ? " · lines " + esc(d.lines) : ""}${d.count ? " · " + d.count + " nodes" : ""}</p>
        ${d.path ? `<p><code>${esc(d.path)}</code></p>` : ""}
        ${d.signature ? `<p class="sig"><code>${esc(d.signature)}</code></p>` : ""}
        <h4>Notes</h4><ul class="related">${notes || '<li class="muted">none</li>'}</ul>`;
    }
    // Layered (dagre), grouped by directory, reads best as "who calls whom" while the picture is
    // small; a hub with dozens of callers would stack them into one long column, so a larger
    // picture is drawn as rings by distance from the note's code (the centre, one hop, two
    // hops). The choice can be changed on the page.
    function layoutOptions(elements) {
      const chosen = document.getElementById("layout").value;
      const nodes = elements.filter((e) => !e.data.source && e.data.kind !== "dir").length;
      const name = chosen !== "auto" ? chosen : (nodes <= 40 && window.cytoscapeDagre ? "dagre" : "concentric");
      if (name === "dagre") return { name, rankDir: "LR", nodeSep: 22, rankSep: 90, edgeSep: 8, animate: false, fit: true, padding: 24 };
      if (name === "concentric") return { name, concentric: (n) => 10 - (n.data("distance") || 0), levelWidth: () => 1, minNodeSpacing: 26, spacingFactor: 0.9, animate: false, fit: true, padding: 24 };
      return { name: "cose", animate: false, fit: true, padding: 24, randomize: true, componentSpacing: 60, nodeRepulsion: () => 9000, idealEdgeLength: () => 60, numIter: 600, nestingFactor: 1.1, gravity: 0.6 };
    }

    function draw() {
      const kinds = Array.from(document.querySelectorAll(".picture-tools input.kind:checked")).map((x) => x.value);
      const collapse = document.getElementById("collapse").checked ? "1" : "0";
      const started = performance.now();
      fetch(`/note/${graphEl.dataset.note}/graph.json?kinds=${kinds.join(",")}&collapse=${collapse}`, { credentials: "same-origin" })
        .then((r) => r.ok ? r.json() : r.text().then((t) => Promise.reject(new Error(t))))
        .then((data) => {
          if (cy) cy.destroy();
          const layout = layoutOptions(data.elements);
          // Rings by distance leave no room for directory boxes: the nodes are drawn ungrouped
          // (their directory is in the side panel; "collapse by directory" groups them instead).
          const elements = layout.name !== "concentric" ? data.elements : data.elements
            .filter((e) => e.data.kind !== "dir" || e.data.count)
            .map((e) => ({ ...e, data: { ...e.data, parent: undefined } }));
          cy = cytoscape({
            container: graphEl,
            elements: elements,
            style: [
              { selector: "node", style: {
                "label": "data(label)", "font-size": 10, "text-valign": "bottom", "text-margin-y": 3, "color": "#1d2330",
                "text-background-color": "#ffffff", "text-background-opacity": 0.75, "text-background-padding": 1,
                "background-color": (n) => colour[n.data("state") || ""], "width": 18, "height": 18,
                "border-width": 1, "border-color": "#ffffff" } },
              { selector: "node[kind = 'file']", style: { "shape": "round-rectangle", "width": 22, "height": 14 } },
              { selector: "node[kind = 'class'], node[kind = 'struct'], node[kind = 'interface']", style: { "shape": "diamond", "width": 20, "height": 20 } },
              { selector: "node.centre", style: { "width": 30, "height": 30, "border-width": 4, "border-color": "#2458d6", "font-weight": 700, "font-size": 12 } },
              { selector: ":parent", style: { "background-color": "#eef1f6", "background-opacity": 0.6, "border-color": "#d5dae3", "border-width": 1,
                "label": "data(label)", "text-valign": "top", "text-halign": "center", "font-size": 10, "color": "#69707d", "shape": "round-rectangle", "padding": 10 } },
              { selector: "node[kind = 'dir'][count]", style: { "shape": "round-rectangle", "width": 60, "height": 26, "text-valign": "center", "text-margin-y": 0, "font-size": 10 } },
              { selector: "edge", style: { "width": 1.3, "curve-style": "bezier", "target-arrow-shape": "triangle", "arrow-scale": 0.8,
                "line-color": (e) => edgeColour[e.data("kind")] || "#adb5bd", "target-arrow-color": (e) => edgeColour[e.data("kind")] || "#adb5bd" } },
              { selector: "edge[kind = 'CONTAINS']", style: { "line-style": "dashed", "target-arrow-shape": "none" } },
              { selector: "edge[count > 1]", style: { "width": (e) => Math.min(6, 1 + Math.log2(e.data("count"))), "label": "data(count)", "font-size": 9 } },
              { selector: ":selected", style: { "border-width": 3, "border-color": "#141a26" } },
            ],
            layout: layout,
          });
          cy.on("tap", "node", (ev) => showNode(ev.target.data()));
          window.graphmemPicture = cy;
          const nodes = cy.nodes().filter((n) => n.data("kind") !== "dir" || n.data("count")).length;
          const ms = Math.round(performance.now() - started);
          graphEl.dataset.rendered = String(nodes);
          graphEl.dataset.ms = String(ms);
          info.textContent = `${nodes} nodes${data.truncated ? " (cut at the node limit)" : ""} · drawn in ${ms} ms`;
        })
        .catch((err) => { info.textContent = ""; toast(err.message, true); });
    }
    document.querySelectorAll(".picture-tools input, .picture-tools select").forEach((x) => x.addEventListener("change", draw));
    draw();
  }
})();
