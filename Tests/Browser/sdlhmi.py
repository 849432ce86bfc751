#!/usr/bin/env python3
"""SDL's own HMI (sdl_hmi 5.8.0, released with SDL Core 8.2) as the emulator's screen, in a real
headless Chromium (selenium + chromedriver).

    sdlhmi.py test BIN_DIR SDL_HMI_DIR [SCREENSHOT_DIR]

Starts `sdl headunit --hmi-port` and opens sdl_hmi's index.html from the file system (a copy in a
temporary folder whose Flags.js dials the emulator's HMI port instead of 8087), clicks its
warning's OK, runs `sdl-example --tour screen --stay`, and checks that the app appears in
sdl_hmi's app list, that a click activates it, that its text, graphic and soft buttons render on
sdl_hmi's screen, and that a soft button and a menu command chosen there reach the app (the
emulator's record of what it sent the app, through its control API). Screenshots of each step go
to SCREENSHOT_DIR. Every wait has a time limit.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import ElementClickInterceptedException
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webhmi import LIMIT, Process, console_errors, free_port, wait, wait_for_http  # noqa: E402

APP_ID = "sdlhmi-tour"


def sdl_hmi_copy(source, port):
    """sdl_hmi in a temporary folder, dialing ws://127.0.0.1:PORT (its Flags.js says 8087)."""
    folder = tempfile.mkdtemp(prefix="sdl_hmi-")
    shutil.copytree(source, folder, dirs_exist_ok=True)
    flags = os.path.join(folder, "app", "Flags.js")
    with open(flags) as file:
        text = file.read()
    patched, count = re.subn(r"WEBSOCKET_URL: 'ws://127\.0\.0\.1:8087'", f"WEBSOCKET_URL: 'ws://127.0.0.1:{port}'", text)
    assert count == 1, "sdl_hmi's Flags.js no longer names ws://127.0.0.1:8087"
    with open(flags, "w") as file:
        file.write(patched)
    return folder


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900",
        # sdl_hmi is opened from the file system and loads the app's images by path.
        "--allow-file-access-from-files",
    ]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def sent_to_app(control_url, function):
    """The notifications of `function` the emulator sent the app, as recorded."""
    with urllib.request.urlopen(f"{control_url}/apps/{APP_ID}/log", timeout=5) as response:
        records = [json.loads(line) for line in response.read().decode().splitlines() if line]
    return [record for record in records if record.get("direction") == "out" and record.get("name") == function]


def click_text(driver, selector, text, what):
    """Clicks the visible element under `selector` whose text contains `text`."""
    def clicked(d):
        for element in d.find_elements(By.CSS_SELECTOR, selector):
            if element.is_displayed() and text in element.text:
                try:
                    element.click()
                except ElementClickInterceptedException:
                    # sdl_hmi's own popups ("Was found 1 apps") cover the screen for a moment.
                    return False
                return True
        return False
    wait(driver, clicked, what)


