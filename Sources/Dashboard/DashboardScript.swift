/// The dashboard's script: reads the control API every second and draws the devices, the journal and the compose
/// form; the buttons call the same control endpoints a test would.
enum DashboardScript {
    static let js = #"""
    "use strict";
    const $ = (s, root = document) => root.querySelector(s);
    const esc = (v) => String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
    const tokenField = $("#token");
    tokenField.value = sessionStorage.getItem("controlToken") || "";
    tokenField.addEventListener("change", () => { sessionStorage.setItem("controlToken", tokenField.value); refresh(); });

    async function api(method, path, body) {
      const headers = {};
      if (tokenField.value) headers["Authorization"] = "Bearer " + tokenField.value;
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      let json = null;
      try { json = text ? JSON.parse(text) : null; } catch (e) { json = { text }; }
      if (r.status === 401) throw new Error("the control API wants its token: enter it above");
      return { status: r.status, json };
    }

    const drawn = { devices: null, journal: null, faults: null, frontDoors: null, runs: null, targets: null };
    // A message stays 5 s; the refresh loop's own all-clear does not wipe an action's error.
    let sayUntil = 0;
    function say(text, sticky = false) {
      if (!text && Date.now() < sayUntil) return;
      $("#status").textContent = text || "";
      if (sticky && text) sayUntil = Date.now() + 5000;
    }
    function check({ status, json }) {
      if (status >= 300) throw new Error((json && json.error) || "HTTP " + status);
      return json;
    }

    // Tabs
    let tab = "devices";
    for (const b of document.querySelectorAll(".tab")) {
      b.addEventListener("click", () => {
        tab = b.dataset.tab;
        for (const o of document.querySelectorAll(".tab")) o.classList.toggle("active", o === b);
        for (const p of document.querySelectorAll(".panel")) p.hidden = p.id !== tab;
        refresh();
      });
    }

    // Devices
    const levels = { 1: "passive", 3: "time-sensitive", 4: "critical" };
    const authorization = { 1: "not determined", 2: "denied", 3: "authorized", 4: "provisional", 5: "ephemeral" };
    function notificationHTML(n, device, app, categories) {
      const c = n.notification;
      const mark = levels[c.interruptionLevel] ? `<span class="mark">${levels[c.interruptionLevel]}</span>` : "";
      const attachments = (n.attachments || []).map(attachmentHTML).join("");
      return `<div class="notification" data-id="${esc(n.identifier)}">
        <div class="title">${esc(c.title)}${mark}</div><div class="subtitle">${esc(c.subtitle)}</div>
        <div class="body">${esc(c.body)}</div>${attachments ? `<div>${attachments}</div>` : ""}
        <div class="facts">${esc((n.presentation || []).join(", "))}${n.soundPlayed ? " · sound " + esc(n.soundPlayed) : ""}</div>
        <div class="actions">
          <button class="tap" data-device="${esc(device)}" data-app="${esc(app)}" data-id="${esc(n.identifier)}">Tap</button>
          ${((categories.find((c) => c.identifier === c0(n)) || {}).actions || []).map((a) => `<button class="notification-action" data-device="${esc(device)}" data-app="${esc(app)}" data-id="${esc(n.identifier)}" data-action="${esc(a.identifier)}" data-text="${a.textInput ? "1" : ""}">${esc(a.title || a.identifier)}</button>`).join("")}
          <button class="dismiss" data-device="${esc(device)}" data-app="${esc(app)}" data-id="${esc(n.identifier)}">Dismiss</button>
        </div></div>`;
    }

    const c0 = (n) => n.notification.categoryIdentifier;
    function centreHTML(centre, device, app, categories) {
      const byId = new Map(centre.notifications.map((n) => [n.identifier, n]));
      return centre.groups.map((g) => `<div class="group" data-thread="${esc(g.threadIdentifier)}">
        <div class="summary">${g.threadIdentifier ? "thread " + esc(g.threadIdentifier) : "no thread"} · ${esc(g.summaryCount ?? g.notificationIds.length)} ${Number(g.summaryCount ?? g.notificationIds.length) === 1 ? "notification" : "notifications"}
          ${g.summaryArguments && g.summaryArguments.length ? " · from " + esc(g.summaryArguments.join(", ")) : ""}</div>
        ${g.notificationIds.map((id) => byId.get(id)).filter(Boolean).map((n) => notificationHTML(n, device, app, categories)).join("")}
      </div>`).join("");
    }

