"""Checks Home Assistant MQTT discovery messages as Home Assistant reads them, with Jinja2 (the version Home Assistant
pins) rendering each sensor's templates against the state its topic holds.

Reads the retained messages from a broker with paho-mqtt (an independent client), or from FILE, one JSON object a
line: {"topic": ..., "payload": ...} (the payload as text).
Usage: ha_discovery.py HOST PORT USER (the password in MQTT_PASSWORD), or ha_discovery.py FILE
For each sensor configuration (DISCOVERY/sensor/NODE/OBJECT/config) it checks, per Home Assistant's MQTT sensor and
discovery documentation (https://www.home-assistant.io/integrations/sensor.mqtt/, /integrations/mqtt/#mqtt-discovery,
/integrations/sensor/#device-class):
  - the topic's node and object identifiers are [a-zA-Z0-9_-]+;
  - every key is one the MQTT sensor documents, the device's keys are the device map's, origin's are origin's;
  - unique_id is given and unique; state_topic is given; a state_class is one of Home Assistant's;
  - a device_class is one of those below, with a unit that class accepts;
  - availability_topic is given with its payloads.
Then it renders value_template and json_attributes_template with the state retained on state_topic (as value_json)
and prints, after a line {"retained": [every retained topic]}, a line a sensor:
`UNIQUE_ID<TAB>DEVICE NAME<TAB>VALUE<TAB>ATTRIBUTES`, sorted. A problem is a line `error: ...`, exit 1.
"""

import datetime
import json
import os
import re
import sys
import threading
import time

import jinja2
import paho.mqtt.client as mqtt

SENSOR_KEYS = {
    "availability", "availability_mode", "availability_template", "availability_topic", "default_entity_id",
    "device", "device_class", "enabled_by_default", "encoding", "entity_category", "entity_picture", "expire_after",
    "force_update", "icon", "json_attributes_template", "json_attributes_topic", "last_reset_value_template", "name",
    "object_id", "options", "origin", "payload_available", "payload_not_available", "platform", "qos", "state_class",
    "state_topic", "suggested_display_precision", "unique_id", "unit_of_measurement", "value_template",
}
DEVICE_KEYS = {
    "configuration_url", "connections", "hw_version", "identifiers", "manufacturer", "model", "model_id", "name",
    "serial_number", "suggested_area", "sw_version", "via_device",
}
ORIGIN_KEYS = {"name", "sw_version", "support_url"}
STATE_CLASSES = {"measurement", "measurement_angle", "total", "total_increasing"}
# the device classes the hub may use, with the units Home Assistant's sensor documentation lists for each
UNITS = {
    "weight": {"kg", "g", "mg", "µg", "oz", "lb", "st"},
    "temperature": {"°C", "°F", "K"},
    "distance": {"km", "m", "cm", "mm", "mi", "nmi", "yd", "in", "ft"},
    "duration": {"d", "h", "min", "s", "ms", "μs"},
    "blood_glucose_concentration": {"mg/dL", "mmol/L"},
}
# the state classes Home Assistant's sensor allows with each of those device classes (DEVICE_CLASS_STATE_CLASSES)
STATE_CLASSES_OF = {
    "weight": {"measurement", "total", "total_increasing"},
    "temperature": {"measurement"},
    "distance": {"measurement", "total", "total_increasing"},
    "duration": {"measurement", "total", "total_increasing"},
    "blood_glucose_concentration": {"measurement"},
}
IDENTIFIER = re.compile(r"^[a-zA-Z0-9_-]+$")


def retained_on_broker(host, port, user):
    """Every retained message on the broker: what a new subscriber to # is sent after its SUBACK, until a second
    passes quietly. A refusal, or no SUBACK within 10 seconds, ends the script with an error."""
    retained, last, answered, refused = {}, [0.0], threading.Event(), []

    def on_connect(client, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            refused.append(str(reason_code))
            answered.set()
        else:
            client.subscribe("#", qos=1)

    def on_subscribe(client, userdata, mid, reason_codes, properties):
        last[0] = time.monotonic()
        answered.set()

    def on_message(client, userdata, message):
        if message.retain:
            retained[message.topic] = message.payload.decode()
        last[0] = time.monotonic()

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, clean_session=True, protocol=mqtt.MQTTv311)
    client.username_pw_set(user, os.environ["MQTT_PASSWORD"])
    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_message = on_message
    client.connect(host, port)
    client.loop_start()
    if not answered.wait(10) or refused:
        sys.exit(f"the broker refused the subscriber ({refused[0]})" if refused else "no SUBACK within 10 seconds")
    while time.monotonic() - last[0] < 1:
        time.sleep(0.1)
    client.disconnect()
    client.loop_stop()
    return retained