def test(bin_dir, sdl_hmi_dir, screenshots):
    os.makedirs(screenshots, exist_ok=True)
    port, hmi_port, control = free_port(), free_port(), free_port()
    control_url = f"http://127.0.0.1:{control}"
    head_unit = Process("headunit", [
        f"{bin_dir}/sdl", "headunit", "--port", str(port), "--hmi-port", str(hmi_port), "--control-port", str(control),
    ])
    folder = sdl_hmi_copy(sdl_hmi_dir, hmi_port)
    driver = browser()
    app = None
    try:
        wait_for_http(f"{control_url}/apps")
        driver.get(f"file://{folder}/index.html")
        # sdl_hmi's driver warning: OK connects it.
        wait(driver, lambda d: d.find_element(By.ID, "warning_ok_button").is_displayed(), "sdl_hmi's warning")
        driver.find_element(By.ID, "warning_ok_button").click()
        driver.save_screenshot(os.path.join(screenshots, "1-home.png"))

        app = Process("app", [f"{bin_dir}/sdl-example", "--port", str(port), "--app-id", APP_ID, "--tour", "screen", "--stay", "--activation-timeout", "60"])
        app.expect("ready", limit=60)
        # The app in sdl_hmi's list (Info > Apps), one button per app: "NAME - DEVICE".
        wait(driver, lambda d: d.find_element(By.ID, "info_but").is_displayed(), "the Info button")
        driver.find_element(By.ID, "info_but").click()
        wait(driver, lambda d: d.find_element(By.ID, "info_leftMenu_apps").is_displayed(), "Info's Apps entry")
        driver.find_element(By.ID, "info_leftMenu_apps").click()
        wait(driver, lambda d: "SDL Example" in d.find_element(By.ID, "info_apps_list").text, "the app in sdl_hmi's list")
        driver.save_screenshot(os.path.join(screenshots, "2-app-list.png"))
        print("✔ the app is in sdl_hmi's app list")

        click_text(driver, "#info_apps_list .button", "SDL Example", "the app's button")
        app.expect("HMI level FULL", limit=LIMIT)
        print("✔ a click in sdl_hmi activated the app (FULL)")
        app.expect("staying registered", limit=60)
        wait(driver, lambda d: "Swift SDL" in d.find_element(By.TAG_NAME, "body").text, "the app's text on sdl_hmi's screen")
        print("✔ the app's text shows on sdl_hmi's screen")
        wait(driver, lambda d: d.execute_script(
            "return [...document.images].some((image) => image.src.startsWith('file:') && image.src.includes('sdl-headunit-') && image.complete && image.naturalWidth > 0)"),
            "the app's graphic loaded from the emulator's files")
        print("✔ the app's graphic loads from the emulator's files")
        driver.save_screenshot(os.path.join(screenshots, "3-app-screen.png"))

        soft_buttons = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".softButton") if element.is_displayed() and element.text]
        print(f"  soft buttons on screen: {soft_buttons}")
        pressed_before = len(sent_to_app(control_url, "OnButtonPress"))
        candidates = [text for text in soft_buttons if text not in ("Options",)]
        assert candidates, f"no soft button of the app rendered: {soft_buttons}"
        click_text(driver, ".softButton", candidates[0], f"the soft button {candidates[0]}")
        wait(driver, lambda d: len(sent_to_app(control_url, "OnButtonPress")) > pressed_before, "OnButtonPress reaching the app")
        print(f"✔ the soft button {candidates[0]!r} clicked in sdl_hmi reached the app (OnButtonPress)")

        commands_before = len(sent_to_app(control_url, "OnCommand"))
        click_text(driver, ".softButton", "Options", "the Options button")
        # The app's commands (the screen tour's menu: About, Play, Settings › ...) after sdl_hmi's own
        # entries (Exit 'USER_EXIT'...), in a list that scrolls.
        def command_entry(d):
            for entry in d.find_elements(By.CSS_SELECTOR, "#info_nonMedia_options_list .list-item"):
                # textContent: selenium's `text` is empty for an entry scrolled out of view.
                if (entry.get_attribute("textContent") or "").strip() == "About":
                    return entry
            return None
        entry = wait(driver, command_entry, "the app's command About in sdl_hmi's menu")
        driver.execute_script("arguments[0].scrollIntoView()", entry)
        driver.save_screenshot(os.path.join(screenshots, "4-menu.png"))
        names = [(element.get_attribute("textContent") or "").strip() for element in driver.find_elements(By.CSS_SELECTOR, "#info_nonMedia_options_list .list-item")]
        print(f"  menu entries: {names}")
        click_text(driver, "#info_nonMedia_options_list .list-item", "About", "the command About")
        wait(driver, lambda d: len(sent_to_app(control_url, "OnCommand")) > commands_before, "OnCommand reaching the app")
        print("✔ a menu command chosen in sdl_hmi reached the app (OnCommand)")

        errors = [entry for entry in console_errors(driver) if "favicon" not in entry["message"]]
        if errors:
            print(f"  sdl_hmi's console errors (its own): {errors[:5]}")
        print("SDL HMI: OK")
    finally:
        driver.save_screenshot(os.path.join(screenshots, "last.png"))
        driver.quit()
        if app:
            app.stop()
        head_unit.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "test":
        test(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) >= 5 else tempfile.mkdtemp(prefix="sdlhmi-shots-"))
    else:
        print(__doc__)
        sys.exit(2)