    // Image attachments the emulator serves (`/_emulator/files/{name}`) drawn as thumbnails: fetched once with the
    // token (an <img> cannot send it) and shown from a blob URL; other attachments by name and type.
    const thumbnails = new Map();
    const imageTypes = new Set(["jpeg", "png", "gif", "tiff"]);
    function servedFile(url) {
      try {
        const m = new URL(url, location.href).pathname.match(/^\/_emulator\/files\/([^/]+)$/);
        return m ? decodeURIComponent(m[1]) : null;
      } catch (e) { return null; }
    }
    function attachmentHTML(a) {
      const name = imageTypes.has(a.type) ? servedFile(a.url) : null;
      const label = `<span class="mark">${esc(a.identifier)} (${esc(a.type)})</span>`;
      if (!name) return label;
      const key = name + "#" + a.bytes;
      const src = thumbnails.get(key);
      if (src === undefined) { thumbnails.set(key, null); loadThumbnail(name, key); }
      return src ? `<img class="thumbnail" alt="${esc(a.identifier)}" title="${esc(a.identifier)}" src="${esc(src)}">` : label;
    }
    async function loadThumbnail(name, key) {
      const headers = tokenField.value ? { Authorization: "Bearer " + tokenField.value } : {};
      try {
        const r = await fetch("/_emulator/files/" + encodeURIComponent(name), { headers });
        // Without the token yet (401): tried again on a later redraw; other failures keep the label.
        if (!r.ok) { if (r.status === 401) thumbnails.delete(key); return; }
        thumbnails.set(key, URL.createObjectURL(await r.blob()));
        drawn.devices = null;
      } catch (e) { /* the label stays */ }
    }

    async function drawDevices() {
      const wall = check(await api("GET", "/_emulator/device-wall"));
      const devices = wall.devices;
      const details = new Map(wall.apps.map((a) => [a.deviceId + "\n" + a.bundleId, a]));
      const cards = [];
      for (const d of devices) {
        const apps = [];
        for (const a of d.apps) {
          const detail = details.get(d.id + "\n" + a.bundleId) || { centre: null, events: [], calls: [], deliveries: [] };
          // Plugin events, plugin calls and push fates, newest first.
          const items = [
            ...detail.events.map((e) => ({ at: e.at, kind: "event", type: e.type,
              text: (e.notification ? " · " + (e.notification.title || e.notification.body) : "") + (e.actionIdentifier ? " · " + e.actionIdentifier : "") })),
            ...detail.calls.map((c) => ({ at: c.calledAt, kind: "call", type: c.call,
              text: " · " + c.state + (c.result && c.result.case ? " " + c.result.case : "") })),
            ...detail.deliveries.map((f) => ({ at: f.at, kind: "fate", type: f.fate,
              text: " · " + f.code + " · " + (f.apnsId || "").slice(0, 8) })),
          ].sort((x, y) => y.at - x.at).slice(0, 16);
          const timeline = items.map((i) => `<li class="${i.kind}" data-type="${esc(i.type)}">${new Date(i.at).toLocaleTimeString()} ${i.kind === "event" ? "" : esc(i.kind) + " "}${esc(i.type)}${esc(i.text)}</li>`).join("");
          apps.push(`<div class="app" data-bundle="${esc(a.bundleId)}">
            <h3>${esc(a.bundleId)} ${a.badge ? `<span class="badge">${esc(a.badge)}</span>` : ""}</h3>
            <div class="facts">${esc(a.build)} · ${esc(a.lifecycle)} · notifications ${esc(authorization[a.authorizationStatus] || a.authorizationStatus)} · token ${a.token ? esc(a.token.slice(0, 12)) + "… (" + esc(a.tokenEnvironment) + ")" : "none"}${a.fcmToken ? " · FCM" : ""}${a.oneSignalSubscriptionId ? " · OneSignal" : ""}</div>
            <div class="actions">
              ${["foreground", "background", "forceQuit"].map((x) => `<button class="app-action" data-device="${esc(d.id)}" data-app="${esc(a.bundleId)}" data-action="${x}">${x}</button>`).join("")}
              <button class="app-action" data-device="${esc(d.id)}" data-app="${esc(a.bundleId)}" data-action="setNotificationsEnabled" data-enabled="${a.authorizationStatus === 2}">notifications ${a.authorizationStatus === 2 ? "on" : "off"}</button>
            </div>
            <div class="centre">${detail.centre ? centreHTML(detail.centre, d.id, a.bundleId, a.categories || []) : ""}</div>
            <ol class="timeline">${timeline}</ol>
          </div>`);
        }
        cards.push(`<div class="device" data-id="${esc(d.id)}">
          <h2>${esc(d.name || d.id)} <small>${esc(d.platform)} ${esc(d.osVersion)}</small>
            <button class="device-action" data-device="${esc(d.id)}" data-action="${d.online ? "offline" : "online"}">${d.online ? "go offline" : "go online"}</button></h2>
          <div class="facts ${d.online ? "online" : "offline"}">${d.online ? "online" : "offline"}${d.focus ? " · Focus" : ""}${d.muted ? " · silent" : ""}</div>
          ${apps.join("")}</div>`);
      }
      if (wall.totalDevices > devices.length) {
        cards.push(`<p class="empty more">The first ${devices.length} of ${wall.totalDevices} devices; the rest through <code>GET /_emulator/devices</code>.</p>`);
      }
      const panel = $("#devices");
      const html = cards.length ? cards.join("")
        : '<p class="empty">No virtual devices yet: create one with <code>POST /_emulator/devices</code> or a scenario.</p>';
      // Redrawn only when something changed, so a button is not replaced under the pointer.
      if (drawn.devices !== html) { panel.innerHTML = html; drawn.devices = html; }
      return devices;
    }

