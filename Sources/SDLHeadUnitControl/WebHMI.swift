/// The emulator's web page, served from the control port at `/`: the apps and the active app's
/// screen, updated live from `GET /events`, with the controls a driver has. Embedded in the
/// binary as plain HTML, CSS and JavaScript (no framework, no CDN, no build step); it uses only
/// the control API's routes, so anything the page does a script can do with curl.
///
/// First version: the app list (activate, exit), the main window's text fields with their
/// alignment, its graphics, soft buttons (pressed with a click), the turn-by-turn maneuver,
/// vehicle speed and driver distraction.
enum WebHMI {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>SDL head unit</title>
      <link rel="stylesheet" href="/hmi.css">
    </head>
    <body>
      <header><h1>SDL head unit</h1><p id="connection" role="status">connecting…</p></header>
      <main>
        <section aria-labelledby="apps-title">
          <h2 id="apps-title">Apps</h2>
          <ul id="apps"></ul>
          <p id="no-apps">No app is registered. Start one against this head unit.</p>
        </section>
        <section aria-labelledby="screen-title">
          <h2 id="screen-title">Screen</h2>
          <div id="screen" class="screen" aria-live="polite">
            <p class="template" id="template"></p>
            <div class="fields">
              <p id="mainField1"></p><p id="mainField2"></p><p id="mainField3"></p><p id="mainField4"></p>
            </div>
            <div class="graphics"><img id="graphic" alt="graphic" hidden><img id="secondaryGraphic" alt="secondary graphic" hidden></div>
            <p id="maneuver" class="maneuver" hidden></p>
            <div id="softButtons" class="soft-buttons" role="group" aria-label="Soft buttons"></div>
          </div>
        </section>
        <section aria-labelledby="car-title">
          <h2 id="car-title">Car</h2>
          <form id="speed-form">
            <label for="speed">Speed (km/h)</label>
            <input id="speed" type="number" min="0" max="700" step="1" value="0">
            <button type="submit">Set speed</button>
          </form>
          <label><input id="distraction" type="checkbox"> Driver distraction (the car moves)</label>
        </section>
      </main>
      <script src="/hmi.js"></script>
    </body>
    </html>
    """#

    static let css = #"""
    body { font-family: system-ui, sans-serif; margin: 1rem; background: #f4f4f4; color: #111; }
    header { display: flex; align-items: baseline; gap: 1rem; }
    main { display: grid; grid-template-columns: minmax(14rem, 1fr) 3fr; gap: 1rem; }
    main > section:last-child { grid-column: 1 / -1; }
    section { background: #fff; border-radius: 6px; padding: 0.5rem 1rem; }
    #apps { list-style: none; padding: 0; }
    #apps li { display: flex; gap: 0.5rem; align-items: center; margin: 0.25rem 0; }
    #apps li[aria-current="true"] { font-weight: bold; }
    /* The car screen: 800x350 like SDL Core's default display, scaled to the page. */
    .screen { aspect-ratio: 800 / 350; max-width: 800px; background: #101820; color: #f0f0f0; border-radius: 8px;
              padding: 1rem; box-sizing: border-box; display: grid; grid-template-rows: auto 1fr auto auto; }
    .screen.night { background: #000; }
    .template { font-size: 0.8rem; opacity: 0.6; margin: 0; }
    .fields p { margin: 0.2rem 0; font-size: 1.3rem; min-height: 1.5rem; }
    .graphics img { max-height: 6rem; margin-right: 0.5rem; }
    .maneuver { background: #234; padding: 0.3rem; border-radius: 4px; }
    .soft-buttons { display: flex; gap: 0.5rem; flex-wrap: wrap; }
    .soft-buttons button { min-width: 6rem; min-height: 2.5rem; font-size: 1rem; }
    .soft-buttons button[aria-pressed="true"] { outline: 3px solid #6cf; }
    """#

    static let javascript = #"""
    // The emulator's page: reads the control API, follows GET /events, and plays the driver by
    // calling the same routes a script would.
    "use strict";

    let selected = null; // the app whose screen is shown: the one in FULL unless the driver picks one

    async function api(method, path, body) {
      const response = await fetch(path, {
        method,
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
      const type = response.headers.get("Content-Type") || "";
      return type.includes("json") ? response.json() : null;
    }

    function button(label, action, name) {
      const element = document.createElement("button");
      element.type = "button";
      element.textContent = label;
      if (name) element.setAttribute("aria-label", name);
      element.addEventListener("click", () => action().catch(showError));
      return element;
    }

    function showError(error) {
      document.getElementById("connection").textContent = String(error);
    }

    async function renderApps() {
      const apps = await api("GET", "/apps");
      const list = document.getElementById("apps");
      list.replaceChildren();
      document.getElementById("no-apps").hidden = apps.length > 0;
      if (!apps.some((app) => app.appID === selected)) {
        selected = (apps.find((app) => app.hmiLevel === "FULL") || apps[0] || {}).appID || null;
      }
      for (const app of apps) {
        const item = document.createElement("li");
        if (app.appID === selected) item.setAttribute("aria-current", "true");
        const name = button(`${app.name} (${app.hmiLevel})`, async () => { selected = app.appID; await refresh(); }, `Show ${app.name}'s screen`);
        item.append(name,
          button("Activate", () => api("POST", `/apps/${encodeURIComponent(app.appID)}/activate`), `Activate ${app.name}`),
          button("Exit", () => api("POST", `/apps/${encodeURIComponent(app.appID)}/exit`), `Exit ${app.name}`));
        list.append(item);
      }
    }

    // A Show field's text, or nothing.
    function text(screen, key) {
      return typeof screen[key] === "string" ? screen[key] : "";
    }

    function showImage(element, image, appID) {
      if (image && image.imageType === "DYNAMIC") {
        element.src = `/apps/${encodeURIComponent(appID)}/files/${encodeURIComponent(image.value)}`;
        element.hidden = false;
      } else {
        element.hidden = true;
      }
    }

    async function renderScreen() {
      const screenElement = document.getElementById("screen");
      if (!selected) {
        screenElement.hidden = true;
        return;
      }
      screenElement.hidden = false;
      const screen = await api("GET", `/apps/${encodeURIComponent(selected)}/screen`);
      const template = (screen.templateConfiguration || {}).template || "DEFAULT";
      document.getElementById("template").textContent = `${template} · ${screen.hmiLevel} · ${screen.systemContext}`;
      const alignment = { LEFT_ALIGNED: "left", RIGHT_ALIGNED: "right", CENTERED: "center" }[screen.textAlignment] || "center";
      for (const key of ["mainField1", "mainField2", "mainField3", "mainField4"]) {
        const field = document.getElementById(key);
        field.textContent = text(screen, key);
        field.style.textAlign = alignment;
      }
      showImage(document.getElementById("graphic"), screen.graphic, selected);
      showImage(document.getElementById("secondaryGraphic"), screen.secondaryGraphic, selected);
      const maneuver = (screen.turnByTurn || {}).maneuver || {};
      const maneuverElement = document.getElementById("maneuver");
      maneuverElement.hidden = !maneuver.navigationText1;
      maneuverElement.textContent = [maneuver.navigationText1, maneuver.navigationText2].filter(Boolean).join(" · ");
      const buttons = document.getElementById("softButtons");
      buttons.replaceChildren();
      const appID = selected;
      for (const soft of screen.softButtons || []) {
        const label = soft.text || (soft.image ? soft.image.value : `Button ${soft.softButtonID}`);
        const element = button(label, () => api("POST", `/apps/${encodeURIComponent(appID)}/softbuttons/${soft.softButtonID}/press`, { mode: "SHORT" }));
        element.setAttribute("aria-pressed", soft.isHighlighted ? "true" : "false");
        buttons.append(element);
      }
    }

    async function refresh() {
      try {
        await renderApps();
        await renderScreen();
      } catch (error) {
        showError(error);
      }
    }

    // Several events often come together (a request and its HMI change): one refresh for them.
    let pending = null;
    function refreshSoon() {
      if (pending) return;
      pending = setTimeout(() => { pending = null; refresh(); }, 10);
    }

    function follow() {
      const events = new EventSource("/events");
      events.onopen = () => { document.getElementById("connection").textContent = "live"; refresh(); };
      events.onmessage = refreshSoon;
      events.onerror = () => { document.getElementById("connection").textContent = "reconnecting…"; };
    }

    document.getElementById("speed-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const speed = Number(document.getElementById("speed").value);
      api("PUT", "/vehicle-data", { speed }).catch(showError);
    });
    document.getElementById("distraction").addEventListener("change", (event) => {
      api("PUT", "/driver-distraction", { state: event.target.checked ? "DD_ON" : "DD_OFF" }).catch(showError);
    });

    follow();
    """#
}
