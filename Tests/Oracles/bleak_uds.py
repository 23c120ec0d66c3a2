"""Drives the User Data Service of one device of the org.bluez service on DBUS_SYSTEM_BUS_ADDRESS with bleak, an
independent BlueZ client, as a hub registering a user would.

It connects to ADDRESS, notes the properties of the service's characteristics, reads the User Index and tries the
First Name (refused before a consent), enables indications on the User Control Point, writes Register New User with
consent code CODE, then Consent with the index it was given and CODE, then Consent as user 1 with 9999, each time
waiting for the response the device indicates (a Value change of the characteristic), and reads the User Index again.
Prints one JSON object: {"properties": {uuid: [flag, ...]}, "indexBefore": hex, "refused": message,
"responses": [hex, ...], "index": hex}.
Usage: bleak_uds.py ADDRESS CODE
"""
import asyncio
import json
import sys

from bleak import BleakClient, BleakScanner
from bleak.exc import BleakError

USER_DATA_SERVICE = "0000181c-0000-1000-8000-00805f9b34fb"
USER_CONTROL_POINT = "00002a9f-0000-1000-8000-00805f9b34fb"
USER_INDEX = "00002a9a-0000-1000-8000-00805f9b34fb"
FIRST_NAME = "00002a8a-0000-1000-8000-00805f9b34fb"
# how long a response may take to be indicated
RESPONSE_TIMEOUT = 10.0


async def main():
    address, code = sys.argv[1], int(sys.argv[2])
    # found at once when the bus answers; the timeout only bounds a busy machine's wait
    device = await BleakScanner.find_device_by_address(address, timeout=30.0)
    if device is None:
        sys.exit(f"{address} was not found")
    found = {"responses": []}
    async with BleakClient(device, timeout=10.0) as client:
        service = client.services.get_service(USER_DATA_SERVICE)
        found["properties"] = {
            characteristic.uuid: sorted(characteristic.properties) for characteristic in service.characteristics
        }
        found["indexBefore"] = (await client.read_gatt_char(USER_INDEX)).hex()
        try:
            await client.read_gatt_char(FIRST_NAME)
            found["refused"] = None
        except BleakError as error:
            found["refused"] = str(error)
        responses = asyncio.Queue()
        await client.start_notify(USER_CONTROL_POINT, lambda _, data: responses.put_nowait(bytes(data)))

        async def request(value):
            await client.write_gatt_char(USER_CONTROL_POINT, value, response=True)
            response = await asyncio.wait_for(responses.get(), RESPONSE_TIMEOUT)
            found["responses"].append(response.hex())
            return response

        registered = await request(bytes([0x01]) + code.to_bytes(2, "little"))
        index = registered[3] if len(registered) == 4 else 0xFF
        await request(bytes([0x02, index]) + code.to_bytes(2, "little"))
        await request(bytes([0x02, 0x01]) + (9999).to_bytes(2, "little"))
        found["index"] = (await client.read_gatt_char(USER_INDEX)).hex()
    print(json.dumps(found))


asyncio.run(main())
