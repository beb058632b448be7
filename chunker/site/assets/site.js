/* The outline of the whole tree (from data/tree.js), drawn lazily: a node's children are
   made when it is first unfolded, in batches, so a tree of thousands of nodes paints at
   once. Keyboard: the outline is an ARIA tree (arrows, Home, End, Enter); on any page
   p / n / u go to the previous, next and parent node, / to the search box, o to the outline.
   A classic script (no module, no fetch): it works opened from file://. */
(function () {
  "use strict";
  var T = window.CHUNKER_TREE;
  var body = document.body;
  var base = body.getAttribute("data-root") || "";
  var at = body.getAttribute("data-node");
  var current = at === "" || at === null ? -1 : parseInt(at, 10);
  var PAGE = 1, LABEL = 2, SUM = 3, KIND = 4, PARENT = 6, KIDS = 7;
  var BATCH = 200;
  var rows = T ? T.nodes : [];
  var items = {};
  var outline = document.getElementById("outline");

  function href(i) { return base + "n/" + rows[i][PAGE]; }

  function makeItem(i) {
    var r = rows[i];
    var li = document.createElement("li");
    li.setAttribute("role", "treeitem");
    li.setAttribute("data-row", String(i));
    var line = document.createElement("div");
    line.className = "line";
    var tog = document.createElement("span");
    tog.className = r[KIDS].length ? "tog" : "tog leaf";
    line.appendChild(tog);
    if (r[KIDS].length) { li.setAttribute("aria-expanded", "false"); }
    var a = document.createElement("a");
    a.href = href(i);
    a.textContent = r[LABEL];
    a.tabIndex = -1;
    a.className = "k-" + r[KIND];
    if (i === current) { a.setAttribute("aria-current", "page"); }
    line.appendChild(a);
    var s = document.createElement("span");
    s.className = "sum";
    s.textContent = r[SUM];
    line.appendChild(s);
    li.appendChild(line);
    items[i] = li;
    return li;
  }

  function fill(ul, kids, from) {
    var frag = document.createDocumentFragment();
    var to = Math.min(kids.length, from + BATCH);
    for (var k = from; k < to; k++) { frag.appendChild(makeItem(kids[k])); }
    if (to < kids.length) {
      var more = document.createElement("li");
      more.className = "more";
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = "show " + Math.min(BATCH, kids.length - to) + " more of " + (kids.length - to);
      b.addEventListener("click", function () { ul.removeChild(more); fill(ul, kids, to); });
      more.appendChild(b);
      frag.appendChild(more);
    }
    ul.appendChild(frag);
  }

  function group(li) {
    for (var c = li.firstChild; c; c = c.nextSibling) { if (c.tagName === "UL") { return c; } }
    return null;
  }

  function expand(li) {
    var i = +li.getAttribute("data-row");
    if (!rows[i][KIDS].length) { return; }
    var ul = group(li);
    if (!ul) {
      ul = document.createElement("ul");
      ul.setAttribute("role", "group");
      li.appendChild(ul);
      fill(ul, rows[i][KIDS], 0);
    }
    ul.hidden = false;
    li.setAttribute("aria-expanded", "true");
  }

  function collapse(li) {
    var ul = group(li);
    if (ul) { ul.hidden = true; }
    if (li.hasAttribute("aria-expanded")) { li.setAttribute("aria-expanded", "false"); }
  }

  function reveal(i) {
    /* unfold the path from the root to row i, showing more batches where it is far down */
    var path = [];
    for (var p = rows[i][PARENT]; p >= 0; p = rows[p][PARENT]) { path.unshift(p); }
    path.push(i);
    for (var k = 0; k < path.length; k++) {
      var row = path[k];
      while (!items[row]) {
        var ul = group(items[path[k - 1]]);
        var more = ul && ul.lastChild && ul.lastChild.className === "more" ? ul.lastChild : null;
        if (!more) { return null; }
        more.firstChild.click();
      }
      if (k < path.length - 1) { expand(items[row]); }
    }
    return items[i];
  }

  function link(li) { return li.querySelector("a"); }

  function focus(li) {
    var old = outline.querySelector('a[tabindex="0"]');
    if (old) { old.tabIndex = -1; }
    var a = link(li);
    a.tabIndex = 0;
    a.focus();
  }

  function visible() {
    var all = outline.querySelectorAll('li[role="treeitem"]');
    var out = [];
    for (var k = 0; k < all.length; k++) { if (all[k].offsetParent !== null) { out.push(all[k]); } }
    return out;
  }

  function onKey(e) {
    var li = e.target.closest && e.target.closest('li[role="treeitem"]');
    if (!li) { return; }
    var list, pos;
    switch (e.key) {
      case "ArrowDown": case "ArrowUp":
        list = visible(); pos = list.indexOf(li);
        pos += e.key === "ArrowDown" ? 1 : -1;
        if (pos >= 0 && pos < list.length) { focus(list[pos]); }
        break;
      case "Home": list = visible(); focus(list[0]); break;
      case "End": list = visible(); focus(list[list.length - 1]); break;
      case "ArrowRight":
        if (li.getAttribute("aria-expanded") === "false") { expand(li); }
        else if (group(li) && group(li).firstChild) { focus(group(li).firstChild); }
        break;
      case "ArrowLeft":
        if (li.getAttribute("aria-expanded") === "true") { collapse(li); }
        else if (li.parentNode.closest('li[role="treeitem"]')) { focus(li.parentNode.closest('li[role="treeitem"]')); }
        break;
      default: return;
    }
    e.preventDefault();
  }

  function build() {
    if (!outline || !rows.length) { return; }
    var tree = document.createElement("ul");
    tree.setAttribute("role", "tree");
    tree.setAttribute("aria-label", "outline");
    tree.id = "tree";
    var top = makeItem(0);
    tree.appendChild(top);
    outline.appendChild(tree);
    expand(top);
    var here = current >= 0 ? reveal(current) : null;
    link(here || top).tabIndex = 0;
    if (here) {  /* scroll the outline only: scrollIntoView would scroll the page too */
      outline.scrollTop += here.getBoundingClientRect().top - outline.getBoundingClientRect().top - outline.clientHeight / 2;
    }
    tree.addEventListener("keydown", onKey);
    tree.addEventListener("click", function (e) {
      if (e.target.className === "tog") {
        var li = e.target.parentNode.parentNode;
        if (li.getAttribute("aria-expanded") === "true") { collapse(li); } else { expand(li); }
      }
    });
    window.CHUNKER_OUTLINE_MS = performance.now();
    body.setAttribute("data-outline", "ready");
    afterPaint("CHUNKER_OUTLINE_PAINT_MS");
  }

  /* when a frame has painted (a timer queued from the frame's callback runs after its paint):
     what bench/site.py reads as "first paint" of the outline and of the whole page */
  function afterPaint(name) {
    window.requestAnimationFrame(function () { setTimeout(function () { window[name] = performance.now(); }, 0); });
  }
  window.addEventListener("load", function () { afterPaint("CHUNKER_PAINTED_MS"); });

  function go(id) { var a = document.getElementById(id); if (a && a.href) { window.location.href = a.href; } }

  document.addEventListener("keydown", function (e) {
    var tag = (e.target.tagName || "").toLowerCase();
    if (e.ctrlKey || e.metaKey || e.altKey || tag === "input" || tag === "textarea") { return; }
    if (e.key === "n") { go("next"); }
    else if (e.key === "p") { go("prev"); }
    else if (e.key === "u") { go("up"); }
    else if (e.key === "/") { var q = document.getElementById("q"); if (q) { q.focus(); e.preventDefault(); } }
    else if (e.key === "o") { var a = outline && outline.querySelector('a[tabindex="0"]'); if (a) { a.focus(); e.preventDefault(); } }
  });

  /* the picture's colours: by level or by what happened (#outcome in the address) */
  var modes = document.querySelectorAll("button[data-mode]");
  function mode(name) {
    body.classList.toggle("by-outcome", name === "by-outcome");
    for (var k = 0; k < modes.length; k++) {
      modes[k].setAttribute("aria-pressed", String(modes[k].getAttribute("data-mode") === name));
    }
  }
  for (var k = 0; k < modes.length; k++) {
    modes[k].addEventListener("click", function (e) { mode(e.currentTarget.getAttribute("data-mode")); });
  }
  if (modes.length && window.location.hash === "#outcome") { mode("by-outcome"); }

  build();
})();
