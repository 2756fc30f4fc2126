/**
 * The HTML report's one style sheet, inlined in a `<style>` element that the page's
 * Content-Security-Policy allows by its hash. No web font (the system's sans-serif and monospace),
 * no `url()`, no style attributes anywhere in the page. Light and dark, as the reader's system is.
 */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #fff; --panel: #f6f8fa; --line: #d1d9e0; --red: #d62728; --hit: #fff4c2; --site: #ddf4ff; --rule: #eef1f4; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --line: #3d444d; --red: #ff6b6b; --hit: #4d3d00; --site: #0c2d48; --rule: #262c36; --accent: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 16px 24px 8px; border-bottom: 1px solid var(--line); }
h1 { font-size: 20px; margin: 0 0 4px; }
h1.deadlock, h1.hang { color: var(--red); }
h2 { font-size: 16px; margin: 20px 0 8px; }
h3 { font-size: 14px; margin: 14px 0 4px; }
.sub, .legend, .rules, .count, #p-state { color: var(--muted); }
.count { font-weight: normal; font-size: 13px; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) minmax(320px, 40%); gap: 0 24px; padding: 0 24px 24px; }
@media (max-width: 900px) { .layout { grid-template-columns: minmax(0, 1fr); } }
main { min-width: 0; }
aside#panel { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow: auto; padding: 8px 12px 16px; background: var(--panel); border-left: 1px solid var(--line); }
code, pre, .st { font: 12px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
code { background: var(--panel); padding: 0 3px; border-radius: 3px; overflow-wrap: anywhere; }
table.rows { border-collapse: collapse; width: 100%; margin: 8px 0; }
table.rows th, table.rows td { border: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; }
table.rows tr.cycle td:first-child { border-left: 3px solid var(--red); }
.ev { display: inline-block; padding: 0 5px; border-radius: 8px; font-size: 12px; border: 1px solid var(--line); }
.ev.inferred { border-style: dashed; }
.ev.proven { border-style: solid; font-weight: 600; }
button.t, button.link { font: inherit; color: var(--accent); background: none; border: 0; padding: 0; cursor: pointer; text-decoration: underline dotted; }
button.t.sel { font-weight: 700; text-decoration: underline solid; }
.svg { overflow: auto; border: 1px solid var(--line); background: #fff; max-height: 70vh; }
.svg svg { display: block; max-width: 100%; height: auto; }
#graph-svg g.node { cursor: pointer; }
#graph-svg g.node:hover ellipse, #graph-svg g.node:hover polygon, #graph-svg g.node.sel ellipse, #graph-svg g.node.sel polygon { stroke-width: 3; stroke: var(--accent); }
#graph-svg g.node:focus { outline: 2px solid var(--accent); }
.search input { font: inherit; padding: 3px 6px; min-width: 260px; }
details.g { border: 1px solid var(--line); border-radius: 4px; margin: 4px 0; }
details.g > summary { cursor: pointer; padding: 4px 8px; overflow-wrap: anywhere; }
details.g[open] > summary { border-bottom: 1px solid var(--line); }
.members { padding: 4px 8px; }
.members button.t { margin-right: 4px; }
pre.st { margin: 0; padding: 6px 8px; overflow: auto; white-space: pre; }
.st b { font-weight: 600; }
.st b.m { background: var(--hit); outline: 1px solid var(--red); }
mark { background: var(--hit); color: inherit; }
#p-stack { overflow: auto; white-space: pre; border: 1px solid var(--line); background: var(--bg); }
#p-stack .ln { padding: 0 6px; }
#p-stack .ln.hit { background: var(--rule); }
#p-stack .ln.site { background: var(--site); }
#p-stack .ln.verdict { background: var(--hit); box-shadow: inset 3px 0 var(--red); }
#p-notes { padding-left: 18px; margin: 6px 0; }
#p-notes li.verdict { font-weight: 600; }
.notes li, .fix { overflow-wrap: anywhere; }
`;
