"""A broker that never acknowledges: it accepts MQTT 3.1.1 clients on 127.0.0.1:PORT, one after another, answers a
CONNECT with CONNACK (accepted) and each PINGREQ with PINGRESP, and takes every PUBLISH without a PUBACK.
What a broker that hangs while its connection stays alive looks like to a publisher.
Usage: mqtt_silent_broker.py PORT
"""
import socket
import sys

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", int(sys.argv[1])))
server.listen(1)


def packets(client):
    """Each whole packet the client sends: its first byte, a Remaining Length of at most four bytes, its body."""
    received = b""
    while True:
        while len(received) >= 2:
            length, multiplier, index = 0, 1, 1
            while index < len(received) and index <= 4:
                byte = received[index]
                length += (byte & 0x7F) * multiplier
                multiplier *= 128
                index += 1
                if byte < 0x80:
                    break
            else:
                break
            if len(received) < index + length:
                break
            packet, received = received[: index + length], received[index + length :]
            yield packet
        data = client.recv(65536)
        if not data:
            return
        received += data


while True:
    client, _ = server.accept()
    for packet in packets(client):
        kind = packet[0] >> 4
        if kind == 1:
            client.sendall(b"\x20\x02\x00\x00")
        elif kind == 12:
            client.sendall(b"\xd0\x00")
    client.close()
