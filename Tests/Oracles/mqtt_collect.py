"""Reads an MQTT broker with paho-mqtt, an independent client, as a consumer of the hub's MQTT sink would.

It connects as CLIENT_ID with a session the broker keeps (clean_session=False), as USER with the password in the
environment variable MQTT_PASSWORD, and subscribes to TOPIC at QoS 1. With COUNT 0 it returns once subscribed: the
broker then queues for the session what is published meanwhile. Otherwise it collects COUNT messages, or what came
within TIMEOUT seconds, and prints one JSON object: {"messages": [{"topic": t, "payload": text, "retain": bool}, ...]}.
Usage: mqtt_collect.py HOST PORT USER CLIENT_ID TOPIC COUNT TIMEOUT
"""
import json
import os
import sys
import threading

import paho.mqtt.client as mqtt

host, port, user, client_id, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
count, timeout = int(sys.argv[6]), float(sys.argv[7])
messages = []
done = threading.Event()


def on_connect(client, userdata, flags, reason_code, properties):
    if reason_code.is_failure:
        sys.exit(f"refused: {reason_code}")
    client.subscribe(topic, qos=1)


def on_subscribe(client, userdata, mid, reason_codes, properties):
    if count == 0:
        done.set()


def on_message(client, userdata, message):
    messages.append({"topic": message.topic, "payload": message.payload.decode(), "retain": bool(message.retain)})
    if len(messages) >= count:
        done.set()


client = mqtt.Client(
    mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False, protocol=mqtt.MQTTv311)
client.username_pw_set(user, os.environ["MQTT_PASSWORD"])
client.on_connect = on_connect
client.on_subscribe = on_subscribe
client.on_message = on_message
client.connect(host, port)
client.loop_start()
done.wait(timeout)
client.disconnect()
client.loop_stop()
if count > 0:
    print(json.dumps({"messages": messages}))
