"""Run under another uid by the admission tests, with only the standard library.

usage: python3 -c "$(cat other_uid_probe.py)" SOCKET HELLO_HEX [first]
(passed as text: the other uid may not be able to read this checkout)

Sends one hello frame, then prints how many bytes the service sent back before closing the
connection ("first": stop at the first bytes instead of waiting for the close).
"""

import socket
import sys

sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.settimeout(5)
sock.connect(sys.argv[1])
received = 0
try:
    sock.sendall(bytes.fromhex(sys.argv[2]))
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += len(chunk)
        if sys.argv[3:] == ["first"]:
            break
except TimeoutError:
    print("timeout")
except (ConnectionResetError, BrokenPipeError):
    pass  # closed by the service (a reset because our hello was never read)
print(received)
