// Sortable tables: a click anywhere in a column's header cell sorts by it (numbers high first,
// text A-Z first, its ASCII letters case folded), a second click reverses. The header's text
// moves into a button, so the keyboard sorts too (Tab to it, Enter or Space); its click reaches
// the cell like any other.
// Cells sort by their data-value when they have one, else their text; empty values stay last.
// Each cell's key is read once per sort (numbers parsed once, not in every comparison) and the
// rows go back in one move, so a thousand rows sort in a few milliseconds.
// A filter box (.filter, for the table its data-table names) keeps the rows whose run and system
// names (the td.run cells) hold every word typed; Escape clears it.
// Without JavaScript the tables keep the order the report chose, every row shown.
(function () {
  "use strict";
  function valueOf(cell) {
    var value = cell.getAttribute("data-value");
    return value === null ? cell.textContent.trim() : value;
  }
  function sort(table, header, column) {
    var numeric = header.getAttribute("data-type") === "number";
    var current = header.getAttribute("aria-sort");
    var descending = current ? current === "ascending" : numeric;
    Array.prototype.forEach.call(header.parentNode.cells, function (cell) { cell.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (row, index) {
      var value = valueOf(row.cells[column]);
      // text with its ASCII letters case folded, as irw serve sorts names (bm25_march beside BM25)
      var key = numeric ? parseFloat(value) : value.replace(/[A-Z]/g, function (c) { return c.toLowerCase(); });
      return { row: row, index: index, empty: value === "", key: key };
    });
    rows.sort(function (a, b) {
      if (a.empty || b.empty) {
        return (a.empty - b.empty) || a.index - b.index;
      }
      var order = numeric ? a.key - b.key : (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
      return (descending ? -order : order) || a.index - b.index;
    });
    var moved = document.createDocumentFragment();
    rows.forEach(function (entry) { moved.appendChild(entry.row); });
    body.appendChild(moved);
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    var headers = table.tHead.rows[table.tHead.rows.length - 1].cells;
    Array.prototype.forEach.call(headers, function (header, column) {
      if (header.classList.contains("nosort")) { return; }  // a column of tick boxes: nothing to order
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (header.firstChild) { button.appendChild(header.firstChild); }
      header.appendChild(button);
      header.classList.add("sorts");
      header.addEventListener("click", function () { sort(table, header, column); });
    });
  });
  // A long table (GRID_ROWS rows or more) is laid out as a grid once the browser has laid it out
  // as a table: each column keeps the width the table gave it, and each row is laid out on its
  // own and only while on screen (content-visibility), so a sort or a filter lays out the rows in
  // view instead of every row of the table (a thousand rows: ~10 ms instead of ~100 ms). The
  // widths are measured again, as a table, when the window changes size. ARIA roles keep it a
  // table for assistive technology.
  var GRID_ROWS = 200;
  function gridRows(table) {
    var body = table.tBodies[0];
    if (!table.tHead || body.rows.length < GRID_ROWS) { return; }
    var header = table.tHead.rows[table.tHead.rows.length - 1];
    table.setAttribute("role", "table");
    Array.prototype.forEach.call(table.querySelectorAll("thead, tbody"), function (group) {
      group.setAttribute("role", "rowgroup");
    });
    Array.prototype.forEach.call(table.rows, function (row) {
      row.setAttribute("role", "row");
      Array.prototype.forEach.call(row.cells, function (cell) {
        cell.setAttribute("role", cell.tagName === "TH" ? "columnheader" : "cell");
      });
    });
    function measure() {
      table.classList.remove("grid-rows");
      var widths = Array.prototype.map.call(header.cells, function (cell) {
        return cell.getBoundingClientRect().width.toFixed(2) + "px";
      });
      table.style.setProperty("--grid-columns", widths.join(" "));
      table.classList.add("grid-rows");
    }
    measure();
    var pending = null;
    window.addEventListener("resize", function () {
      if (pending !== null) { window.cancelAnimationFrame(pending); }
      pending = window.requestAnimationFrame(function () { pending = null; measure(); });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), gridRows);
  function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  Array.prototype.forEach.call(document.querySelectorAll(".filter[data-table]"), function (box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    var input = box.querySelector("input");
    var count = box.querySelector(".filter-count");
    if (!table || !table.tBodies.length || !input) { return; }
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var keys = null;
    function nameOf(row) {
      return Array.prototype.map.call(row.querySelectorAll("td.run"), valueOf).join(" ").toLowerCase();
    }
    function apply() {
      keys = keys || rows.map(nameOf);
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      rows.forEach(function (row, i) {
        var match = words.every(function (word) { return keys[i].indexOf(word) !== -1; });
        row.hidden = !match;
        shown += match ? 1 : 0;
      });
      var noun = rows.length === 1 ? " run" : " runs";
      count.textContent = words.length ? thousands(shown) + " of " + thousands(rows.length) + noun + " shown"
        : thousands(rows.length) + noun;
    }
    input.addEventListener("input", apply);
    input.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && input.value) {
        input.value = "";
        apply();
        event.preventDefault();
      }
    });
    box.hidden = false;
  });
  // a table that scrolls sideways can be scrolled from the keyboard too (Tab to it, arrow keys)
  function focusable() {
    Array.prototype.forEach.call(document.querySelectorAll(".table-wrap"), function (wrap) {
      if (wrap.scrollWidth > wrap.clientWidth) {
        wrap.setAttribute("tabindex", "0");
      } else {
        wrap.removeAttribute("tabindex");
      }
    });
  }
  focusable();
  window.addEventListener("resize", focusable);
}());
