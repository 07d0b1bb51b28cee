"""Sends COUNT alerts with aioapns 4.0, unchanged but for its host, port and CA, and prints how many were answered 200.

    python3 Benchmarks/aioapns/send.py HOST PORT CA_FILE KEY_FILE KEY_ID TEAM_ID TOPIC COUNT

Benchmarks/aioapns-ingress.sh runs it against herald dev's apns-mock and its APNs ingress in turn.
"""

import asyncio
import ssl
import sys
import time
import uuid

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol, APNsProductionClientProtocol, APNsTLSClientProtocol


async def send(host, port, ca_file, key_file, key_id, team_id, topic, count):
    # aioapns keeps Apple's host and port as class attributes: the one change a client makes.
    APNsDevelopmentClientProtocol.APNS_SERVER = host
    APNsProductionClientProtocol.APNS_SERVER = host
    APNsTLSClientProtocol.APNS_PORT = port
    with open(key_file) as key:
        client = APNs(key=key.read(), key_id=key_id, team_id=team_id, topic=topic, use_sandbox=True,
                      ssl_context=ssl.create_default_context(cafile=ca_file))
    requests = [
        NotificationRequest(device_token=uuid.uuid4().hex + uuid.uuid4().hex,
                            message={"aps": {"alert": {"title": "aioapns", "body": f"push {index}"}}},
                            push_type=PushType.ALERT, collapse_key=f"c{index}")
        for index in range(count)
    ]
    started = time.monotonic()
    results = await asyncio.gather(*(client.send_notification(request) for request in requests))
    seconds = time.monotonic() - started
    answered = sum(1 for result in results if result.is_successful)
    others = sorted({(result.status, result.description) for result in results if not result.is_successful})
    print(f"{answered}/{count} answered 200 in {seconds:.2f} s = {count / seconds:.0f} pushes/s; others: {others}")


if __name__ == "__main__":
    host, port, ca_file, key_file, key_id, team_id, topic, count = sys.argv[1:9]
    asyncio.run(send(host, int(port), ca_file, key_file, key_id, team_id, topic, int(count)))
