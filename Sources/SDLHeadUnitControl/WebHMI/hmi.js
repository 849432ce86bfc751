// The emulator's page. It reads the control API, follows GET /events, and plays the driver by
// calling the same routes a script would (see the README's control API). No framework: each
// render replaces the part of the page it owns.
"use strict";

const page = {
  selected: null, // the app whose screen is shown: the one in FULL unless the driver picks one
  display: { width: 800, height: 350 },
  screen: null, // the selected app's GET /apps/{id}/screen
  menuLevel: 0, // the sub-menu the open menu shows (0: the top)
  clock: null, // { seconds, counting, endSeconds, at } of the media clock
  video: null, // the video being decoded: { appID, stop() }
};

// MARK: Helpers

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const text = await response.text();
    throw new Error(`${method} ${path}: ${response.status} ${text}`);
  }
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : null;
}

const $ = (id) => document.getElementById(id);
const appPath = (appID) => `/apps/${encodeURIComponent(appID)}`;

// An element with attributes and children (strings become text).
function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

function button(label, action, attributes = {}) {
  const key = attributes["data-key"] || attributes["aria-label"] || label;
  const node = element("button", { type: "button", "data-key": key, ...attributes }, label);
  node.addEventListener("click", () => Promise.resolve(action()).catch(showError));
  return node;
}

