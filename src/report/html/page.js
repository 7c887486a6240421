// coreml-lint report: filters, zoom and pan of the pictures, links to the overview boxes. The
// page writes this function's call with the report's element: everything stays inside it (a
// notebook shows several reports in one page).
(function (root) {
  "use strict";
  if (!root) return;
  var groups = Array.prototype.slice.call(root.querySelectorAll(".filter-group"));
  function enabled(dim) {
    var set = {};
    groups.forEach(function (g) {
      if (g.dataset.dim !== dim) return;
      g.querySelectorAll("input").forEach(function (i) { if (i.checked) set[i.value] = true; });
    });
    return set;
  }
  function applyFilters() {
    var sev = enabled("severity"), rule = enabled("rule"), model = enabled("model");
    var shown = 0, all = 0;
    root.querySelectorAll("article.finding").forEach(function (a) {
      var on = sev[a.dataset.severity] && rule[a.dataset.rule] && model[a.dataset.model];
      a.classList.toggle("hidden", !on);
      all += 1;
      if (on) shown += 1;
    });
    root.querySelectorAll("article.overview, tr.model-row").forEach(function (a) {
      a.classList.toggle("hidden", !model[a.dataset.model]);
    });
    var p = root.querySelector(".shown");
    if (p) p.textContent = shown + " of " + all + " findings shown";
  }
  if (groups.length) {
    groups.forEach(function (g) { g.addEventListener("change", applyFilters); });
    applyFilters();
  }

  // A picture several findings draw is stored once; each finding's `<use>` of it becomes a copy
  // (the page's stylesheet does not reach into a `<use>`'s shadow tree).
  root.querySelectorAll(".picture svg use").forEach(function (u) {
    var stored = document.getElementById(u.getAttribute("href").slice(1));
    if (!stored) return;
    var copy = document.createElementNS("http://www.w3.org/2000/svg", "g");
    copy.innerHTML = stored.innerHTML;
    u.parentNode.replaceChild(copy, u);
  });

  function box(svg) {
    var v = svg.getAttribute("viewBox").split(" ").map(Number);
    return { x: v[0], y: v[1], w: v[2], h: v[3] };
  }
  function setBox(svg, b) { svg.setAttribute("viewBox", [b.x, b.y, b.w, b.h].join(" ")); }
  function zoomAt(svg, k, fx, fy) {
    var b = box(svg);
    var px = b.x + fx * b.w, py = b.y + fy * b.h;
    setBox(svg, { x: px - (px - b.x) * k, y: py - (py - b.y) * k, w: b.w * k, h: b.h * k });
  }
  // Overviews zoom on every wheel turn; a finding's picture only with Ctrl/⌘ held (the page
  // scrolls past it otherwise) or through its buttons.
  function zoomable(svg, needsKey) {
    var home = svg.getAttribute("viewBox");
    var drag = null;
    svg.addEventListener("wheel", function (e) {
      if (needsKey && !e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      var r = svg.getBoundingClientRect();
      zoomAt(svg, e.deltaY < 0 ? 0.8 : 1.25, (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height);
    }, { passive: false });
    svg.addEventListener("mousedown", function (e) { e.preventDefault(); drag = { x: e.clientX, y: e.clientY, b: box(svg) }; });
    window.addEventListener("mouseup", function () { drag = null; });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      var r = svg.getBoundingClientRect(), b = drag.b;
      var s = Math.max(b.w / r.width, b.h / r.height);
      setBox(svg, { x: b.x - (e.clientX - drag.x) * s, y: b.y - (e.clientY - drag.y) * s, w: b.w, h: b.h });
    });
    svg.addEventListener("dblclick", function () { svg.setAttribute("viewBox", home); });
    return home;
  }
  root.querySelectorAll(".zoom svg").forEach(function (svg) { zoomable(svg, false); });
  root.querySelectorAll(".picture svg").forEach(function (svg) {
    var home = zoomable(svg, true);
    var whole = svg.dataset.whole;
    var tools = document.createElement("div");
    tools.className = "tools";
    [["+", "zoom in", function () { zoomAt(svg, 0.8, 0.5, 0.5); }],
     ["−", "zoom out", function () { zoomAt(svg, 1.25, 0.5, 0.5); }],
     ["whole", "the whole region", function () { if (whole) svg.setAttribute("viewBox", whole); }],
     ["reset", "the first view", function () { svg.setAttribute("viewBox", home); }]
    ].forEach(function (t) {
      if (t[0] === "whole" && (!whole || whole === home)) return;
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = t[0];
      b.title = t[1];
      b.addEventListener("click", t[2]);
      tools.appendChild(b);
    });
    svg.parentNode.appendChild(tools);
  });

  // A box's text as its tooltip, made when the pointer first reaches it (legible when the
  // picture is zoomed out).
  root.addEventListener("mouseover", function (e) {
    var n = e.target.closest && e.target.closest("svg.graph .node");
    if (!n || n.querySelector("title")) return;
    var lines = [];
    n.querySelectorAll("text:not(.badge-text)").forEach(function (t) {
      var spans = t.querySelectorAll("tspan");
      if (!spans.length) lines.push(t.textContent);
      spans.forEach(function (s) { lines.push(s.textContent); });
    });
    var title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = lines.join(" · ");
    n.insertBefore(title, n.firstChild);
  });

  // A finding's link: centre its box in the overview and mark it.
  root.querySelectorAll("a.to-overview").forEach(function (a) {
    a.addEventListener("click", function (e) {
      var target = a.dataset.box && document.getElementById(a.dataset.box);
      var section = document.getElementById(a.getAttribute("href").slice(1) + "-section");
      if (!section) return;
      e.preventDefault();
      root.querySelectorAll(".node.target, .ly.target").forEach(function (n) { n.classList.remove("target"); });
      if (target && target.tagName === "DETAILS") {
        // A row of a layered overview: open it and the rows around it.
        target.classList.add("target");
        for (var d = target; d && d !== section; d = d.parentNode) {
          if (d.tagName === "DETAILS") d.open = true;
        }
        target.scrollIntoView({ block: "center" });
        return;
      }
      if (target) {
        target.classList.add("target");
        var svg = target.ownerSVGElement, r = target.getBBox(), b = box(svg);
        var w = Math.max(r.width * 6, Math.min(b.w, 900)), h = w * 0.6;
        setBox(svg, { x: r.x + r.width / 2 - w / 2, y: r.y + r.height / 2 - h / 2, w: w, h: h });
      }
      section.scrollIntoView();
    });
  });
})
