/// The dashboard's stylesheet.
enum DashboardStyle {
    static let css = #"""
    :root { --fg: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --bg: #f5f5f7; --card: #fff; --ok: #1a7f37; --bad: #c9372c; --accent: #0071e3; }
    * { box-sizing: border-box; }
    [hidden] { display: none !important; }
    body { margin: 0; font: 14px/1.4 -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
    header { display: flex; gap: 16px; align-items: center; padding: 10px 16px; background: var(--card); border-bottom: 1px solid var(--line); flex-wrap: wrap; }
    h1 { font-size: 17px; margin: 0; }
    nav { display: flex; gap: 4px; }
    .controls { margin-left: auto; display: flex; gap: 8px; align-items: center; }
    button { font: inherit; border: 1px solid var(--line); background: var(--card); border-radius: 6px; padding: 3px 9px; cursor: pointer; }
    button:hover { border-color: var(--accent); }
    .tab.active { background: var(--accent); color: #fff; border-color: var(--accent); }
    #status { margin: 6px 16px; color: var(--bad); min-height: 1em; }
    main { padding: 0 16px 24px; }
    .empty { color: var(--muted); }
    #devices { display: flex; flex-wrap: wrap; gap: 14px; }
    .device { background: var(--card); border: 1px solid var(--line); border-radius: 18px; padding: 12px; width: 360px; }
    .device h2 { font-size: 15px; margin: 0 0 4px; display: flex; justify-content: space-between; align-items: center; }
    .offline { color: var(--bad); } .online { color: var(--ok); }
    .app { border-top: 1px solid var(--line); margin-top: 8px; padding-top: 8px; }
    .app h3 { font-size: 14px; margin: 0; }
    .facts { color: var(--muted); font-size: 12px; word-break: break-all; }
    .badge { display: inline-block; min-width: 18px; padding: 0 5px; border-radius: 9px; background: var(--bad); color: #fff; text-align: center; font-size: 12px; }
    .actions { margin: 6px 0; display: flex; gap: 4px; flex-wrap: wrap; }
    .group { background: var(--bg); border-radius: 12px; padding: 6px; margin: 6px 0; }
    .group .summary { font-size: 12px; color: var(--muted); }
    .notification { background: var(--card); border-radius: 10px; padding: 6px 8px; margin: 4px 0; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
    .notification .title { font-weight: 600; } .notification .subtitle { font-weight: 500; }
    .thumbnail { max-width: 96px; max-height: 96px; border-radius: 6px; margin: 4px 4px 0 0; vertical-align: top; }
    .mark { font-size: 11px; border-radius: 4px; padding: 0 4px; margin-left: 4px; background: #fff3cd; }
    .notification img { max-width: 64px; max-height: 64px; float: right; border-radius: 6px; }
    .timeline { font-size: 12px; color: var(--muted); max-height: 140px; overflow: auto; margin: 4px 0 0; padding-left: 16px; }
    table { width: 100%; border-collapse: collapse; background: var(--card); font-size: 12px; }
    th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); white-space: nowrap; }
    tbody tr { cursor: pointer; } tbody tr:hover { background: #eef4ff; }
    tr.refused td.status { color: var(--bad); } tr.accepted td.status { color: var(--ok); }
    #journal-filters { display: flex; gap: 6px; margin: 8px 0; }
    #journal-detail { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px; margin-top: 8px; }
    pre { white-space: pre-wrap; word-break: break-all; font-size: 12px; }
    #compose-form { display: grid; grid-template-columns: repeat(3, minmax(180px, 1fr)); gap: 8px; background: var(--card); padding: 12px; border-radius: 8px; }
    #compose-form label { display: flex; flex-direction: column; gap: 2px; } #compose-form .wide { grid-column: 1 / -1; }
    textarea { font: 12px ui-monospace, Menlo, monospace; }
    .charts { display: flex; gap: 16px; flex-wrap: wrap; margin: 8px 0; }
    figure { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 6px 8px; }
    figcaption { font-size: 12px; color: var(--muted); }
    svg { width: 300px; height: 60px; } polyline { fill: none; stroke: var(--accent); stroke-width: 1.5; }
    polyline.second { stroke: var(--bad); }
    #fault-form, #shaping-form { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
    """#
}
