#!/usr/bin/env python3
"""Drives the emulator's dashboard in headless Chromium (Selenium) the way a person would, and prints what happened.

    dashboard_browser.py --control http://127.0.0.1:8765 [--screenshots DIR]

Sets up one iPhone with the sample app through the control API (the fixture), then only uses the page: sends a push
from the compose form, waits for it in the device's notification centre and in the journal, taps it and waits for
NotificationOpened in the app's timeline, sends a refused push and filters the journal by its reason. Prints one
JSON line: {"ok": true, "steps": [...]} or {"ok": false, "error": ..., "steps": [...]} (exit 1). With
--screenshots, saves devices.png and journal.png there (the README's pictures).
"""
import argparse
import json
import os
import sys
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait


def control(base: str, method: str, path: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as r:
        text = r.read().decode()
        return json.loads(text) if text else None


def put_file(base: str, name: str, path: str):
    with open(path, "rb") as f:
        request = urllib.request.Request(base + "/_emulator/files/" + name, data=f.read(), method="PUT")
    urllib.request.urlopen(request, timeout=30).read()


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(flag)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    return webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--control", required=True)
    parser.add_argument("--screenshots")
    args = parser.parse_args()
    base = args.control.rstrip("/")
    steps = []
    app = "/_emulator/devices/phone/apps/com.example.app"
    control(base, "POST", "/_emulator/devices", {"id": "phone", "name": "Ana's iPhone",
                                                 "apps": [{"bundleId": "com.example.app", "firebase": {}}]})
    control(base, "POST", app + "/calls", {"call": "RequestAuthorization", "options": [1, 2, 3]})
    control(base, "POST", app + "/calls", {"call": "GetToken"})
    control(base, "POST", app + "/actions", {"action": "background"})
    # An FCM sender's message through the front door (with the dashed flag FCM's legacy API ignores).
    fcm = control(base, "GET", app)["fcmToken"]
    # A run as `apns-emulator test --emulator` reports it.
    control(base, "POST", "/_emulator/scenario-runs", {
        "name": "Chat rooms group", "file": "scenarios/chat.yaml", "outcome": "failed", "seconds": 0.4,
        "failures": ["scenarios/chat.yaml:12:9: expect.notifications.count: expected 2, got 1"],
        "steps": [{"index": 1, "kind": "call", "line": 8, "outcome": "passed", "seconds": 0.01},
                  {"index": 2, "kind": "expect", "line": 12, "outcome": "failed", "seconds": 0.02}]})
    # A second app whose service extension attaches an image the emulator serves: the centre draws it as a thumbnail.
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    put_file(base, "cat.png", os.path.join(repo, "scenarios", "fixtures", "image.png"))
    photos = "/_emulator/devices/phone/apps/com.example.photos"
    control(base, "POST", "/_emulator/devices/phone/apps", {"bundleId": "com.example.photos", "serviceExtension": {
        "downloadMs": 20, "attachments": [{"identifier": "cat", "url": "http://127.0.0.1/_emulator/files/cat.png"}]}})
    control(base, "POST", photos + "/calls", {"call": "RequestAuthorization", "options": [1, 2, 3]})
    control(base, "POST", photos + "/calls", {"call": "GetToken"})
    control(base, "POST", photos + "/actions", {"action": "background"})
    sent = control(base, "POST", "/_emulator/dashboard/send", {"deviceId": "phone", "bundleId": "com.example.photos",
               "payload": {"aps": {"alert": {"title": "A photo"}, "mutable-content": 1}}})
    assert sent["status"] == 200, sent
    control(base, "POST", "/_emulator/front-doors/fcm/legacy/apns-emulator-demo",
            {"to": fcm, "mutable-content": True, "notification": {"title": "Via FCM", "body": "hi"}})

    driver = browser()
    # The page redraws every second: an element read while it is replaced is read again.
    wait = WebDriverWait(driver, 20, ignored_exceptions=[StaleElementReferenceException])
    try:
        driver.get(base + "/")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.device[data-id="phone"]')))
        assert not driver.find_element(By.ID, "journal").is_displayed(), "the journal shows on the devices tab"
        steps.append("the device wall shows the phone")
        thumbnail = '.device[data-id="phone"] .app[data-bundle="com.example.photos"] img.thumbnail'
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, thumbnail)))
        wait.until(lambda d: d.execute_script("const i = document.querySelector(arguments[0]); return i && i.complete && i.naturalWidth", thumbnail) > 0)
        steps.append("the extension's image attachment is drawn as a thumbnail")

        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="compose"]').click()
        wait.until(lambda d: any(o.get_attribute("value") == "phone|com.example.app"
                                 for o in d.find_elements(By.CSS_SELECTOR, "#compose-target option")))
        Select(driver.find_element(By.ID, "compose-target")).select_by_value("phone|com.example.app")
        payload = driver.find_element(By.ID, "compose-payload")
        payload.clear()
        payload.send_keys('{"aps": {"alert": {"title": "From the browser", "body": "hello"}, "thread-id": "room-1"}}')
        driver.find_element(By.ID, "compose-send").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "compose-result"), "APNs answered 200"))
        sent = driver.find_element(By.ID, "compose-result").text
        apns_id = sent.rsplit(" ", 1)[-1]
        steps.append("the compose form sent a push: " + sent)

        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="devices"]').click()
        notification = '.device[data-id="phone"] .notification'
        wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, notification + " .title"), "From the browser"))
        steps.append("the notification centre shows it")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "devices.png"))
        wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, notification + " button.tap"))).click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.device[data-id="phone"] li.event[data-type="NotificationOpened"]')))
        steps.append("tapping it gives NotificationOpened in the timeline")

        # A refused push, then the journal filtered by its reason.
        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="compose"]').click()
        collapse = driver.find_element(By.ID, "compose-collapse-id")
        collapse.clear()
        collapse.send_keys("x" * 65)
        driver.find_element(By.ID, "compose-send").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "compose-result"), "BadCollapseId"))
        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="journal"]').click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, f'#journal-rows tr[data-apns-id="{apns_id}"]')))
        wait.until(lambda d: "BadCollapseId" in [r.text for r in d.find_elements(By.CSS_SELECTOR, "#journal-rows td.reason")])
        steps.append("the journal lists the accepted push by its apns-id and the refused one")
        driver.find_element(By.ID, "filter-reason").send_keys("BadCollapseId")
        wait.until(lambda d: [r.find_element(By.CSS_SELECTOR, "td.reason").text
                              for r in d.find_elements(By.CSS_SELECTOR, "#journal-rows tr")] == ["BadCollapseId"])
        steps.append("filtered by reason, only the refused push is left")
        driver.find_element(By.CSS_SELECTOR, "#journal-rows tr").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "journal-detail"), "apns-collapse-id"))
        detail = driver.find_element(By.ID, "journal-detail").text
        assert "status: 400" in detail and "reason: BadCollapseId" in detail, detail
        assert "authorization: bearer" in detail.lower() and "redacted" in detail.lower(), "the authorization is shown redacted: " + detail
        steps.append("its row opens the answer and the request's headers, the authorization redacted")
        driver.find_element(By.ID, "filter-reason").clear()
        driver.find_element(By.ID, "filter-reason").send_keys(" ")
        def environments(d):
            return [r.find_elements(By.CSS_SELECTOR, "td")[1].text for r in d.find_elements(By.CSS_SELECTOR, "#journal-rows tr")]
        # The development build's token is a sandbox one: its pushes are all sandbox requests.
        Select(driver.find_element(By.ID, "filter-environment")).select_by_visible_text("sandbox")
        wait.until(lambda d: len(environments(d)) >= 2 and set(environments(d)) == {"sandbox"})
        Select(driver.find_element(By.ID, "filter-environment")).select_by_visible_text("production")
        wait.until(lambda d: environments(d) == [])
        Select(driver.find_element(By.ID, "filter-environment")).select_by_value("")
        wait.until(lambda d: len(environments(d)) >= 2)
        steps.append("filtered by environment: the sandbox requests only, then none in production")
        # Controls: a fault from the form refuses the next push; the charts draw from /metrics.
        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="controls"]').click()
        driver.find_element(By.ID, "fault-reason").send_keys("ServiceUnavailable")
        driver.find_element(By.ID, "fault-add").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "faults"), "ServiceUnavailable"))
        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="compose"]').click()
        driver.find_element(By.ID, "compose-collapse-id").clear()
        driver.find_element(By.ID, "compose-send").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "compose-result"), "APNs answered 503 ServiceUnavailable"))
        steps.append("a fault injected from the controls refused the next push: 503 ServiceUnavailable")
        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="controls"]').click()
        # The rejected-per-second line has left its baseline (y 58) somewhere in the last minute.
        wait.until(lambda d: any(float(p.split(",")[1]) < 58 for p in
                                 d.find_element(By.CSS_SELECTOR, "#chart-rejected polyline").get_attribute("points").split()))
        wait.until(EC.text_to_be_present_in_element((By.ID, "faults"), "used up"))
        steps.append("the charts draw and the fault shows used up")
        # The front doors' log: the FCM message, what it became, and the note on the ignored flag.
        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="front-doors"]').click()
        wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#front-door-rows td.notes"), "mutable-content is not a field"))
        steps.append("the front doors tab shows the FCM message and the ignored mutable-content")
        driver.find_element(By.CSS_SELECTOR, "#front-door-rows tr").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "front-door-detail"), "apns-topic: com.example.app"))
        steps.append("its row opens the APNs request FCM made of it")
        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="runs"]').click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "run-rows"), "Chat rooms group"))
        driver.find_element(By.CSS_SELECTOR, "#run-rows tr").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "run-detail"), "line 12: expect · failed"))
        steps.append("the scenario-run list shows the run and its steps")
        driver.find_element(By.ID, "clear-runs").click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#run-rows tr"))
        assert control(base, "GET", "/_emulator/scenario-runs") == {"runs": []}
        steps.append("clearing the list empties it")
        driver.find_element(By.CSS_SELECTOR, '.tab[data-tab="journal"]').click()
        if args.screenshots:
            driver.find_element(By.ID, "filter-reason").clear()
            driver.find_element(By.ID, "filter-reason").send_keys(" ")  # an input event: the table redraws unfiltered
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#journal-rows tr")) >= 2)
            driver.save_screenshot(os.path.join(args.screenshots, "journal.png"))
        print(json.dumps({"ok": True, "steps": steps}))
        return 0
    except Exception as error:  # the test prints what was reached and why it stopped
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}", "steps": steps,
                          "status": driver.find_element(By.ID, "status").text if driver else ""}))
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