    document.addEventListener("click", async (event) => {
      const b = event.target.closest("button");
      if (!b) return;
      try {
        if (b.classList.contains("tap") || b.classList.contains("dismiss")) {
          const path = `/_emulator/devices/${encodeURIComponent(b.dataset.device)}/apps/${encodeURIComponent(b.dataset.app)}/actions`;
          check(await api("POST", path, { action: b.classList.contains("tap") ? "tap" : "dismiss", notificationId: b.dataset.id }));
        } else if (b.classList.contains("notification-action")) {
          const body = { action: "action", notificationId: b.dataset.id, actionId: b.dataset.action };
          if (b.dataset.text) {
            const text = prompt("Text for " + b.dataset.action);
            if (text === null) return;
            body.text = text;
          }
          check(await api("POST", `/_emulator/devices/${encodeURIComponent(b.dataset.device)}/apps/${encodeURIComponent(b.dataset.app)}/actions`, body));
        } else if (b.classList.contains("app-action")) {
          const body = { action: b.dataset.action };
          if (b.dataset.action === "setNotificationsEnabled") body.enabled = b.dataset.enabled === "true";
          check(await api("POST", `/_emulator/devices/${encodeURIComponent(b.dataset.device)}/apps/${encodeURIComponent(b.dataset.app)}/actions`, body));
        } else if (b.classList.contains("device-action")) {
          check(await api("POST", `/_emulator/devices/${encodeURIComponent(b.dataset.device)}/actions`, { action: b.dataset.action }));
        } else if (b.id === "reset") {
          if (!confirm("Forget every key, token, device and journal entry?")) return;
          check(await api("POST", "/_emulator/reset"));
          journalAll = [];
          journalReseed = true;
        } else if (b.id === "advance") {
          check(await api("POST", "/_emulator/clock/advance", { seconds: 60 }));
        } else {
          return;
        }
        refresh();
      } catch (e) { say(e.message, true); }
    });

