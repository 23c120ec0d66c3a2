"""Probes every device of the org.bluez service on DBUS_SYSTEM_BUS_ADDRESS with bleak, an independent BlueZ client.

For each device bleak discovers, it connects, reads every readable characteristic (keeping the error of a read the
device refuses, as a User Data Service does before a consent), subscribes to every one that
notifies or indicates (AcquireNotify where BlueZ offers NotifyAcquired, else StartNotify, as bleak chooses), asks a
glucose meter's Record Access Control Point for all its records, waits (for a heart-rate sensor, until it sent ten
beats, for ten seconds at most), and disconnects. Prints one JSON object:
{address: {"name", "services", "reads": {uuid: hex}, "errors": {uuid: message}, "values": {uuid: [hex, ...]}}}.
Usage: bleak_probe.py SECONDS_TO_LISTEN
"""
import asyncio
import json
import sys

from bleak import BleakClient, BleakScanner
from bleak.exc import BleakError

GLUCOSE_RACP = "00002a52-0000-1000-8000-00805f9b34fb"
GLUCOSE_SERVICE = "00001808-0000-1000-8000-00805f9b34fb"
BODY_COMPOSITION = "00002a9c-0000-1000-8000-00805f9b34fb"
HEART_RATE_MEASUREMENT = "00002a37-0000-1000-8000-00805f9b34fb"
# how many beats a heart-rate sensor is listened to for at least, and the longest that may take
BEATS = 10
BEATS_TIMEOUT = 10.0


async def probe(device, listen):
    found = {"reads": {}, "errors": {}, "values": {}}
    async with BleakClient(device, timeout=10.0) as client:
        for service in client.services:
            for characteristic in service.characteristics:
                if "read" in characteristic.properties:
                    try:
                        value = await client.read_gatt_char(characteristic)
                        found["reads"][characteristic.uuid] = value.hex()
                    except BleakError as error:
                        found["errors"][characteristic.uuid] = str(error)
        subscribed = [
            characteristic
            for service in client.services
            for characteristic in service.characteristics
            if {"notify", "indicate"} & set(characteristic.properties)
        ]
        # a body composition collector subscribes to the compositions before the weights, whose subscription starts
        # a scale's transfer
        subscribed.sort(key=lambda characteristic: characteristic.uuid != BODY_COMPOSITION)
        for characteristic in subscribed:
            def received(_, data, uuid=characteristic.uuid):
                found["values"].setdefault(uuid, []).append(data.hex())
            await client.start_notify(characteristic, received)
        for service in client.services:
            if service.uuid == GLUCOSE_SERVICE:
                racp = service.get_characteristic(GLUCOSE_RACP)
                await client.write_gatt_char(racp, bytes([0x01, 0x01]), response=True)
        await asyncio.sleep(listen)
        # a heart-rate sensor notifies as the simulated world's time passes, which a loaded machine slows: listen
        # until it has sent BEATS, or for BEATS_TIMEOUT at most
        waited = 0.0
        while (
            any(characteristic.uuid == HEART_RATE_MEASUREMENT for characteristic in subscribed)
            and len(found["values"].get(HEART_RATE_MEASUREMENT, [])) < BEATS
            and waited < BEATS_TIMEOUT
        ):
            await asyncio.sleep(0.1)
            waited += 0.1
    return found


async def main():
    listen = float(sys.argv[1])
    discovered = await BleakScanner.discover(timeout=1.0, return_adv=True)
    result = {}
    for address, (device, advertisement) in sorted(discovered.items()):
        entry = {"name": advertisement.local_name, "services": advertisement.service_uuids}
        entry.update(await probe(device, listen))
        result[address] = entry
    print(json.dumps(result))


asyncio.run(main())
