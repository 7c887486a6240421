// coreml-lint report: filters, zoom and pan of the overviews, links to the overview boxes.
(function () {
  "use strict";
  var groups = Array.prototype.slice.call(document.querySelectorAll(".filter-group"));
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
    document.querySelectorAll("article.finding").forEach(function (a) {
      var on = sev[a.dataset.severity] && rule[a.dataset.rule] && model[a.dataset.model];
      a.classList.toggle("hidden", !on);
      all += 1;
      if (on) shown += 1;
    });
    document.querySelectorAll("article.overview, tr.model-row").forEach(function (a) {
      a.classList.toggle("hidden", !model[a.dataset.model]);
    });
    var p = document.getElementById("shown");
    if (p) p.textContent = shown + " of " + all + " findings shown";
  }
  groups.forEach(function (g) { g.addEventListener("change", applyFilters); });
  applyFilters();

  function box(svg) {
    var v = svg.getAttribute("viewBox").split(" ").map(Number);
    return { x: v[0], y: v[1], w: v[2], h: v[3] };
  }
  function setBox(svg, b) { svg.setAttribute("viewBox", [b.x, b.y, b.w, b.h].join(" ")); }
  document.querySelectorAll(".zoom svg").forEach(function (svg) {
    var home = svg.getAttribute("viewBox");
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    var drag = null;
    svg.addEventListener("wheel", function (e) {
      e.preventDefault();
      var b = box(svg), r = svg.getBoundingClientRect();
      var k = e.deltaY < 0 ? 0.8 : 1.25;
      var px = b.x + (e.clientX - r.left) / r.width * b.w, py = b.y + (e.clientY - r.top) / r.height * b.h;
      setBox(svg, { x: px - (px - b.x) * k, y: py - (py - b.y) * k, w: b.w * k, h: b.h * k });
    }, { passive: false });
    svg.addEventListener("mousedown", function (e) { drag = { x: e.clientX, y: e.clientY, b: box(svg) }; });
    window.addEventListener("mouseup", function () { drag = null; });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      var r = svg.getBoundingClientRect(), b = drag.b;
      var s = Math.max(b.w / r.width, b.h / r.height);
      setBox(svg, { x: b.x - (e.clientX - drag.x) * s, y: b.y - (e.clientY - drag.y) * s, w: b.w, h: b.h });
    });
    svg.addEventListener("dblclick", function () { svg.setAttribute("viewBox", home); });
  });

  // A finding's link: centre its box in the overview and mark it.
  document.querySelectorAll("a.to-overview").forEach(function (a) {
    a.addEventListener("click", function (e) {
      var target = a.dataset.box && document.getElementById(a.dataset.box);
      var section = document.getElementById(a.getAttribute("href").slice(1) + "-section");
      if (!section) return;
      e.preventDefault();
      document.querySelectorAll(".node.target").forEach(function (n) { n.classList.remove("target"); });
      if (target) {
        target.classList.add("target");
        var svg = target.ownerSVGElement, r = target.getBBox(), b = box(svg);
        var w = Math.max(r.width * 6, Math.min(b.w, 900)), h = w * 0.6;
        setBox(svg, { x: r.x + r.width / 2 - w / 2, y: r.y + r.height / 2 - h / 2, w: w, h: h });
      }
      section.scrollIntoView();
    });
  });
})();