    // Journal
    // Filters match as you type (part of the value, any case) over the newest 500 entries seen.
    const filters = { topic: "#filter-topic", token: "#filter-token", status: "#filter-status", reason: "#filter-reason", apnsId: "#filter-apns-id", environment: "#filter-environment" };
    for (const sel of Object.values(filters)) {
      $(sel).addEventListener("input", () => drawJournal());
      $(sel).addEventListener("change", () => drawJournal());
    }
    $("#journal-filters").addEventListener("submit", (e) => e.preventDefault());
    // The journal arrives by long-poll: the newest 200 first, then whatever comes after the last id seen, as it comes
    // (the newest 500 of it: the table keeps no more). A reset, here or by a test, starts it over.
    let journal = [];
    let journalAll = [];
    let journalLast = 0;
    let journalPolling = false;
    let journalReseed = false;
    function drawJournal() {
      const wanted = Object.entries(filters).map(([k, sel]) => [k, $(sel).value.trim().toLowerCase()]).filter(([, v]) => v);
      journal = journalAll.slice().reverse()
        .filter((e) => wanted.every(([k, v]) => String(e[k] ?? "").toLowerCase().includes(v)));
      const rows = journal.map((e) => `<tr data-id="${esc(e.id)}" data-apns-id="${esc(e.apnsId)}" class="${e.status === 200 ? "accepted" : "refused"}">
        <td>${new Date(e.receivedAt).toLocaleTimeString()}</td><td>${esc(e.environment)}</td><td class="status">${esc(e.status)}</td>
        <td class="reason">${esc(e.reason)}</td><td>${esc(e.pushType)}</td><td>${esc(e.topic)}</td>
        <td>${esc((e.token || "").slice(0, 12))}</td><td>${esc(e.apnsId)}</td></tr>`).join("");
      const body = $("#journal-rows");
      if (drawn.journal !== rows) { body.innerHTML = rows; drawn.journal = rows; }
    }
    async function pollJournal() {
      if (journalPolling) return;
      journalPolling = true;
      try {
        let first = true;
        while (tab === "journal") {
          if (journalReseed) { first = true; journalReseed = false; journalLast = 0; }
          const query = first ? "limit=200" : `after=${journalLast}&waitSeconds=20&limit=500`;
          const { status, json } = await api("GET", "/_emulator/journal?" + query);
          if (status !== 200) { say((json && json.error) || "HTTP " + status, true); await new Promise((r) => setTimeout(r, 1000)); continue; }
          const entries = (json && json.entries) || [];
          journalAll = first ? entries : journalAll.concat(entries).slice(-500);
          if (entries.length) journalLast = entries[entries.length - 1].id;
          if (!first && !entries.length) {
            // Nothing new for a whole wait: if the journal now ends before the last id seen, it was cleared.
            const newest = await api("GET", "/_emulator/journal?limit=1");
            const last = newest.json && newest.json.entries && newest.json.entries[0];
            if (!last || last.id < journalLast) journalReseed = true;
          }
          first = false;
          drawJournal();
          // Under a load every long-poll answers at once: a read a second at most, each copying up to 500 entries,
          // keeps an open journal tab from taking a share of the emulator's CPU.
          if (entries.length) await new Promise((r) => setTimeout(r, 1000));
        }
      } catch (e) { say(e.message, true); } finally { journalPolling = false; }
    }
    let detailShown = 0;
    $("#journal-rows").addEventListener("click", async (event) => {
      const row = event.target.closest("tr");
      if (!row) return;
      const entry = journal.find((e) => String(e.id) === row.dataset.id);
      if (!entry) return;
      const mine = ++detailShown;
      let fates;
      try { fates = check(await api("GET", "/_emulator/deliveries?apnsId=" + encodeURIComponent(entry.apnsId))); }
      catch (e) { say(e.message, true); return; }
      if (mine !== detailShown) return;  // another row was clicked meanwhile
      const detail = $("#journal-detail");
      detail.hidden = false;
      const answer = [["status", entry.status], ["reason", entry.reason], ["apns-id", entry.apnsId],
        ["apns-unique-id", entry.apnsUniqueId], ["timestamp", entry.timestamp], ["answered in", entry.durationMicros + " µs"],
        ["auth", entry.authMode + " " + entry.authOutcome], ["fault", entry.faultId]].filter(([, v]) => v !== undefined && v !== null && v !== "");
      detail.innerHTML = `<h3>${esc(entry.method)} ${esc(entry.path)} → ${esc(entry.status)} ${esc(entry.reason)}</h3>
        <h4>Answer</h4><pre class="answer">${esc(answer.map(([k, v]) => k + ": " + v).join("\n"))}</pre>
        <h4>Headers</h4><pre>${esc(entry.headers.map((h) => h.join(": ")).join("\n"))}</pre>
        <h4>Payload</h4><pre>${esc(entry.payload)}</pre>
        ${entry.warnings && entry.warnings.length ? `<h4>Warnings</h4><ul class="warnings">${entry.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul>` : ""}
        <h4>Fates</h4><ul class="fates">${((fates && fates.deliveries) || []).map((f) => `<li>${esc(f.deviceId)} ${esc(f.bundleId)}: ${esc(f.fate)} (${esc(f.code)}) ${esc(f.reason)}</li>`).join("") || "<li>none</li>"}</ul>`;
    });

    // Compose
    async function fillTargets(devices) {
      const select = $("#compose-target");
      const current = select.value;
      const options = [];
      for (const d of devices) for (const a of d.apps) if (a.token) {
        options.push(`<option value="${esc(d.id + "|" + a.bundleId)}">${esc(d.id)} · ${esc(a.bundleId)} (${esc(a.tokenEnvironment)})</option>`);
      }
      const html = options.join("") || "<option value=\"\">no app with a token yet</option>";
      if (drawn.targets !== html) { select.innerHTML = html; drawn.targets = html; if (current) select.value = current; }
    }
    $("#compose-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const [deviceId, bundleId] = $("#compose-target").value.split("|");
      let payload;
      try { payload = JSON.parse($("#compose-payload").value); } catch (e) { $("#compose-result").textContent = "the payload is not JSON: " + e.message; return; }
      const body = { deviceId, bundleId, payload, pushType: $("#compose-push-type").value, priority: Number($("#compose-priority").value) };
      if ($("#compose-collapse-id").value) body.collapseId = $("#compose-collapse-id").value;
      if ($("#compose-expiration").value) body.expiresInSeconds = Number($("#compose-expiration").value);
      try {
        const { status, json } = await api("POST", "/_emulator/dashboard/send", body);
        $("#compose-result").textContent = status === 200 ? `APNs answered ${json.status}${json.reason ? " " + json.reason : ""} · apns-id ${json.apnsId || ""}` : (json && json.error) || "HTTP " + status;
      } catch (e) { $("#compose-result").textContent = e.message; }
      refresh();
    });

