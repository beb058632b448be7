/* Search over the whole tree, in the page: data/search.js holds an inverted index built at
   export (term -> [row, weighted count, ...], each row's length), scored here with BM25.
   Every word of the query must match (a word of three letters or more also matches as the
   start of a longer one, at half weight). search.html?q=WORDS opens with WORDS' results. */
(function () {
  "use strict";
  var S = window.CHUNKER_SEARCH, T = window.CHUNKER_TREE;
  var PAGE = 1, LABEL = 2, SUM = 3, KIND = 4, PARENT = 6;
  var K1 = 1.2, B = 0.75, LIMIT = 50, PREFIX_WEIGHT = 0.5, WHERE_CHARS = 48;
  var stop = {};
  (S.stop || []).forEach(function (w) { stop[w] = true; });
  var keys = null;

  function tokens(text) {
    var words = (text || "").normalize("NFC").toLowerCase().match(/[\p{L}\p{N}]+/gu) || [];
    return words.filter(function (w) { return (w.length > 1 || /^\p{N}$/u.test(w)) && !stop[w]; });
  }

  function matches(word) {
    var found = [];
    if (S.terms[word]) { found.push([S.terms[word], 1]); }
    if (word.length >= 3) {
      keys = keys || Object.keys(S.terms);
      for (var k = 0; k < keys.length; k++) {
        if (keys[k] !== word && keys[k].lastIndexOf(word, 0) === 0) { found.push([S.terms[keys[k]], PREFIX_WEIGHT]); }
      }
    }
    return found;
  }

  function search(q) {
    var words = tokens(q).filter(function (w, i, all) { return all.indexOf(w) === i; });
    var score = new Float64Array(S.n), hits = new Uint16Array(S.n);
    words.forEach(function (w) {
      var seen = new Uint8Array(S.n);
      matches(w).forEach(function (m) {
        var p = m[0], df = p.length / 2;
        var idf = Math.log(1 + (S.n - df + 0.5) / (df + 0.5));
        for (var j = 0; j < p.length; j += 2) {
          var d = p[j], tf = p[j + 1];
          score[d] += m[1] * idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * S.len[d] / S.avg));
          if (!seen[d]) { seen[d] = 1; hits[d] += 1; }
        }
      });
    });
    var out = [];
    for (var d = 0; d < S.n; d++) { if (words.length && hits[d] === words.length) { out.push(d); } }
    out.sort(function (a, b) { return score[b] - score[a]; });
    return {words: words, rows: out};
  }

  function short(text) { return text.length > WHERE_CHARS ? text.slice(0, WHERE_CHARS - 1) + "\u2026" : text; }

  function where(i) {
    /* the nearest document and folder above a result (not the root): which file it is in */
    var names = [];
    for (var p = T.nodes[i][PARENT]; p > 0 && names.length < 2; p = T.nodes[p][PARENT]) {
      if (T.nodes[p][KIND] === "document" || T.nodes[p][KIND] === "folder") { names.unshift(short(T.nodes[p][LABEL])); }
    }
    return names.join(" \u203a ");
  }

  function marked(text, words) {
    /* the summary with the query's words in <mark>, built as nodes: no HTML from the data */
    var span = document.createElement("span");
    var parts = text.split(/([\p{L}\p{N}]+)/u);
    parts.forEach(function (part) {
      var low = part.toLowerCase();
      if (words.some(function (w) { return low.lastIndexOf(w, 0) === 0; })) {
        var m = document.createElement("mark"); m.textContent = part; span.appendChild(m);
      } else { span.appendChild(document.createTextNode(part)); }
    });
    return span;
  }

  function show(q) {
    var status = document.getElementById("status"), list = document.getElementById("results");
    list.textContent = "";
    if (!q.trim()) { status.textContent = "Type words in the box above."; return; }
    var r = search(q);
    if (!r.words.length) { status.textContent = "No words to look for in \u201c" + q + "\u201d."; return; }
    status.textContent = r.rows.length + (r.rows.length === 1 ? " node" : " nodes") + " for \u201c" + r.words.join(" ") + "\u201d" +
      (r.rows.length > LIMIT ? " (the first " + LIMIT + " shown)" : "") + ".";
    r.rows.slice(0, LIMIT).forEach(function (i) {
      var row = T.nodes[i], li = document.createElement("li"), a = document.createElement("a");
      a.href = "n/" + row[PAGE];
      a.textContent = row[LABEL];
      a.className = "k-" + row[KIND];
      li.appendChild(a);
      var meta = document.createElement("span");
      meta.className = "meta";
      var w = where(i);
      meta.textContent = " " + row[KIND] + (w ? " in " + w : "");
      li.appendChild(meta);
      li.appendChild(document.createElement("br"));
      var sum = marked(row[SUM], r.words);
      sum.className = "sum";
      li.appendChild(sum);
      list.appendChild(li);
    });
  }

  var box = document.getElementById("q");
  var q = new URLSearchParams(window.location.search).get("q") || "";
  box.value = q;
  show(q);
  var timer = null;
  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { show(box.value); }, 120);
  });
})();
