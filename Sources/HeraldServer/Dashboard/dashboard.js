// Herald's delivery dashboard: reads /api/v1/stats, /api/v1/logs and /api/v1/notifications/{id}/deliveries
// with an API key kept in sessionStorage. Every value from the API reaches the page through textContent or
// setAttribute, never as markup.
"use strict";

(() => {
  const keyStorage = "herald.apiKey";
  const svgNamespace = "http://www.w3.org/2000/svg";
  const pageSize = 50;
  const historySize = 100;

  const byId = (id) => document.getElementById(id);
  const view = {
    controls: byId("controls"),
    login: byId("login"),
    dashboard: byId("dashboard"),
    error: byId("error"),
    keyForm: byId("key-form"),
    keyInput: byId("api-key"),
    window: byId("window"),
    app: byId("app"),
    appFilter: byId("app-filter"),
    filters: byId("filters"),
    more: byId("more"),
    history: byId("history"),
  };

  let nextCursor = null;
  let windowSince = null;
  let lastSeries = [];

  /** The API answered with an error document, or not at all. */
  class APIError extends Error {
    constructor(status, message, field) {
      super(message);
      this.status = status;
      this.field = field;
    }
  }

  function storedKey() {
    try {
      return sessionStorage.getItem(keyStorage);
    } catch {
      return null;
    }
  }

  function storeKey(key) {
    try {
      sessionStorage.setItem(keyStorage, key);
    } catch {
      // Storage can be disabled; the key then lasts only until the page is reloaded.
    }
  }

  let memoryKey = storedKey();

  function forgetKey() {
    memoryKey = null;
    try {
      sessionStorage.removeItem(keyStorage);
    } catch {
      // Nothing was stored.
    }
  }

  async function api(path) {
    let response;
    try {
      response = await fetch(path, {
        headers: { Authorization: `Bearer ${memoryKey}`, Accept: "application/json" },
        cache: "no-store",
      });
    } catch {
      throw new APIError(0, "Herald could not be reached. Check that the server is running.");
    }
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok) {
      const message = body && typeof body.message === "string" ? body.message : `HTTP ${response.status}`;
      throw new APIError(response.status, message, body && body.field);
    }
    return body;
  }

  // MARK: Page states

  function setState(state) {
    document.body.dataset.state = state;
  }

  function showError(message) {
    view.error.textContent = message;
    view.error.hidden = !message;
  }

  function showLogin(message) {
    view.dashboard.hidden = true;
    view.controls.hidden = true;
    view.history.hidden = true;
    view.login.hidden = false;
    showError(message || "");
    setState("login");
    view.keyInput.value = "";
    view.keyInput.focus();
  }

  function showDashboard() {
    view.login.hidden = true;
    view.dashboard.hidden = false;
    view.controls.hidden = false;
  }

  /** A 401 means the key is wrong or revoked: forget it and ask again. Anything else is shown as it came. */
  function handleFailure(error) {
    if (error instanceof APIError && error.status === 401) {
      forgetKey();
      showLogin(`The API key was not accepted (${error.message}). Enter it again.`);
      return;
    }
    let message = error instanceof APIError ? error.message : String(error);
    if (error instanceof APIError && error.status === 403) {
      message = `This API key may not read deliveries: ${message}`;
    } else if (error instanceof APIError && error.field) {
      message = `${error.field}: ${message}`;
    }
    showError(message);
    setState("error");
  }

  // MARK: Formatting

  function count(number) {
    return Number(number || 0).toLocaleString();
  }

  function percent(rate) {
    return `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)} %`;
  }

  function dateTime(text) {
    if (!text) return "";
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? String(text) : date.toLocaleString();
  }

  function shortID(id) {
    return id ? String(id).slice(0, 8) : "";
  }

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function cell(row, text, className) {
    const td = element("td", text, className);
    row.appendChild(td);
    return td;
  }

  function statusBadge(status) {
    return element("span", status, `status ${String(status).replace(/[^a-z_]/g, "")}`);
  }

  function idButton(id, label, open) {
    const button = element("button", shortID(id), "link");
    button.type = "button";
    button.title = `${label} ${id}`;
    button.setAttribute("aria-label", `${label} ${id} history`);
    button.addEventListener("click", (event) => {
      event.stopPropagation();
      open(id);
    });
    return button;
  }

  function replaceRows(tbody, rows) {
    tbody.replaceChildren(...rows);
  }

  // MARK: Stats

  function totals(stats) {
    const sum = { finished: 0, sent: 0, failed: 0, token_expired: 0, opened: 0 };
    for (const type of stats.types || []) {
      sum.finished += type.finished || 0;
      sum.opened += type.opened || 0;
      for (const state of ["sent", "failed", "token_expired"]) sum[state] += (type.byState || {})[state] || 0;
    }
    return sum;
  }

  function renderTotals(stats) {
    const sum = totals(stats);
    const rate = (part) => (sum.finished ? `${percent(part / sum.finished)} of finished` : "");
    byId("total-sent").textContent = count(sum.sent);
    byId("total-failed").textContent = count(sum.failed);
    byId("total-token-expired").textContent = count(sum.token_expired);
    byId("total-finished").textContent = count(sum.finished);
    byId("rate-sent").textContent = rate(sum.sent);
    byId("rate-failed").textContent = rate(sum.failed);
    byId("rate-token-expired").textContent = rate(sum.token_expired);
    byId("total-opened").textContent = count(sum.opened);
    byId("rate-opened").textContent = sum.sent ? `${percent(sum.opened / sum.sent)} of sent` : "";
    byId("window-range").textContent = `since ${dateTime(stats.since)}`;
  }

  function renderReasons(stats) {
    const reasons = stats.failureReasons || [];
    const rows = reasons.map((entry) => {
      const row = document.createElement("tr");
      cell(row, entry.reason === null || entry.reason === undefined ? "(none recorded)" : entry.reason);
      cell(row).appendChild(statusBadge(entry.state));
      cell(row, count(entry.count), "num");
      return row;
    });
    replaceRows(byId("reasons").tBodies[0], rows);
    byId("reasons-empty").hidden = rows.length > 0;
  }

  function renderTypes(stats) {
    const rows = (stats.types || []).map((type) => {
      const row = document.createElement("tr");
      const states = type.byState || {};
      cell(row, type.type);
      cell(row, count(type.finished), "num");
      cell(row, `${count(states.sent)} (${percent(type.successRate || 0)})`, "num");
      cell(row, count(states.failed), "num");
      cell(row, count(states.token_expired), "num");
      cell(row, `${count(type.opened)} (${percent(type.openRate || 0)})`, "num");
      cell(row, count(type.dismissed), "num");
      const actions = Object.entries(type.actions || {}).sort((a, b) => b[1] - a[1]);
      cell(row, actions.map(([action, times]) => `${action} ${count(times)}`).join(", "));
      return row;
    });
    replaceRows(byId("types").tBodies[0], rows);
    byId("types-empty").hidden = rows.length > 0;
  }

  // MARK: Chart

  function svg(tag, attributes, text) {
    const node = document.createElementNS(svgNamespace, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function tickLabel(date, spanHours) {
    if (spanHours > 48) return date.toLocaleDateString(undefined, { weekday: "short", day: "numeric" });
    return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  }

  /** Stacked bars of finished deliveries per bucket and a line of the share that failed or found a dead token. */
  function renderChart(series) {
    const container = byId("chart");
    const width = Math.max(300, Math.round(container.clientWidth || 800));
    const height = width < 500 ? 220 : 260;
    const margin = { top: 12, right: 44, bottom: 28, left: 44 };
    const plotWidth = width - margin.left - margin.right;
    const plotHeight = height - margin.top - margin.bottom;
    const buckets = series.map((bucket) => {
      const states = bucket.byState || {};
      return {
        start: new Date(bucket.start),
        end: new Date(bucket.end),
        sent: states.sent || 0,
        failed: states.failed || 0,
        tokenExpired: states.token_expired || 0,
        other: (states.expired || 0) + (states.canceled || 0),
        finished: bucket.finished || 0,
        failing: (bucket.failureRate || 0) + (bucket.tokenExpiredRate || 0),
      };
    });
    const sum = (key) => buckets.reduce((total, bucket) => total + bucket[key], 0);
    const peak = Math.max(1, ...buckets.map((bucket) => bucket.finished));
    const scale = niceCeiling(peak);
    const chart = svg("svg", {
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label": "Finished deliveries over time",
      "data-buckets": buckets.length,
      "data-sent": sum("sent"),
      "data-failed": sum("failed"),
      "data-token-expired": sum("tokenExpired"),
      "data-finished": sum("finished"),
      "data-width": width,
    });
    chart.appendChild(svg("title", {}, "Finished deliveries over time"));

    for (let step = 0; step <= 4; step += 1) {
      const y = margin.top + plotHeight - (plotHeight * step) / 4;
      chart.appendChild(svg("line", { x1: margin.left, x2: width - margin.right, y1: y, y2: y, class: "axis" }));
      chart.appendChild(
        svg("text", { x: margin.left - 6, y: y + 4, "text-anchor": "end", class: "tick" }, count((scale * step) / 4)),
      );
      chart.appendChild(
        svg("text", { x: width - margin.right + 6, y: y + 4, class: "tick" }, `${step * 25}%`),
      );
    }

    const slot = buckets.length ? plotWidth / buckets.length : plotWidth;
    const barWidth = Math.max(1, slot * 0.72);
    const points = [];
    let previousFinished = false;
    const spanHours = buckets.length ? (buckets[buckets.length - 1].end - buckets[0].start) / 3.6e6 : 0;
    const labelEvery = Math.max(1, Math.ceil(buckets.length / Math.max(2, Math.floor(plotWidth / 70))));
    buckets.forEach((bucket, index) => {
      const x = margin.left + index * slot + (slot - barWidth) / 2;
      let y = margin.top + plotHeight;
      const group = svg("g", { class: "bucket", "data-finished": bucket.finished });
      group.appendChild(
        svg(
          "title",
          {},
          `${bucket.start.toLocaleString()} – ${bucket.end.toLocaleString()}: ${bucket.sent} sent, ` +
            `${bucket.failed} failed, ${bucket.tokenExpired} token expired, ${bucket.other} expired or canceled`,
        ),
      );
      for (const [key, className] of [
        ["sent", "bar-sent"],
        ["failed", "bar-failed"],
        ["tokenExpired", "bar-token-expired"],
        ["other", "bar-other"],
      ]) {
        if (!bucket[key]) continue;
        const barHeight = (bucket[key] / scale) * plotHeight;
        y -= barHeight;
        group.appendChild(svg("rect", { x, y, width: barWidth, height: barHeight, class: className }));
      }
      chart.appendChild(group);
      if (bucket.finished) {
        if (!previousFinished) points.push([]);
        points[points.length - 1].push([
          margin.left + index * slot + slot / 2,
          margin.top + plotHeight - bucket.failing * plotHeight,
        ]);
      }
      previousFinished = bucket.finished > 0;
      if (index % labelEvery === 0) {
        chart.appendChild(
          svg(
            "text",
            { x: margin.left + index * slot, y: height - 8, class: "tick" },
            tickLabel(bucket.start, spanHours),
          ),
        );
      }
    });
    // The line breaks where a bucket had nothing finished: no rate there, not a rate of zero.
    for (const run of points) {
      if (run.length > 1) {
        chart.appendChild(svg("polyline", { points: run.map((point) => point.join(",")).join(" "), class: "rate-line" }));
      }
      for (const [x, y] of run) chart.appendChild(svg("circle", { cx: x, cy: y, r: 2.5, class: "rate-point" }));
    }
    container.replaceChildren(chart);
  }

  function niceCeiling(value) {
    const magnitude = 10 ** Math.floor(Math.log10(value));
    for (const factor of [1, 2, 2.5, 5, 10]) {
      if (factor * magnitude >= value) return Math.max(4, factor * magnitude);
    }
    return value;
  }

  // MARK: Delivery log

  function logRow(entry) {
    const row = document.createElement("tr");
    row.dataset.notificationId = entry.notificationId;
    cell(row, dateTime(entry.createdAt));
    cell(row).appendChild(statusBadge(entry.status));
    cell(row, entry.type);
    cell(row, entry.userId);
    const device = cell(row);
    if (entry.deviceId) device.appendChild(idButton(entry.deviceId, "Device", showDeviceHistory));
    else device.textContent = "(deleted)";
    cell(row).appendChild(idButton(entry.notificationId, "Notification", showNotificationHistory));
    cell(row, entry.attempt, "num");
    cell(row, entry.httpStatus ?? "", "num");
    cell(row, entry.reason ?? "");
    cell(row, entry.latencyMs === null || entry.latencyMs === undefined ? "" : entry.latencyMs.toFixed(0), "num");
    row.addEventListener("click", () => showNotificationHistory(entry.notificationId));
    return row;
  }

  function logQuery() {
    const parameters = new URLSearchParams({ limit: String(pageSize) });
    if (windowSince) parameters.set("since", windowSince);
    if (view.app.value) parameters.set("appId", view.app.value);
    for (const [name, value] of new FormData(view.filters)) {
      const text = String(value).trim();
      if (text) parameters.set(name, text);
    }
    return parameters;
  }

  async function loadDeliveries(append) {
    const parameters = logQuery();
    if (append && nextCursor) parameters.set("cursor", nextCursor);
    const page = await api(`/api/v1/logs?${parameters}`);
    const tbody = byId("deliveries").tBodies[0];
    const rows = (page.items || []).map(logRow);
    if (append) tbody.append(...rows);
    else replaceRows(tbody, rows);
    nextCursor = page.nextCursor || null;
    view.more.hidden = !nextCursor;
    byId("deliveries-empty").hidden = tbody.rows.length > 0;
  }

  // MARK: History

  function openHistory(title) {
    view.history.hidden = false;
    byId("history-title").textContent = title;
    byId("history-summary").textContent = "Loading…";
    byId("history-deliveries").hidden = true;
    byId("history-interactions").hidden = true;
    replaceRows(byId("history-log").tBodies[0], []);
    byId("history-empty").hidden = true;
    view.history.scrollIntoView({ block: "start" });
  }

  function fillHistoryLog(page) {
    const rows = (page.items || []).map(logRow);
    replaceRows(byId("history-log").tBodies[0], rows);
    byId("history-empty").hidden = rows.length > 0;
    return rows.length;
  }

  async function showDeviceHistory(deviceID) {
    openHistory(`Device ${deviceID}`);
    try {
      const page = await api(`/api/v1/logs?${new URLSearchParams({ deviceId: deviceID, limit: String(historySize) })}`);
      const shown = fillHistoryLog(page);
      byId("history-summary").textContent = `${shown}${page.nextCursor ? "+" : ""} attempts, newest first.`;
    } catch (error) {
      handleFailure(error);
    }
  }

  async function showNotificationHistory(notificationID) {
    openHistory(`Notification ${notificationID}`);
    try {
      const [report, page, interactions] = await Promise.all([
        api(`/api/v1/notifications/${encodeURIComponent(notificationID)}/deliveries`),
        api(`/api/v1/logs?${new URLSearchParams({ notificationId: notificationID, limit: String(historySize) })}`),
        api(`/api/v1/interactions?${new URLSearchParams({ notificationId: notificationID, limit: "500" })}`),
      ]);
      const deliveries = report.deliveries || [];
      const suppressed = report.suppressed || [];
      byId("history-summary").textContent =
        `State ${report.state}: ${deliveries.length} deliveries, ${suppressed.length} skipped recipients.`;
      const deliveryRows = deliveries.map((delivery) => {
        const row = document.createElement("tr");
        cell(row).appendChild(idButton(delivery.deviceId, "Device", showDeviceHistory));
        cell(row, delivery.userId);
        cell(row).appendChild(statusBadge(delivery.state));
        cell(row, delivery.attempts, "num");
        cell(row, delivery.lastStatus ?? "", "num");
        cell(row, delivery.lastReason ?? "");
        cell(row, delivery.environment);
        cell(row, dateTime(delivery.updatedAt));
        cell(row, delivery.apnsUniqueId ?? "");
        return row;
      });
      replaceRows(byId("history-deliveries").querySelector("tbody"), deliveryRows);
      const suppressedRows = suppressed.map((entry) => {
        const row = document.createElement("tr");
        cell(row, entry.userId);
        cell(row, entry.reason);
        cell(row, dateTime(entry.createdAt));
        return row;
      });
      replaceRows(byId("history-suppressed").querySelector("tbody"), suppressedRows);
      byId("history-suppressed").hidden = suppressedRows.length === 0;
      const interactionRows = (interactions.items || []).map((entry) => {
        const row = document.createElement("tr");
        cell(row, entry.userId);
        cell(row).appendChild(idButton(entry.deviceId, "Device", showDeviceHistory));
        cell(row, entry.action);
        cell(row, entry.text ?? "");
        cell(row, dateTime(entry.createdAt));
        return row;
      });
      replaceRows(byId("history-interactions").querySelector("tbody"), interactionRows);
      byId("history-interactions").hidden = interactionRows.length === 0;
      byId("history-deliveries").hidden = false;
      fillHistoryLog(page);
    } catch (error) {
      handleFailure(error);
    }
  }

  // MARK: Outbox

  /** How often the outbox panel reads /api/v1/outbox again while the dashboard is shown. */
  const outboxRefresh = 5000;
  let outboxTimer = null;

  function renderOutbox(outbox) {
    const lanes = ["immediate", "bulk"];
    const states = ["pending", "retrying", "deferred", "sending"];
    const counts = {};
    for (const entry of outbox.deliveries || []) counts[`${entry.lane}/${entry.state}`] = entry.count;
    replaceRows(
      byId("outbox-deliveries").tBodies[0],
      lanes.map((lane) => {
        const row = document.createElement("tr");
        cell(row, lane);
        for (const state of states) cell(row, count(counts[`${lane}/${state}`]), "num");
        cell(row, count((outbox.scheduled || {})[lane]), "num");
        return row;
      }),
    );
    const oldest = outbox.oldestPendingSeconds;
    byId("outbox-summary").textContent =
      oldest === null || oldest === undefined
        ? "Nothing due is waiting."
        : `The oldest due delivery has waited ${oldest.toLocaleString()} s.`;
    byId("outbox-updated").textContent = `as of ${dateTime(outbox.at)}`;
    replaceRows(
      byId("outbox-apps").tBodies[0],
      (outbox.apps || []).map((entry) => {
        const row = document.createElement("tr");
        cell(row, entry.appId ?? "(no app)");
        cell(row, entry.deliveriesPerSecond.toLocaleString(), "num");
        return row;
      }),
    );
    replaceRows(
      byId("outbox-keys").tBodies[0],
      (outbox.signingKeys || []).map((key) => {
        const row = document.createElement("tr");
        cell(row, `${key.teamId}/${key.keyId}`);
        cell(row, key.state);
        cell(row, key.pausedUntil ? dateTime(key.pausedUntil) : "");
        cell(row, key.lastRefusalReason ? `${key.lastRefusalReason} (${dateTime(key.lastRefusedAt)})` : "");
        return row;
      }),
    );
    replaceRows(
      byId("outbox-workers").tBodies[0],
      (outbox.workers || []).map((worker) => {
        const row = document.createElement("tr");
        cell(row, `${worker.worker} on ${worker.host}`);
        cell(row, `${worker.alive ? "" : "silent since "}${dateTime(worker.lastSeenAt)}`, worker.alive ? "" : "silent");
        cell(row, worker.inFlight === null ? "" : count(worker.inFlight), "num");
        cell(row, count(worker.claimed), "num");
        cell(row, worker.pausedUntil ? `${dateTime(worker.pausedUntil)} (${worker.pauseReason})` : "");
        return row;
      }),
    );
  }

  /** Reads the outbox now and again every few seconds; a failure shows as any other, and the next read tries again. */
  async function loadOutbox() {
    clearTimeout(outboxTimer);
    if (!memoryKey || view.dashboard.hidden) return;
    try {
      const parameters = new URLSearchParams();
      if (view.app.value) parameters.set("appId", view.app.value);
      renderOutbox(await api(`/api/v1/outbox?${parameters}`));
    } catch (error) {
      handleFailure(error);
    }
    outboxTimer = setTimeout(loadOutbox, outboxRefresh);
  }

  // MARK: Loading

  /** Offers the apps the key may see, when there is a choice; a key that may not list apps sees every app's rows. */
  async function loadApps() {
    let apps = [];
    try {
      apps = (await api("/api/v1/apps")).apps || [];
    } catch (error) {
      if (!(error instanceof APIError) || error.status !== 403) throw error;
    }
    const chosen = view.app.value;
    const options = apps.map((app) => {
      const option = document.createElement("option");
      option.value = app.id;
      option.textContent = app.name === app.id ? app.id : `${app.name} (${app.id})`;
      return option;
    });
    view.app.replaceChildren(view.app.options[0], ...options);
    view.app.value = apps.some((app) => app.id === chosen) ? chosen : "";
    view.appFilter.hidden = apps.length < 2;
  }

  async function load() {
    if (!memoryKey) {
      showLogin();
      return;
    }
    showDashboard();
    setState("loading");
    view.window.disabled = true;
    try {
      await loadApps();
      const option = view.window.selectedOptions[0];
      const parameters = new URLSearchParams({ window: option.value, buckets: option.dataset.buckets });
      if (view.app.value) parameters.set("appId", view.app.value);
      const stats = await api(`/api/v1/stats?${parameters}`);
      windowSince = stats.since;
      lastSeries = stats.series || [];
      renderTotals(stats);
      renderChart(lastSeries);
      renderReasons(stats);
      renderTypes(stats);
      await loadDeliveries(false);
      await loadOutbox();
      showError("");
      setState("ready");
    } catch (error) {
      handleFailure(error);
    } finally {
      view.window.disabled = false;
    }
  }

  view.keyForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = view.keyInput.value.trim();
    if (!key) return;
    memoryKey = key;
    storeKey(key);
    view.keyInput.value = "";
    load();
  });

  byId("forget").addEventListener("click", () => {
    forgetKey();
    replaceRows(byId("deliveries").tBodies[0], []);
    byId("chart").replaceChildren();
    showLogin("The API key was forgotten.");
  });

  byId("refresh").addEventListener("click", load);
  view.window.addEventListener("change", load);
  view.app.addEventListener("change", load);
  byId("history-close").addEventListener("click", () => {
    view.history.hidden = true;
  });

  view.filters.addEventListener("submit", (event) => {
    event.preventDefault();
    loadDeliveries(false).then(() => showError(""), handleFailure);
  });
  view.filters.addEventListener("reset", () => {
    // The form clears its fields after this event; list again once it has.
    setTimeout(() => loadDeliveries(false).then(() => showError(""), handleFailure), 0);
  });
  view.more.addEventListener("click", () => {
    loadDeliveries(true).catch(handleFailure);
  });

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (!view.dashboard.hidden) renderChart(lastSeries);
    }, 150);
  });

  load();
})();