    // Front doors: what FCM and OneSignal senders sent and what APNs request each became
    let frontDoorMessages = [];
    async function drawFrontDoors() {
      const { status, json } = await api("GET", "/_emulator/front-doors/messages");
      $("#front-doors-off").hidden = status !== 404;
      if (status !== 200) return;
      frontDoorMessages = ((json && json.messages) || []).slice().reverse();
      const rows = frontDoorMessages.map((m, i) => `<tr data-index="${i}" class="${m.status === 200 && (m.apnsStatus ?? 200) === 200 ? "accepted" : "refused"}">
        <td>${new Date(m.receivedAt).toLocaleTimeString()}</td><td>${esc(m.api)}</td><td>${esc(m.project)}</td>
        <td>${esc((m.target || "").slice(0, 16))}</td><td class="status">${esc(m.status)}</td>
        <td>${m.apnsStatus ? esc(m.apnsStatus + " " + (m.apnsReason || "")) : m.apns ? "" : "not sent"}</td>
        <td>${esc(m.error)}</td><td class="notes">${esc((m.notes || []).join("; "))}</td></tr>`).join("");
      if (drawn.frontDoors !== rows) { $("#front-door-rows").innerHTML = rows; drawn.frontDoors = rows; }
    }
    $("#front-door-rows").addEventListener("click", (event) => {
      const row = event.target.closest("tr");
      if (!row) return;
      const m = frontDoorMessages[Number(row.dataset.index)];
      const detail = $("#front-door-detail");
      detail.hidden = false;
      detail.innerHTML = m.apns ? `<h3>APNs request to ${esc(m.apns.token)} (${esc(m.apns.environment)})</h3>
        <pre>${esc(Object.entries(m.apns.headers).map(([k, v]) => k + ": " + v).join("\n"))}</pre><pre>${esc(m.apns.payload)}</pre>`
        : `<h3>No APNs request was made</h3><p>${esc((m.notes || []).join("; ") || m.error)}</p>`;
    });

