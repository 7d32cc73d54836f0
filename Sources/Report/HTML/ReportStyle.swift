/// The page's constant parts: its style sheet, its legend and its script. Only system fonts; nothing
/// loaded from anywhere.
enum ReportStyle {
    static let css: StaticString = """
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:16px;color:#222;background:#fff}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #ddd}h3{font-size:15px;margin:14px 0 4px}
        .meta{color:#555;margin:0 0 8px}
        table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}th,td{border-bottom:1px solid #eee;padding:3px 8px;text-align:left;vertical-align:top}
        th{background:#f6f6f6}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
        svg{width:100%;height:auto;display:block;font-size:11px}
        svg text{fill:#333}.lane{fill:#888}.rule{stroke:#eee}
        .state rect{fill:#e8e8e8}.state-in rect,.state-live rect{fill:#cfe8cf}.state-post rect,.state-final rect{fill:#d6d6e8}.state-break rect,.state-halftime rect{fill:#f3e3bf}
        .score line{stroke:#555}.score text{font-weight:600}.price polyline{fill:none;stroke:#555;stroke-width:1.5}
        .change line{stroke:#aaa}.change-queued line{stroke:#555}.change-merged path{fill:#8e44ad}.change-merged text{fill:#8e44ad}
        .change-skipped path{stroke:#999;stroke-width:2;fill:none}.change .error{fill:#c0392b}
        .merge-link{stroke:#8e44ad;stroke-dasharray:3 2;stroke-width:1.2}.merge text{fill:#8e44ad}
        .push text,.hold text,.merge text,.score text{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
        td.key{white-space:nowrap}
        .hold rect{fill:#f5b041;fill-opacity:.35;stroke:#d68910;stroke-dasharray:4 2}.hold text{fill:#a04000;font-weight:600}
        rect.hold{fill:#f5b041;fill-opacity:.25}
        .push circle{stroke:#fff;stroke-width:1}.p10 circle{fill:#d7301f}.p5 circle{fill:#3182bd}
        .downgraded circle{stroke:#d7301f;stroke-width:2.5;stroke-dasharray:3 2}.downgraded text{fill:#d7301f;font-weight:600}
        g:hover>circle,g:hover>path,g:hover>rect{stroke:#000;stroke-width:2}
        .axis line{stroke:#999}.axis text{fill:#666}
        .budget .used{fill:none;stroke:#d7301f;stroke-width:2}.budget-line line{stroke:#555;stroke-dasharray:6 4}
        .send circle{fill:#d7301f}.refill path{fill:#27ae60}.downgrade path{stroke:#d7301f;stroke-width:2.5}
        .legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:#444;margin:4px 0}.legend svg{width:auto;height:14px;display:inline;vertical-align:middle}
        .strip{width:320px}td.strip svg{height:22px}
        .tables{display:flex;flex-wrap:wrap;gap:0 24px;align-items:flex-start}
        details{margin:4px 0 10px}summary{cursor:pointer;color:#555}
        td.content{font-family:ui-monospace,Menlo,monospace;font-size:12px;max-width:420px}
        .feed-errors{color:#c0392b;margin:4px 0 8px;padding-left:18px}
        .budget-line text{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
        text.presence{fill:#c0392b;font-size:10px;paint-order:stroke;stroke:#fff;stroke-width:3px}
        """

    static let legend: StaticString = """
        <div class="legend">\
        <span><svg viewBox="0 0 14 14"><circle cx="7" cy="7" r="6" fill="#d7301f"/></svg> push at priority 10</span>\
        <span><svg viewBox="0 0 14 14"><circle cx="7" cy="7" r="6" fill="#3182bd"/></svg> push at priority 5 (bigger: more relevant)</span>\
        <span><svg viewBox="0 0 14 14"><circle cx="7" cy="7" r="5" fill="#3182bd" stroke="#d7301f" stroke-width="2.5" stroke-dasharray="3 2"/></svg> downgraded to 5 (budget spent)</span>\
        <span><svg viewBox="0 0 20 14"><rect x="1" y="2" width="18" height="10" fill="#f5b041" fill-opacity=".35" stroke="#d68910" stroke-dasharray="4 2"/></svg> held for the budget</span>\
        <span><svg viewBox="0 0 14 14"><path d="M7 0 l7 7 l-7 7 l-7 -7 z" fill="#8e44ad"/></svg> merged into the waiting push</span>\
        <span><svg viewBox="0 0 14 14"><path d="M2 2 l10 10 m0 -10 l-10 10" stroke="#999" stroke-width="2"/></svg> change skipped (hover for why)</span>\
        <span><svg viewBox="0 0 14 14"><path d="M7 2 l-6 10 l12 0 z" fill="#27ae60"/></svg> a priority-10 push returns to the budget</span>\
        </div>
        """

    /// Counts the marks it finds and says so on the root element; any error lands in `data-errors`.
    static let script: StaticString = """
        (function () {
          var root = document.documentElement;
          function fail(message) {
            root.setAttribute("data-errors", (root.getAttribute("data-errors") || "") + message + ";");
          }
          window.addEventListener("error", function (event) { fail(String(event.message)); });
          try {
            root.setAttribute("data-pushes", String(document.querySelectorAll("svg.timeline g.push").length));
            root.setAttribute("data-holds", String(document.querySelectorAll("svg.timeline g.hold").length));
            var states = 0;
            document.querySelectorAll("table.pushes td.content").forEach(function (cell) {
              if (cell.getAttribute("title")) { if (cell.textContent.length > 0) { states += 1; } }
            });
            root.setAttribute("data-states", String(states));
            root.setAttribute("data-feed-errors", String(document.querySelectorAll("ul.feed-errors li").length));
            root.setAttribute("data-rendered", "ok");
          } catch (error) {
            fail(String(error));
          }
        })();
        """
}
