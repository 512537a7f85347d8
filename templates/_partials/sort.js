// Sortable tables: a click anywhere in a column's header cell sorts by it (numbers high first,
// text A-Z first), a second click reverses. The header's text moves into a button, so the
// keyboard sorts too (Tab to it, Enter or Space); its click reaches the cell like any other.
// Cells sort by their data-value when they have one, else their text;
// empty values stay last. Without JavaScript the tables keep the order the report chose.
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
      return { row: row, index: index, value: valueOf(row.cells[column]) };
    });
    rows.sort(function (a, b) {
      if (a.value === "" || b.value === "") {
        return (a.value === "") - (b.value === "") || a.index - b.index;
      }
      var order = numeric ? parseFloat(a.value) - parseFloat(b.value) : (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
      return (descending ? -order : order) || a.index - b.index;
    });
    rows.forEach(function (entry) { body.appendChild(entry.row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    var headers = table.tHead.rows[table.tHead.rows.length - 1].cells;
    Array.prototype.forEach.call(headers, function (header, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (header.firstChild) { button.appendChild(header.firstChild); }
      header.appendChild(button);
      header.classList.add("sorts");
      header.addEventListener("click", function () { sort(table, header, column); });
    });
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