    // Scenario runs reported by `apns-emulator test --emulator`
    let runs = [];
    async function drawRuns() {
      const { status, json } = await api("GET", "/_emulator/scenario-runs");
      if (status !== 200) return;
      runs = ((json && json.runs) || []).slice().reverse();
      const rows = runs.map((r, i) => `<tr data-index="${i}" class="${r.outcome === "passed" ? "accepted" : "refused"}">
        <td class="status">${esc(r.outcome)}</td><td>${esc(r.name)}</td><td>${esc(r.file)}</td>
        <td>${esc((r.steps || []).length)}</td><td>${esc(Number(r.seconds || 0).toFixed(2))}</td></tr>`).join("");
      if (drawn.runs !== rows) { $("#run-rows").innerHTML = rows; drawn.runs = rows; }
    }
    $("#clear-runs").addEventListener("click", async () => {
      const { status, json } = await api("DELETE", "/_emulator/scenario-runs");
      if (status >= 300) say((json && json.error) || "HTTP " + status, true);
      $("#run-detail").hidden = true;
      refresh();
    });
    $("#run-rows").addEventListener("click", (event) => {
      const row = event.target.closest("tr");
      if (!row) return;
      const r = runs[Number(row.dataset.index)];
      const detail = $("#run-detail");
      detail.hidden = false;
      detail.innerHTML = `<h3>${esc(r.name)}</h3><ol class="steps">${(r.steps || []).map((s) =>
        `<li class="${s.outcome === "passed" ? "online" : "offline"}">line ${esc(s.line)}: ${esc(s.kind)} · ${esc(s.outcome)} · ${esc(Number(s.seconds).toFixed(3))} s</li>`).join("")}</ol>
        ${(r.failures || []).length ? `<pre class="failures">${esc(r.failures.join("\n"))}</pre>` : ""}`;
    });

