// taldau report: sorts a table marked "sortable" when a heading is clicked (the page is whole without it).
// A cell's data-value, when present, is what it sorts by; headings say data-type="number" or "text".
(function () {
  "use strict";
  function key(cell, numeric) {
    var text = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (!numeric) return text.toLowerCase();
    var value = parseFloat(text);
    return isNaN(value) ? -Infinity : value;
  }
  function sort(table, column, numeric, heading) {
    var body = table.tBodies[0];
    var descending = heading.getAttribute("aria-sort") !== "descending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[column], numeric), y = key(b.cells[column], numeric);
      var order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    Array.prototype.forEach.call(heading.parentNode.cells, function (cell) { cell.removeAttribute("aria-sort"); });
    heading.setAttribute("aria-sort", descending ? "descending" : "ascending");
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (heading, column) {
      heading.tabIndex = 0;
      var run = function () { sort(table, column, heading.getAttribute("data-type") === "number", heading); };
      heading.addEventListener("click", run);
      heading.addEventListener("keydown", function (event) { if (event.key === "Enter") run(); });
    });
  });
})();