// Replaces a container's children; the control that had the focus (by its data-key) keeps it,
// so a keyboard user does not lose their place when an event re-renders the page.
function replaceKeepingFocus(container, nodes) {
  const focused = container.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  container.replaceChildren(...nodes);
  if (focused) {
    const again = container.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
}

// Sets a node's text only when it changed (live regions would announce it again).
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function showError(error) {
  $("connection").textContent = String(error.message || error);
}

// A dynamic image the app uploaded, as a URL (static images have no file to show).
function imageURL(image, appID) {
  return image && image.imageType === "DYNAMIC" ? `${appPath(appID)}/files/${encodeURIComponent(image.value)}` : null;
}

function showImage(node, image, appID) {
  const url = imageURL(image, appID);
  node.hidden = !url;
  if (url && node.getAttribute("src") !== url) node.src = url;
}

// "#RRGGBB" of an RGBColor.
function color(rgb) {
  const hex = (value) => Number(value || 0).toString(16).padStart(2, "0");
  return rgb ? `#${hex(rgb.red)}${hex(rgb.green)}${hex(rgb.blue)}` : null;
}

// MARK: Apps

async function renderApps() {
  const apps = await api("GET", "/apps");
  $("no-apps").hidden = apps.length > 0;
  if (!apps.some((app) => app.appID === page.selected)) {
    page.selected = (apps.find((app) => app.hmiLevel === "FULL") || apps[0] || {}).appID || null;
  }
  replaceKeepingFocus($("apps"), apps.map((app) => {
    const path = appPath(app.appID);
    const icon = app.icon ? element("img", { src: app.icon, alt: "" }) : element("span", { class: "no-icon" });
    const name = button(app.name, () => { page.selected = app.appID; return refresh(); },
      { class: "app-name", "aria-label": `Show ${app.name}'s screen` });
    return element("li", { "aria-current": app.appID === page.selected ? "true" : "false", "data-app": app.appID },
      icon,
      element("div", {}, name, " ", element("span", { class: "level", text: `${app.hmiLevel} · ${app.systemContext}` })),
      element("div", { class: "actions" },
        button("Activate", () => { page.selected = app.appID; return api("POST", `${path}/activate`); }, { "aria-label": `Activate ${app.name}` }),
        button("Background", () => api("POST", `${path}/background`), { "aria-label": `Send ${app.name} to the background` }),
        button("Exit", () => api("POST", `${path}/exit`), { "aria-label": `Exit ${app.name}` })));
  }));
  const app = apps.find((candidate) => candidate.appID === page.selected);
  setText($("app-name"), app ? app.name : "");
}

// MARK: The screen

async function renderScreen() {
  const screenNode = $("screen");
  if (!page.selected) {
    page.screen = null;
    screenNode.hidden = true;
    stopVideo();
    return;
  }
  screenNode.hidden = false;
  const appID = page.selected;
  const screen = await api("GET", `${appPath(appID)}/screen`);
  if (appID !== page.selected) return; // the driver picked another app meanwhile
  page.screen = screen;
  renderColors(screen);
  const template = (screen.templateConfiguration || {}).template || "DEFAULT";
  setText($("template"), `${template} · ${screen.hmiLevel}`);
  const alignment = { LEFT_ALIGNED: "left", RIGHT_ALIGNED: "right", CENTERED: "center" }[screen.alignment] || "center";
  for (const key of ["mainField1", "mainField2", "mainField3", "mainField4", "mediaTrack"]) {
    setText($(key), typeof screen[key] === "string" ? screen[key] : "");
    $(key).style.textAlign = alignment;
  }
  showImage($("graphic"), screen.graphic, appID);
  showImage($("secondaryGraphic"), screen.secondaryGraphic, appID);
  renderClock(screen);
  renderManeuver(screen);
  replaceKeepingFocus($("softButtons"), softButtons(screen.softButtons, appID));
  renderOnTop(screen, appID);
  renderHardButtons(screen);
  renderVideo(screen, appID);
}

// The template's day or night colours, as the driver's night switch asks.
function renderColors(screen) {
  const template = screen.templateConfiguration || {};
  const scheme = ($("night").checked ? template.nightColorScheme : template.dayColorScheme) || {};
  const style = $("screen").style;
  for (const [property, value] of [["--background", scheme.backgroundColor], ["--primary", scheme.primaryColor], ["--secondary", scheme.secondaryColor]]) {
    if (value) style.setProperty(property, color(value));
    else style.removeProperty(property);
  }
}

// Soft buttons (on the screen, an alert or a scrollable message): a press goes to the app.
function softButtons(list, appID) {
  return (list || []).map((soft) => {
    const withText = soft.type !== "IMAGE" && soft.text;
    const url = soft.type !== "TEXT" ? imageURL(soft.image, appID) : null;
    const label = withText ? soft.text : (soft.image ? soft.image.value : `Button ${soft.softButtonID}`);
    const node = button(withText ? soft.text : "", () => api("POST", `${appPath(appID)}/softbuttons/${soft.softButtonID}/press`, { mode: pressMode() }),
      { class: soft.isHighlighted ? "highlighted" : null, "aria-label": soft.isHighlighted ? `${label} (highlighted)` : label,
        "data-key": `soft-${soft.softButtonID}`, "data-soft-button": soft.softButtonID, "data-highlighted": soft.isHighlighted ? "true" : "false" });
    if (url) node.prepend(element("img", { src: url, alt: "" }));
    return node;
  });
}

function pressMode() {
  return $("long-press").checked ? "LONG" : "SHORT";
}

// MARK: Media clock

// The head unit runs the clock (mediaClockReading); the page counts on from that reading.
function renderClock(screen) {
  const reading = screen.mediaClockReading;
  page.clock = reading ? { ...reading, at: performance.now() } : null;
  tickClock();
}

function tickClock() {
  const clock = page.clock;
  if (!clock) {
    $("media-clock").textContent = "";
    return;
  }
  const elapsed = Math.floor((performance.now() - clock.at) / 1000);
  let seconds = clock.seconds;
  if (clock.counting === "UP") seconds = Math.min(seconds + elapsed, Math.max(clock.endSeconds ?? Infinity, clock.seconds));
  if (clock.counting === "DOWN") seconds = Math.max(seconds - elapsed, Math.min(clock.endSeconds ?? 0, clock.seconds));
  const two = (value) => String(value).padStart(2, "0");
  const hours = Math.floor(seconds / 3600);
  const text = `${hours ? `${hours}:` : ""}${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  setText($("media-clock"), clock.counting === "PAUSED" ? `${text} ❚❚` : text);
}

// MARK: Turn by turn

function renderManeuver(screen) {
  const maneuver = (screen.turnByTurn || {}).maneuver || {};
  const parts = [maneuver.navigationText1, maneuver.navigationText2, maneuver.eta, maneuver.totalDistance].filter(Boolean);
  $("maneuver").hidden = parts.length === 0;
  setText($("maneuver"), parts.join(" · "));
}

// MARK: What is on top

// Drawn again only when what it shows changed, so a slider being dragged or a key being typed
// is not reset by an unrelated event; focus moves in when it opens and back to Menu when it closes.
let onTopShown = null;
function renderOnTop(screen, appID) {
  const onTop = screen.onTop;
  const box = $("on-top");
  if (!onTop) {
    const wasOpen = !box.hidden;
    box.hidden = true;
    onTopShown = null;
    page.menuLevel = 0;
    if (wasOpen && box.contains(document.activeElement)) $("menu-button").focus();
    return;
  }
  if (onTop.kind === "menu" && page.menuLevel && !screen.menu.subMenus.some((sub) => sub.menuID === page.menuLevel)) page.menuLevel = 0;
  const shows = JSON.stringify([appID, onTop, page.menuLevel, onTop.kind === "menu" ? screen.menu : screen.choiceSets, (screen.globalProperties || {}).keyboardProperties]);
  if (shows === onTopShown) return;
  const opening = onTopShown === null;
  onTopShown = shows;
  const render = { menu: renderMenu, performInteraction: renderChoices, slider: renderSlider, scrollableMessage: renderMessage,
    alert: renderAlert, subtleAlert: renderAlert, audioPassThru: renderAudioPassThru }[onTop.kind];
  const [title, ...body] = render(screen, appID, onTop.request || {}, onTop);
  setText($("on-top-title"), title);
  replaceKeepingFocus($("on-top-body"), body);
  box.hidden = false;
  if (opening || !box.contains(document.activeElement)) {
    const first = box.querySelector("input, button");
    if (first && (opening || document.activeElement === document.body)) first.focus();
  }
}

// The menu moves between levels locally: draw it again from the latest screen.
function showMenuLevel(level) {
  page.menuLevel = level;
  onTopShown = null;
  if (page.screen && page.selected) renderOnTop(page.screen, page.selected);
}

// The head unit learns which level the driver sees (with dynamic menus it then asks the app for
// a submenu's cells and the icons it lacks).
function openSubmenu(appID, menuID) {
  showMenuLevel(menuID);
  api("POST", `${appPath(appID)}/menu/submenus/${menuID}/open`).catch(showError);
}

const answer = (appID, body) => api("POST", `${appPath(appID)}/interaction`, body);

function renderMenu(screen, appID) {
  const menu = screen.menu || { subMenus: [], commands: [] };
  const level = page.menuLevel;
  const parent = (item) => item.parentID || (item.menuParams && item.menuParams.parentID) || 0;
  const current = menu.subMenus.find((sub) => sub.menuID === level);
  const items = [
    ...menu.subMenus.filter((sub) => parent(sub) === level).map((sub) =>
      element("li", {}, button(`${sub.menuName} ›`, () => openSubmenu(appID, sub.menuID), { "data-submenu": sub.menuID }))),
    // Commands with only voice commands have no menu entry.
    ...menu.commands.filter((command) => command.menuParams && parent(command) === level).map((command) =>
      element("li", {}, button(command.menuParams.menuName, () => api("POST", `${appPath(appID)}/commands/${command.cmdID}/select`), { "data-command": command.cmdID }))),
  ];
  const title = current ? current.menuName : ((screen.globalProperties || {}).menuTitle || "Menu");
  return [title, element("ul", { "aria-label": title }, ...items),
    element("div", { class: "row" },
      current ? button("Back", () => openSubmenu(appID, parent(current))) : null,
      button("Close menu", () => api("POST", `${appPath(appID)}/menu/close`)))];
}

function renderChoices(screen, appID, request, onTop) {
  if (request.interactionLayout === "KEYBOARD") return renderKeyboard(screen, appID, request, onTop);
  const setIDs = request.interactionChoiceSetIDList || [];
  const choices = (screen.choiceSets || []).filter((set) => setIDs.includes(set.interactionChoiceSetID)).flatMap((set) => set.choiceSet || []);
  const byVoice = request.interactionMode !== "MANUAL_ONLY";
  const byTouch = request.interactionMode !== "VR_ONLY";
  // LIST_WITH_SEARCH / ICON_WITH_SEARCH: the search field above the cells, which the HMI filters
  // by the head unit's entry; Enter submits the search text itself.
  const searchable = /_WITH_SEARCH$/.test(request.interactionLayout || "");
  const entry = (onTop.keyboardEntry || "").toLowerCase();
  const shown = searchable ? choices.filter((choice) => choice.menuName.toLowerCase().includes(entry)) : choices;
  const items = shown.map((choice) => element("li", { class: "row" },
    byTouch ? button(choice.menuName, () => answer(appID, { choiceID: choice.choiceID }), { "data-choice": choice.choiceID }) : element("span", { text: choice.menuName }),
    byVoice && (choice.vrCommands || []).length ? button(`Say “${choice.vrCommands[0]}”`, () => answer(appID, { choiceID: choice.choiceID, triggerSource: "VR" }), { "data-voice-choice": choice.choiceID, "aria-label": `Say ${choice.vrCommands[0]}` }) : null));
  return [request.initialText || "Choose", ...(searchable ? keyboardField(screen, appID, onTop, "Search") : []), element("ul", {}, ...items),
    element("div", { class: "row" }, button("Cancel", () => answer(appID, { cancel: true })))];
}

// The keyboard: each key goes to the head unit, which sends KEYPRESS to the app; Enter submits
// the entry (ENTRY_SUBMITTED, then the interaction's answer). Keys and Enter go out in order,
// one at a time; the field shows the head unit's entry once no key is on its way.
let keys = Promise.resolve();
let keysInFlight = 0;
function sendKey(body, path) {
  keysInFlight++;
  keys = keys.then(() => api("POST", path, body)).catch(showError).finally(() => { keysInFlight--; });
}

function renderKeyboard(screen, appID, request, onTop) {
  return [request.initialText || "Keyboard", ...keyboardField(screen, appID, onTop, "Keyboard entry"),
    element("div", { class: "row" }, button("Cancel", () => answer(appID, { cancel: true })))];
}

// The entry field with its Enter button, and the app's autocomplete suggestions.
function keyboardField(screen, appID, onTop, label) {
  const properties = (screen.globalProperties || {}).keyboardProperties || {};
  // The same field across re-renders while the keyboard is up, so typing goes on undisturbed.
  const existing = $("keyboard-input");
  const input = existing || element("input", { id: "keyboard-input", type: "text", autocomplete: "off", "aria-label": label, "data-key": "keyboard" });
  input.setAttribute("aria-label", label); // a search field after a keyboard, or the reverse
  if (keysInFlight === 0) input.value = onTop.keyboardEntry || "";
  const submit = () => sendKey({ text: input.value }, `${appPath(page.selected)}/interaction`);
  if (!existing) {
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        submit();
      } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault(); // the head unit's entry is what shows
        input.value += event.key;
        sendKey({ type: event.key }, `${appPath(page.selected)}/keyboard`);
      }
    });
    // The head unit's keyboard only appends: deleting, pasting or composing here would not reach it.
    input.addEventListener("beforeinput", (event) => event.preventDefault());
  }
  const suggestions = (properties.autoCompleteList || []).map((text) => button(text, () => answer(appID, { text })));
  return [element("div", { class: "row" }, input, button("Enter", submit)),
    element("div", { class: "row", role: "group", "aria-label": "Suggestions" }, ...suggestions)];
}

function renderSlider(screen, appID, request) {
  const ticks = request.numTicks || 1;
  const footers = request.sliderFooter || [];
  const input = element("input", { id: "slider-input", type: "range", min: 1, max: ticks, value: request.position || 1, "aria-label": request.sliderHeader || "Slider" });
  const footer = element("output", { for: "slider-input" });
  const showFooter = () => { footer.textContent = footers.length > 1 ? (footers[input.value - 1] || "") : (footers[0] || input.value); };
  input.addEventListener("input", showFooter);
  showFooter();
  return [request.sliderHeader || "Slider",
    element("div", { class: "row" }, input, footer),
    element("div", { class: "row" },
      button("OK", () => answer(appID, { sliderPosition: Number(input.value) }), { id: "slider-ok" }),
      button("Cancel", () => answer(appID, { cancel: true })))];
}

function renderMessage(screen, appID, request) {
  return ["Message", element("p", { class: "message", text: request.scrollableMessageBody || "" }),
    element("div", { class: "row" }, ...softButtons(request.softButtons, appID), button("Close", () => answer(appID, { dismiss: true })))];
}

function renderAlert(screen, appID, request, onTop) {
  const lines = [request.alertText1, request.alertText2, request.alertText3].filter(Boolean).map((text) => element("p", { text }));
  const icon = imageURL(request.alertIcon, appID);
  const subtle = onTop.kind === "subtleAlert";
  return [subtle ? "Notification" : "Alert", icon ? element("img", { src: icon, alt: "Alert icon" }) : null, ...lines,
    element("div", { class: "row" }, ...softButtons(request.softButtons, appID),
      subtle ? button("Open the app", () => api("POST", `${appPath(appID)}/subtle-alert/press`)) : null,
      button("Dismiss", () => answer(appID, { dismiss: true })))];
}

function renderAudioPassThru(screen, appID, request) {
  const lines = [request.audioPassThruDisplayText1, request.audioPassThruDisplayText2].filter(Boolean).map((text) => element("p", { text }));
  return ["Listening…", ...lines,
    element("div", { class: "row" }, button("Done", () => answer(appID, { dismiss: true })), button("Cancel", () => answer(appID, { cancel: true })))];
}

// MARK: Buttons on the wheel and the console

const hardButtons = ["OK", "PLAY_PAUSE", "SEEKLEFT", "SEEKRIGHT", "TUNEUP", "TUNEDOWN",
  ...Array.from({ length: 10 }, (_, index) => `PRESET_${index}`)];

function renderHardButtons(screen) {
  const subscribed = new Set(screen.subscribedButtons || []);
  const names = [...hardButtons, ...[...subscribed].filter((name) => !hardButtons.includes(name))];
  replaceKeepingFocus($("hard-buttons"), names.map((name) =>
    button(name, () => api("POST", `/buttons/${name}/press`, { mode: pressMode() }),
      { class: subscribed.has(name) ? "subscribed" : null, "aria-label": `${name}${subscribed.has(name) ? " (the app listens)" : ""}`, "data-button": name })));
}

// MARK: Video and touch

function renderVideo(screen, appID) {
  const streaming = (screen.streaming || {}).video;
  $("video-area").hidden = !streaming;
  if (!streaming) {
    stopVideo();
    return;
  }
  if (!page.video || page.video.appID !== appID) startVideo(appID, screen.streaming.videoCodec);
  // The canvas has the display's size until the first frame gives the video's.
  const canvas = $("video");
  const width = canvas.width;
  const height = canvas.height;
  $("haptics").replaceChildren(...(screen.hapticRects || []).map((area) => {
    const rect = area.rect || {};
    return element("div", { title: `haptic area ${area.id}`,
      style: `left:${(100 * rect.x) / width}%;top:${(100 * rect.y) / height}%;width:${(100 * rect.width) / width}%;height:${(100 * rect.height) / height}%` });
  }));
}

function stopVideo() {
  if (page.video) page.video.stop();
  page.video = null;
  $("stream-stats").hidden = true;
}

// Reads GET /apps/{id}/video (H.264 Annex-B) and decodes it with WebCodecs onto the canvas.
function startVideo(appID, codec) {
  stopVideo();
  const controller = new AbortController();
  const statistics = setInterval(() => showStreamStatistics(appID), 1000);
  page.video = { appID, stop() { controller.abort(); clearInterval(statistics); } };
  const note = $("video-note");
  if (typeof VideoDecoder === "undefined") {
    note.textContent = "This browser cannot decode video (no WebCodecs): the stream's statistics are below.";
    return;
  }
  if (codec && codec !== "H264") {
    note.textContent = `The page decodes H.264; this stream is ${codec}: its statistics are below.`;
    return;
  }
  note.textContent = "waiting for a key frame…";
  const canvas = $("video");
  const context = canvas.getContext("2d");
  let decoder = null;
  let frames = 0;
  const decoded = (frame) => {
    if (canvas.width !== frame.displayWidth || canvas.height !== frame.displayHeight) {
      canvas.width = frame.displayWidth;
      canvas.height = frame.displayHeight;
      if (page.screen) renderVideo(page.screen, appID); // the haptic areas in the new size
    }
    context.drawImage(frame, 0, 0);
    frame.close();
    note.textContent = "";
  };
  const failed = (error) => { note.textContent = `decoder: ${error.message}; waiting for the next key frame`; decoder = null; };
  let configured = null; // the codec string the decoder was configured with
  const accessUnits = new AccessUnitSplitter((unit) => {
    // A key frame with new parameters (a restarted stream) needs a new decoder.
    if (decoder && unit.key && unit.codec !== configured) {
      decoder.close();
      decoder = null;
    }
    if (!decoder) {
      if (!unit.key || !unit.codec) return; // wait for a key frame after its SPS
      decoder = new VideoDecoder({ output: decoded, error: failed });
      decoder.configure({ codec: unit.codec, optimizeForLatency: true });
      configured = unit.codec;
    }
    try {
      if (decoder.state === "configured") {
        decoder.decode(new EncodedVideoChunk({ type: unit.key ? "key" : "delta", timestamp: frames++ * 33333, data: unit.bytes }));
      }
    } catch (error) {
      failed(error);
    }
  });
  fetch(`${appPath(appID)}/video`, { signal: controller.signal }).then(async (response) => {
    const reader = response.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      accessUnits.push(value);
    }
  }).catch((error) => { if (error.name !== "AbortError") showError(error); });
}

// Splits an Annex-B byte stream into H.264 access units: a picture's slices with the parameter
// sets before them. A unit is complete when the next picture's first slice starts.
class AccessUnitSplitter {
  constructor(onUnit) {
    this.onUnit = onUnit;
    this.buffer = new Uint8Array(0);
    this.scanned = 0; // bytes of the buffer already searched for start codes
    this.synced = false; // the buffer begins with a start code
    this.pending = []; // NAL units of the picture being gathered
    this.codec = null; // "avc1.PPCCLL" from the last SPS
  }

  push(bytes) {
    const joined = new Uint8Array(this.buffer.length + bytes.length);
    joined.set(this.buffer);
    joined.set(bytes, this.buffer.length);
    // Every NAL unit but the last is whole; the last may go on in the next chunk. The search
    // starts where the last one stopped (less a start code's length), so each byte is seen once.
    const starts = [];
    if (this.synced) starts.push(3); // the buffer begins with the last start code
    for (let i = Math.max(this.synced ? 3 : 0, this.scanned - 2); i + 2 < joined.length; i++) {
      if (joined[i] === 0 && joined[i + 1] === 0 && joined[i + 2] === 1) starts.push(i + 3);
    }
    for (let n = 0; n + 1 < starts.length; n++) {
      let end = starts[n + 1] - 3;
      while (end > starts[n] && joined[end - 1] === 0) end--; // a 4-byte start code's zero
      this.nal(joined.subarray(starts[n], end));
    }
    const last = starts.length ? starts[starts.length - 1] : -1;
    this.buffer = last >= 0 ? joined.slice(last - 3) : joined;
    this.synced = this.synced || last >= 0;
    this.scanned = this.buffer.length;
    // A stream that is not Annex-B would grow the buffer for ever: drop it.
    if (this.buffer.length > 8 << 20) {
      this.buffer = new Uint8Array(0);
      this.scanned = 0;
      this.synced = false;
    }
    // The NAL unit that has begun tells whether the gathered picture is complete: show it now
    // instead of one frame late.
    if (last >= 0 && joined.length - last >= 2 && this.startsPicture(joined.subarray(last))) this.flushPicture();
  }

  // Whether a NAL unit (its first bytes) begins a new access unit: SEI, SPS, PPS, an access
  // unit delimiter, or a picture's first slice (first_mb_in_slice 0, ue(v) "1").
  startsPicture(unit) {
    const type = unit[0] & 0x1f;
    return (type >= 6 && type <= 9) || ((type === 1 || type === 5) && (unit[1] & 0x80) !== 0);
  }

  flushPicture() {
    if (this.pending.some((nal) => (nal[0] & 0x1f) === 1 || (nal[0] & 0x1f) === 5)) this.flush();
  }

  nal(unit) {
    if (!unit.length) return;
    const type = unit[0] & 0x1f;
    if (unit.length >= 2 && this.startsPicture(unit)) this.flushPicture();
    if (type === 7 && unit.length > 3) {
      const hex = (value) => value.toString(16).padStart(2, "0");
      this.codec = `avc1.${hex(unit[1])}${hex(unit[2])}${hex(unit[3])}`;
    }
    this.pending.push(unit);
  }

  flush() {
    const units = this.pending;
    this.pending = [];
    const size = units.reduce((sum, nal) => sum + 4 + nal.length, 0);
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const nal of units) {
      bytes.set([0, 0, 0, 1], offset);
      bytes.set(nal, offset + 4);
      offset += 4 + nal.length;
    }
    const key = units.some((nal) => (nal[0] & 0x1f) === 5);
    this.onUnit({ bytes, key, codec: this.codec });
  }
}

async function showStreamStatistics(appID) {
  const streams = await api("GET", `${appPath(appID)}/streams`).catch(() => ({}));
  const parts = Object.entries(streams).map(([service, stats]) =>
    `${service}: ${stats.frames} frames, ${stats.keyframes} key frames, ${stats.fps.toFixed(1)} fps, ${Math.round(stats.kbps)} kbit/s, ${stats.dropped} dropped`);
  $("stream-stats").hidden = parts.length === 0;
  $("stream-stats").textContent = parts.join(" · ");
}

// Pointers on the video become OnTouchEvent: BEGIN, MOVE (all fingers), END, in the video's
// pixels. The wheel pinches (the control API's pinch gesture).
function setUpTouch() {
  const canvas = $("video");
  const fingers = new Map(); // pointerId -> { id, x, y }
  let moveQueued = null; // the animation frame that sends the next MOVE
  let touches = Promise.resolve(); // BEGIN, MOVE and END go out in order
  // In the video's pixels, kept on the screen (a drag may leave the canvas while captured).
  const point = (event) => {
    const rect = canvas.getBoundingClientRect();
    const clamp = (value, size) => Math.min(size - 1, Math.max(0, Math.round(value)));
    return { x: clamp(((event.clientX - rect.left) * canvas.width) / rect.width, canvas.width),
      y: clamp(((event.clientY - rect.top) * canvas.height) / rect.height, canvas.height) };
  };
  const send = (type, points) => {
    const appID = page.selected;
    if (appID) touches = touches.then(() => api("POST", `${appPath(appID)}/touch`, { type, points })).catch(showError);
  };
  canvas.addEventListener("pointerdown", (event) => {
    if (fingers.size >= 2) return;
    canvas.setPointerCapture(event.pointerId);
    const used = new Set([...fingers.values()].map((finger) => finger.id));
    const finger = { id: used.has(0) ? 1 : 0, ...point(event) };
    fingers.set(event.pointerId, finger);
    send("BEGIN", [finger]);
  });
  canvas.addEventListener("pointermove", (event) => {
    const finger = fingers.get(event.pointerId);
    if (!finger) return;
    Object.assign(finger, point(event));
    if (moveQueued !== null) return;
    // One MOVE per frame, with every finger.
    moveQueued = requestAnimationFrame(() => {
      moveQueued = null;
      if (fingers.size) send("MOVE", [...fingers.values()].map((each) => ({ ...each })));
    });
  });
  const lift = (type) => (event) => {
    const finger = fingers.get(event.pointerId);
    if (!finger) return;
    fingers.delete(event.pointerId);
    if (moveQueued !== null) {
      // The last MOVE goes before the END, not after it.
      cancelAnimationFrame(moveQueued);
      moveQueued = null;
      send("MOVE", [...fingers.values(), finger].map((each) => ({ ...each })));
    }
    send(type, [{ ...finger, ...point(event) }]);
  };
  canvas.addEventListener("pointerup", lift("END"));
  canvas.addEventListener("pointercancel", lift("CANCEL"));
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    const { x, y } = point(event);
    const to = event.deltaY < 0 ? 150 : 70;
    if (page.selected) api("POST", `${appPath(page.selected)}/gestures`, { gesture: "pinch", x, y, from: 100, to }).catch(showError);
  }, { passive: false });
  // Keyboard: Enter or Space taps the video's centre.
  canvas.tabIndex = 0;
  canvas.addEventListener("keydown", (event) => {
    if ((event.key === "Enter" || event.key === " ") && page.selected) {
      event.preventDefault();
      const x = Math.round(canvas.width / 2);
      const y = Math.round(canvas.height / 2);
      api("POST", `${appPath(page.selected)}/gestures`, { gesture: "tap", x, y }).catch(showError);
    }
  });
}

// MARK: The car

// Fields the driver changed and has not sent yet: the car's values do not overwrite them.
const edited = new Set();

async function renderVehicle() {
  const data = await api("GET", "/vehicle-data");
  const gps = data.gps || {};
  const values = { speed: data.speed, rpm: data.rpm, fuelLevel: data.fuelLevel, prndl: data.prndl,
    latitude: gps.latitudeDegrees, longitude: gps.longitudeDegrees };
  for (const [id, value] of Object.entries(values)) {
    if (value !== undefined && !edited.has(id)) $(id).value = value;
  }
  page.gps = gps;
}

function setUpCar() {
  const form = $("vehicle-form");
  form.addEventListener("input", (event) => edited.add(event.target.id));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    // Only the fields that hold a value; an emptied field is left as the car has it.
    const body = {};
    const number = (id) => ($(id).value === "" ? undefined : Number($(id).value));
    if (number("speed") !== undefined) body.speed = number("speed");
    if (number("rpm") !== undefined) body.rpm = Math.round(number("rpm"));
    if (number("fuelLevel") !== undefined) body.fuelLevel = number("fuelLevel");
    if ($("prndl").value) body.prndl = $("prndl").value;
    if (number("latitude") !== undefined && number("longitude") !== undefined) {
      body.gps = { ...(page.gps || {}), latitudeDegrees: number("latitude"), longitudeDegrees: number("longitude") };
    }
    edited.clear();
    api("PUT", "/vehicle-data", body).catch(showError);
  });
  $("distraction").addEventListener("change", (event) => {
    api("PUT", "/driver-distraction", { state: event.target.checked ? "DD_ON" : "DD_OFF" }).catch(showError);
  });
}

// MARK: Live

async function refresh() {
  try {
    await renderApps();
    await renderScreen();
  } catch (error) {
    showError(error);
  }
}

// Events often come in bursts (a request, then its HMI change): one refresh after the burst,
// and one more if events arrived while it ran.
let refreshing = null;
let again = false;
function refreshSoon() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = refresh().finally(() => {
    refreshing = null;
    if (again) {
      again = false;
      refreshSoon();
    }
  });
}

function follow() {
  const events = new EventSource("/events");
  events.onopen = () => {
    $("connection").textContent = "live";
    refreshSoon();
    renderVehicle().catch(showError);
  };
  events.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.event === "vehicleDataChanged") renderVehicle().catch(showError);
    if (event.event === "driverDistractionChanged") $("distraction").checked = event.on;
    // The screen follows the app in FULL, as on a head unit.
    if (event.event === "hmiLevelChanged" && event.hmiLevel === "FULL") page.selected = event.appID;
    refreshSoon();
  };
  events.onerror = () => { $("connection").textContent = "reconnecting…"; };
}

async function start() {
  const display = await api("GET", "/display");
  page.display = display;
  $("display-name").textContent = `${display.name}, ${display.width}×${display.height}`;
  $("screen").style.setProperty("--width", display.width);
  $("screen").style.setProperty("--height", display.height);
  // Until a video frame gives its own size, touches and haptic areas use the display's.
  $("video").width = display.width;
  $("video").height = display.height;
  $("distraction").checked = display.driverDistraction;
  $("menu-button").addEventListener("click", () => {
    if (!page.selected) return;
    page.menuLevel = 0;
    api("POST", `${appPath(page.selected)}/menu/open`).catch(showError);
  });
  $("night").addEventListener("change", () => page.screen && renderColors(page.screen));
  setUpCar();
  setUpTouch();
  setInterval(tickClock, 250);
  follow();
}

start().catch(showError);