def main():
    if len(sys.argv) == 4:
        retained = retained_on_broker(sys.argv[1], int(sys.argv[2]), sys.argv[3])
    else:
        retained = {}
        for line in open(sys.argv[1], encoding="utf-8"):
            if line.strip():
                message = json.loads(line)
                retained[message["topic"]] = message["payload"]
    print(json.dumps({"retained": sorted(retained)}))
    environment = jinja2.Environment()
    errors, rows, unique_ids = [], [], set()
    for topic, payload in retained.items():
        levels = topic.split("/")
        if len(levels) < 4 or levels[-1] != "config" or levels[-4] != "sensor":
            continue
        node, object_id = levels[-3], levels[-2]
        if not IDENTIFIER.match(node) or not IDENTIFIER.match(object_id):
            errors.append(f"{topic}: node or object identifier outside [a-zA-Z0-9_-]")
        config = json.loads(payload)
        for key in sorted(set(config) - SENSOR_KEYS):
            errors.append(f"{topic}: {key} is not an MQTT sensor key")
        for key in sorted(set(config.get("device", {})) - DEVICE_KEYS):
            errors.append(f"{topic}: device.{key} is not a device key")
        for key in sorted(set(config.get("origin", {})) - ORIGIN_KEYS):
            errors.append(f"{topic}: origin.{key} is not an origin key")
        unique_id = config.get("unique_id")
        if not unique_id or unique_id in unique_ids:
            errors.append(f"{topic}: unique_id missing or repeated ({unique_id})")
        unique_ids.add(unique_id)
        if config.get("state_class") not in STATE_CLASSES:
            errors.append(f"{topic}: state_class {config.get('state_class')} is not Home Assistant's")
        device_class = config.get("device_class")
        if device_class is not None and config.get("unit_of_measurement") not in UNITS.get(device_class, set()):
            errors.append(f"{topic}: {device_class} does not take the unit {config.get('unit_of_measurement')}")
        if not config.get("device", {}).get("identifiers"):
            errors.append(f"{topic}: the device has no identifiers")
        if config.get("availability_topic") is not None and (
                config.get("payload_available") != "online" or config.get("payload_not_available") != "offline"):
            errors.append(f"{topic}: availability is not online/offline")
        if device_class is not None and config.get("state_class") not in STATE_CLASSES_OF.get(device_class, set()):
            errors.append(f"{topic}: {device_class} does not take the state class {config.get('state_class')}")
        if (config.get("state_class") == "total") != ("last_reset_value_template" in config):
            errors.append(f"{topic}: a last_reset_value_template goes with the state class total, and only with it")
        state = retained.get(config.get("state_topic"))
        if state is None:
            errors.append(f"{topic}: nothing retained on its state topic {config.get('state_topic')}")
            continue
        value_json = json.loads(state)
        value = environment.from_string(config["value_template"]).render(value_json=value_json, value=state)
        attributes = environment.from_string(config["json_attributes_template"]).render(
            value_json=value_json, value=state)
        json.loads(attributes)
        if "last_reset_value_template" in config:
            last_reset = environment.from_string(config["last_reset_value_template"]).render(
                value_json=value_json, value=state)
            # Home Assistant parses it as a datetime; one without a zone would be read in the server's
            if datetime.datetime.fromisoformat(last_reset).tzinfo is None:
                errors.append(f"{topic}: last_reset {last_reset} has no time zone")
            attributes = attributes + " last_reset=" + last_reset
        rows.append(f"{unique_id}\t{config.get('device', {}).get('name')}\t{value}\t{attributes}")
    for row in sorted(rows):
        print(row)
    for error in errors:
        print("error: " + error)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
