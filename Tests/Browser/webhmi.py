#!/usr/bin/env python3
"""Drives the emulator's web page in a real headless Chromium (selenium + chromedriver).

    webhmi.py test BIN_DIR         play the driver against `sdl-example --tour driver` and check
                                   what the app heard; measure how fast the page follows the apps
    webhmi.py screenshot BIN_DIR PNG
                                   the page after `sdl-example --tour screen --stay`, as a PNG

BIN_DIR holds the `sdl` and `sdl-example` binaries (e.g. .build/debug). Needs Debian's
chromium, chromium-driver and python3-selenium. Every wait has a time limit, so a regression
fails instead of hanging.
"""
import json
import os
import queue
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

LIMIT = 20  # seconds any one step may take


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Process:
    """A child process whose standard output is read line by line on a thread."""

    def __init__(self, name, arguments):
        self.name = name
        self.lines = queue.Queue()
        self.seen = []
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def expect(self, text, limit=LIMIT):
        """Waits for a line containing `text`; fails with what came instead."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            print(f"  [{self.name}] {line}")
            if "✘" in line:
                raise AssertionError(f"{self.name} reported a failure: {line}")
            if text in line:
                return line
        raise AssertionError(f"{self.name} never printed {text!r}; it printed {self.seen[-10:]}")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def wait_for_http(url, limit=LIMIT):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{url} never answered")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, condition, what, limit=LIMIT):
    try:
        # The page re-renders on every event: an element found a moment ago may be gone.
        return WebDriverWait(driver, limit, poll_frequency=0.02, ignored_exceptions=[StaleElementReferenceException]).until(lambda d: condition(d))
    except Exception as error:
        raise AssertionError(f"the page never showed {what}") from error


def click(driver, selector):
    """Clicks the element `selector` finds, finding it again if a re-render replaced it."""
    def clicked(d):
        d.find_element(By.CSS_SELECTOR, selector).click()
        return True
    wait(driver, clicked, f"something to click at {selector}")


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


class HeadUnit:
    def __init__(self, bin_dir):
        self.bin_dir = bin_dir
        self.port = free_port()
        self.control = free_port()
        self.url = f"http://127.0.0.1:{self.control}"
        self.process = Process("headunit", [f"{bin_dir}/sdl", "headunit", "--port", str(self.port), "--control-port", str(self.control), "--manual-activation", "--grant", "HapticGroup"])
        wait_for_http(f"{self.url}/apps")

    def app(self, name, *arguments):
        return Process(name, [f"{self.bin_dir}/sdl-example", "--port", str(self.port), *arguments])


def test(bin_dir):
    head_unit = HeadUnit(bin_dir)
    apps = []
    driver = browser()
    try:
        # Three apps wait for the driver; the first is played through every step.
        for number, app_id in enumerate(["1001", "1002", "1003"]):
            apps.append(head_unit.app(f"app{number + 1}", "--tour", "driver", "--app-id", app_id, "--activation-timeout", "120"))
        for app in apps:
            app.expect("ready")
        driver.get(head_unit.url + "/")
        wait(driver, lambda d: text_of(d, "connection") == "live", "the live event stream")
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#apps li")) == 3, "three apps")

        # Activate the first app from the page: its Show appears.
        click(driver, "[aria-label='Activate Driver tour 1001']")
        apps[0].expect("HMI level FULL")
        wait(driver, lambda d: text_of(d, "mainField1") == "Driver tour", "the app's Show")
        print("✔ an app's Show appears")

        # A soft button: OnButtonPress in the app, which then highlights it.
        click(driver, "[aria-label='Like']")
        apps[0].expect("soft button: Like pressed")
        wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "[data-soft-button]").get_attribute("data-highlighted") == "true", "the highlighted soft button")
        print("✔ a soft-button click reaches the app as OnButtonPress")

        # A subscribed button on the wheel.
        click(driver, "[data-button='OK']")
        apps[0].expect("button: OK pressed")
        print("✔ a subscription button reaches the app")

        # The menu: open it, go into a sub-menu, choose a command.
        click(driver, "#menu-button")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#on-top:not([hidden]) [data-submenu]"), "the open menu")
        click(driver, "[data-submenu]")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#on-top [data-command]"), "the sub-menu's commands")
        click(driver, "#on-top [data-command]")
        apps[0].expect("menu: Audio chosen")
        print("✔ a menu choice reaches the app as OnCommand")

        # A slider: the driver moves it to 7 and confirms.
        wait(driver, lambda d: d.find_elements(By.ID, "slider-input"), "the slider")
        slider = driver.find_element(By.ID, "slider-input")
        slider.send_keys(Keys.HOME)
        for _ in range(6):
            slider.send_keys(Keys.ARROW_RIGHT)
        click(driver, "#slider-ok")
        apps[0].expect("slider: 7")
        print("✔ a slider answer reaches the app as the response")

        # The keyboard: typed keys are KEYPRESS, Enter submits the entry.
        wait(driver, lambda d: d.find_elements(By.ID, "keyboard-input"), "the keyboard")
        keyboard = driver.find_element(By.ID, "keyboard-input")
        keyboard.send_keys("Boston")
        apps[0].expect("keypress: Boston")
        driver.find_element(By.ID, "keyboard-input").send_keys(Keys.ENTER)
        apps[0].expect("keyboard: Boston entered")
        print("✔ a typed keyboard entry reaches the app")

        # Vehicle data: the driver speeds up.
        speed = driver.find_element(By.ID, "speed")
        speed.clear()
        speed.send_keys("88")
        click(driver, "#vehicle-form button[type='submit']")
        apps[0].expect("vehicle data: speed 88")
        print("✔ a vehicle-data change reaches the app as OnVehicleData")

        # A choice set, answered by voice.
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-voice-choice]"), "the choice set")
        click(driver, "[aria-label='Say Green']")
        apps[0].expect("choice: Green by VR")
        print("✔ a choice set answered by voice")

        # A searchable list: typing filters the stations; the one left is picked.
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#on-top [aria-label='Search']"), "the searchable list")
        driver.find_element(By.ID, "keyboard-input").send_keys("Roc")
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#on-top [data-choice]")) == 1, "the list filtered by the search")
        driver.save_screenshot(os.path.join(tempfile.gettempdir(), "webhmi-search.png"))  # to look at
        click(driver, "#on-top [data-choice]")
        apps[0].expect("search: Rock 101 chosen")
        print("✔ a searchable list is filtered by typing; the pick reaches the app")

        # An alert with a soft button.
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#on-top [aria-label='Got it']"), "the alert")
        click(driver, "#on-top [aria-label='Got it']")
        apps[0].expect("alert: Got it pressed")
        print("✔ an alert's soft button reaches the app")

        # Live: how long the page takes to show what the apps do, with three registered. The
        # app answers each press of Count with a Show; the page shows it without reload.
        samples = measure(driver, apps[0], 20)
        shown = [page for page, _ in samples]
        heard = [event for _, event in samples if event is not None]
        print(f"✔ live: {len(shown)} presses of Count, each answered by the app's Show; the page showed it in p50 "
              f"{statistics.median(shown):.1f} ms, max {max(shown):.1f} ms after the click; the Show's event reached "
              f"the browser in p50 {statistics.median(heard):.1f} ms; page/event ratio {statistics.median(shown) / statistics.median(heard):.2f}")
        switch = measure_activation(driver, apps)
        print(f"✔ live with several apps: activating another app updated both in the list within {switch:.0f} ms")

        # A navigation app: its video decoded in the page, its haptic areas outlined, and a drag
        # on the video sent to it as OnTouchEvent.
        apps.append(head_unit.app("navigation", "--tour", "navigation", "--stay", "--app-id", "2001", "--control-url", head_unit.url))
        apps[-1].expect("Tour navigation: OK", limit=90)
        click(driver, "[aria-label=\"Show SDL Example Navigation's screen\"]")
        wait(driver, lambda d: d.execute_script("return document.getElementById('video').width") == 800, "a decoded video frame (800 wide)", limit=40)
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#haptics div")) > 0, "the haptic areas")
        print("✔ the navigation app's video decodes in the browser, haptic areas outlined")
        touches_before = touch_events(head_unit, "2001")
        canvas = driver.find_element(By.ID, "video")
        ActionChains(driver).move_to_element_with_offset(canvas, -100, 0).click_and_hold().move_by_offset(120, 30).move_by_offset(60, 10).release().perform()
        deadline = time.monotonic() + LIMIT
        while time.monotonic() < deadline and [t for t in touch_events(head_unit, "2001")[len(touches_before):] if t == "END"] == []:
            time.sleep(0.05)
        touches = touch_events(head_unit, "2001")[len(touches_before):]
        assert touches[0] == "BEGIN" and "MOVE" in touches and touches[-1] == "END", f"OnTouchEvent sequence {touches}"
        print(f"✔ a drag on the video reached the app as OnTouchEvent {' '.join(dict.fromkeys(touches))}")

        errors = console_errors(driver)
        assert not errors, f"console errors: {errors}"
        print("✔ no console errors")
        print("Web HMI: OK")
    except BaseException:
        # What the page and the apps showed when it failed.
        failure = os.path.join(tempfile.gettempdir(), "webhmi-failure.png")
        driver.save_screenshot(failure)
        print(f"the page at the failure: {failure}")
        for app in apps:
            while not app.lines.empty():
                print(f"  [{app.name}] {app.lines.get()}")
        raise
    finally:
        driver.quit()
        for app in apps:
            app.stop()
        head_unit.process.stop()


def touch_events(head_unit, app_id):
    """The types of the OnTouchEvent the head unit sent the app, in order (from its log)."""
    with urllib.request.urlopen(f"{head_unit.url}/apps/{app_id}/log", timeout=5) as response:
        entries = [json.loads(line) for line in response.read().decode().splitlines() if line]
    return [entry["params"]["type"] for entry in entries if entry.get("name") == "OnTouchEvent" and entry["direction"] == "out"]


def measure(driver, app, count):
    """Clicks Count `count` times; each time, ms from the click until the page shows the app's
    new text (the app answers the press with a Show), beside ms until the head unit's event
    for that Show reached the browser (a second event stream): what rendering adds."""
    script = """
        const done = arguments[arguments.length - 1];
        const field = document.getElementById("mainField2");
        const expected = arguments[0];
        const events = new EventSource("/events");
        events.onopen = () => {
          let eventAt = null;
          const started = performance.now();
          events.onmessage = (message) => {
            const event = JSON.parse(message.data);
            if (eventAt === null && event.event === "requestReceived" && event.function === "Show") eventAt = performance.now() - started;
          };
          const observer = new MutationObserver(() => {
            if (field.textContent !== expected) return;
            observer.disconnect();
            events.close();
            done([performance.now() - started, eventAt]);
          });
          observer.observe(field, { childList: true, characterData: true, subtree: true });
          document.querySelector("[aria-label='Count']").click();
        };
    """
    driver.set_script_timeout(LIMIT)
    return [driver.execute_async_script(script, f"Count {n}") for n in range(1, count + 1)]


def measure_activation(driver, apps):
    script = """
        const done = arguments[arguments.length - 1];
        const started = performance.now();
        const level = (id) => (document.querySelector(`[data-app='${id}'] .level`) || {}).textContent || "";
        const check = () => level("1002").startsWith("FULL") && !level("1001").startsWith("FULL");
        const observer = new MutationObserver(() => { if (check()) { observer.disconnect(); done(performance.now() - started); } });
        observer.observe(document.getElementById("apps"), { childList: true, characterData: true, subtree: true });
        document.querySelector("[aria-label='Activate Driver tour 1002']").click();
    """
    elapsed = driver.execute_async_script(script)
    apps[1].expect("HMI level FULL")
    return elapsed


def screenshot(bin_dir, path):
    head_unit = HeadUnit(bin_dir)
    app = head_unit.app("app", "--tour", "screen", "--stay", "--control-url", head_unit.url)
    driver = browser()
    try:
        app.expect("staying registered", limit=60)
        driver.get(head_unit.url + "/")
        wait(driver, lambda d: text_of(d, "mainField1") == "Swift SDL", "the screen tour's text")
        wait(driver, lambda d: d.execute_script("return [...document.images].every((image) => image.hidden || image.complete)"), "the images")
        driver.save_screenshot(path)
        errors = console_errors(driver)
        assert not errors, f"console errors: {errors}"
        print(f"✔ wrote {path}")
    finally:
        driver.quit()
        app.stop()
        head_unit.process.stop()


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "test":
        test(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "screenshot":
        screenshot(sys.argv[2], sys.argv[3])
    else:
        print(__doc__)
        sys.exit(2)
