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
          <label>Expiration (s from now, empty: none) <input id="compose-expiration" size="8"></label>
          <label class="wide">Payload <textarea id="compose-payload" rows="8">{"aps": {"alert": {"title": "Hello", "body": "from the dashboard"}, "sound": "default"}}</textarea></label>
          <button id="compose-send" type="submit">Send through the APNs listener</button>
        </form>
        <pre id="compose-result"></pre>
      </section>
    </main>
    <script src="/_emulator/dashboard/app.js"></script>
    </body>
    </html>
    """#
}