    // Controls: charts from /metrics (the last 60 seconds), faults, shaping, state export
    const history = [];
    let previous = null;
    function parseMetrics(text) {
      let accepted = 0, rejected = 0;
      const buckets = [];
      for (const line of text.split("\n")) {
        let m = line.match(/^apns_emulator_requests_total\{status="(\d+)"[^}]*\} (\d+(?:\.\d+)?)/);
        if (m) { if (m[1] === "200") accepted += Number(m[2]); else rejected += Number(m[2]); continue; }
        m = line.match(/^apns_emulator_response_seconds_bucket\{le="([^"]+)"\} (\d+(?:\.\d+)?)/);
        if (m) buckets.push([m[1] === "+Inf" ? Infinity : Number(m[1]), Number(m[2])]);
      }
      return { accepted, rejected, buckets };
    }
    function quantile(buckets, q) {
      const total = buckets.length ? buckets[buckets.length - 1][1] : 0;
      if (!total) return NaN;
      for (const [le, count] of buckets) if (count >= q * total) return le === Infinity ? NaN : le * 1000;
      return NaN;
    }
    function line(values, cls) {
      const max = Math.max(1, ...values.filter(Number.isFinite));
      const points = values.map((v, i) => `${(i * 300) / 59},${58 - (Number.isFinite(v) ? v : 0) / max * 56}`).join(" ");
      return `<polyline class="${cls}" points="${points}"/>`;
    }
    async function drawControls() {
      const r = await fetch("/metrics", { headers: tokenField.value ? { Authorization: "Bearer " + tokenField.value } : {} });
      const now = parseMetrics(await r.text());
      now.at = performance.now();
      if (previous) {
        const seconds = Math.max(0.001, (now.at - previous.at) / 1000);
        const delta = now.buckets.map(([le, c], i) => [le, c - (previous.buckets[i] ? previous.buckets[i][1] : 0)]);
        const rate = (a, b) => Math.max(0, Math.round((a - b) / seconds));
        history.push({ accepted: rate(now.accepted, previous.accepted), rejected: rate(now.rejected, previous.rejected),
                       p50: quantile(delta, 0.5), p99: quantile(delta, 0.99) });
        while (history.length > 60) history.shift();
      }
      previous = now;
      const last = history[history.length - 1] || { accepted: 0, rejected: 0, p50: 0, p99: 0 };
      $("#rate-accepted").textContent = last.accepted;
      $("#rate-rejected").textContent = last.rejected;
      $("#latency").textContent = `${Number.isFinite(last.p50) ? last.p50 : "–"} / ${Number.isFinite(last.p99) ? last.p99 : "–"}`;
      const pad = (k) => Array(60 - history.length).fill(0).concat(history.map((h) => h[k]));
      $("#chart-accepted").innerHTML = line(pad("accepted"), "first");
      $("#chart-rejected").innerHTML = line(pad("rejected"), "second");
      $("#chart-latency").innerHTML = line(pad("p50"), "first") + line(pad("p99"), "second");
      if (tab !== "controls") return;
      const [faults, shaping] = await Promise.all([api("GET", "/_emulator/faults"), api("GET", "/_emulator/shaping")]);
      const list = ((faults.json && faults.json.faults) || []).map((f) => `<li class="fault">${esc(f.id)}: ${esc(JSON.stringify(f.action))}${f.remaining === 0 ? " · used up" : f.remaining != null ? " · " + esc(f.remaining) + " left" : ""}</li>`).join("");
      if (drawn.faults !== list) { $("#faults").innerHTML = list || "<li>none</li>"; drawn.faults = list; }
      $("#shaping").textContent = JSON.stringify(shaping.json);
    }
    $("#fault-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = { action: { type: "reason", reason: $("#fault-reason").value.trim() || "ServiceUnavailable" } };
      if ($("#fault-count").value) body.count = Number($("#fault-count").value);
      const { status, json } = await api("POST", "/_emulator/faults", body);
      if (status >= 300) say(json && json.error, true);
      refresh();
    });
    $("#faults-clear").addEventListener("click", async () => { await api("DELETE", "/_emulator/faults"); refresh(); });
    $("#shaping-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = {};
      const ms = $("#shaping-latency").value.trim(), share = $("#shaping-brownout").value.trim();
      if (ms) body.latency = Number(ms) > 0 ? { type: "fixed", ms: Number(ms) } : { type: "none" };
      if (share) body.brownoutShare = Number(share);
      const { status, json } = await api("PUT", "/_emulator/shaping", body);
      if (status >= 300) say(json && json.error, true);
      refresh();
    });
    $("#shaping-off").addEventListener("click", async () => {
      await api("PUT", "/_emulator/shaping", { latency: { type: "none" }, brownoutShare: 0 });
      refresh();
    });
    $("#export").addEventListener("click", async () => {
      const { status, json } = await api("GET", "/_emulator/state");
      if (status !== 200) { $("#export-result").textContent = (json && json.error) || "HTTP " + status; return; }
      const blob = new Blob([JSON.stringify(json, null, 2)], { type: "application/json" });
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = "apns-emulator-state.json";
      a.click();
      $("#export-result").textContent = `exported ${(json.keys || []).length} keys, ${(json.tokens || []).length} tokens, ${(json.faults || []).length} faults`;
    });

    // Clock and refresh loop
    async function drawClock() {
      const { json } = await api("GET", "/_emulator/clock");
      if (!json) return;
      $("#clock").textContent = new Date(json.now).toLocaleString() + (json.controllable ? " (manual)" : "");
      $("#advance").hidden = !json.controllable;
    }
    let busy = false;
    async function refresh() {
      if (busy) return;
      busy = true;
      try {
        await drawClock();
        if (tab === "devices") await drawDevices();
        if (tab === "journal") pollJournal();
        if (tab === "compose") await fillTargets(check(await api("GET", "/_emulator/device-wall?recent=0")).devices);
        if (tab === "front-doors") await drawFrontDoors();
        if (tab === "runs") await drawRuns();
        await drawControls();
        say("");
      } catch (e) { say(e.message); } finally { busy = false; }
    }
    refresh();
    setInterval(refresh, 1000);
    """#
}
