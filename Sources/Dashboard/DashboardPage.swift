/// The dashboard's page: a shell the script fills from the control API (nothing here depends on state).
enum DashboardPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>APNs Emulator</title>
    <link rel="stylesheet" href="/_emulator/dashboard/style.css">
    </head>
    <body>
    <header>
      <h1>APNs Emulator</h1>
      <nav>
        <button data-tab="devices" class="tab active">Devices</button>
        <button data-tab="journal" class="tab">Journal</button>
        <button data-tab="compose" class="tab">Compose</button>
        <button data-tab="front-doors" class="tab">Front doors</button>
        <button data-tab="controls" class="tab">Controls</button>
        <button data-tab="runs" class="tab">Scenario runs</button>
      </nav>
      <div class="controls">
        <span id="clock" title="The emulator's clock"></span>
        <button id="advance" hidden>Advance 1 min</button>
        <button id="reset" title="POST /_emulator/reset: forget keys, tokens, devices, journal">Reset</button>
        <input id="token" type="password" placeholder="control token (off loopback)" autocomplete="off">
      </div>
    </header>
    <p id="status" role="status"></p>
    <main>
      <section id="devices" class="panel"><p class="empty">No virtual devices yet: create one with
        <code>POST /_emulator/devices</code> or a scenario.</p></section>
      <section id="journal" class="panel" hidden>
        <form id="journal-filters">
          <input id="filter-topic" placeholder="topic">
          <input id="filter-token" placeholder="token">
          <input id="filter-status" placeholder="status" size="5">
          <input id="filter-reason" placeholder="reason">
          <input id="filter-apns-id" placeholder="apns-id">
          <select id="filter-environment"><option value="">any environment</option><option>production</option><option>sandbox</option></select>
        </form>
        <table>
          <thead><tr><th>time</th><th>env</th><th>status</th><th>reason</th><th>push type</th><th>topic</th><th>token</th><th>apns-id</th></tr></thead>
          <tbody id="journal-rows"></tbody>
        </table>
        <div id="journal-detail" hidden></div>
      </section>
      <section id="compose" class="panel" hidden>
        <form id="compose-form">
          <label>To <select id="compose-target"></select></label>
          <label>Push type <select id="compose-push-type">
            <option>alert</option><option>background</option><option>voip</option><option>location</option>
            <option>complication</option><option>fileprovider</option><option>mdm</option><option>liveactivity</option>
            <option>pushtotalk</option><option>widgets</option><option>controls</option></select></label>
          <label>Priority <select id="compose-priority"><option>10</option><option>5</option><option>1</option></select></label>
          <label>Collapse id <input id="compose-collapse-id"></label>
          <label>Expiration (s from now; 0: now or never; empty: none) <input id="compose-expiration" size="8"></label>
          <label class="wide">Payload <textarea id="compose-payload" rows="8">{"aps": {"alert": {"title": "Hello", "body": "from the dashboard"}, "sound": "default"}}</textarea></label>
          <button id="compose-send" type="submit">Send through the APNs listener</button>
        </form>
        <pre id="compose-result"></pre>
      </section>
      <section id="front-doors" class="panel" hidden>
        <p class="empty" id="front-doors-off" hidden>The front doors are off (serve --no-front-doors).</p>
        <table>
          <thead><tr><th>time</th><th>api</th><th>project / app</th><th>target</th><th>status</th><th>APNs</th><th>error</th><th>notes</th></tr></thead>
          <tbody id="front-door-rows"></tbody>
        </table>
        <div id="front-door-detail" hidden></div>
      </section>
      <section id="controls" class="panel" hidden>
        <div class="charts">
          <figure><figcaption>accepted / s <b id="rate-accepted"></b></figcaption><svg id="chart-accepted" viewBox="0 0 300 60"></svg></figure>
          <figure><figcaption>rejected / s <b id="rate-rejected"></b></figcaption><svg id="chart-rejected" viewBox="0 0 300 60"></svg></figure>
          <figure><figcaption>answer time p50 / p99 (ms) <b id="latency"></b></figcaption><svg id="chart-latency" viewBox="0 0 300 60"></svg></figure>
        </div>
        <h3>Faults</h3>
        <form id="fault-form">
          <label>Refuse with <input id="fault-reason" placeholder="ServiceUnavailable"></label>
          <label>for the next <input id="fault-count" size="4" value="1"> pushes</label>
          <button id="fault-add" type="submit">Inject</button>
          <button id="faults-clear" type="button">Clear all faults</button>
        </form>
        <ul id="faults"></ul>
        <h3>Shaping</h3>
        <form id="shaping-form">
          <label>Latency (ms, 0: none) <input id="shaping-latency" size="6"></label>
          <label>Brownout share (0–1) <input id="shaping-brownout" size="6"></label>
          <button id="shaping-apply" type="submit">Apply</button>
          <button id="shaping-off" type="button">All off</button>
        </form>
        <pre id="shaping"></pre>
        <h3>State</h3>
        <button id="export" type="button">Export state</button> <span id="export-result"></span>
      </section>
      <section id="runs" class="panel" hidden>
        <p class="empty">Runs of <code>apns-emulator test --emulator http://127.0.0.1:8765 scenarios/</code> show here.
          <button id="clear-runs" type="button">Clear the list</button></p>
        <table>
          <thead><tr><th>outcome</th><th>scenario</th><th>file</th><th>steps</th><th>seconds</th></tr></thead>
          <tbody id="run-rows"></tbody>
        </table>
        <div id="run-detail" hidden></div>
      </section>
    </main>
    <script src="/_emulator/dashboard/app.js"></script>
    </body>
    </html>
    """#
}
