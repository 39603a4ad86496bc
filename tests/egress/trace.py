"""Read an ``strace -f -Y`` log and name every attempt to reach beyond this machine.

An attempt is a TCP connect, or a UDP datagram sent, to an address that is not loopback, and any
DNS query (port 53, loopback resolvers included: a stub resolver forwards what it is asked). A
UDP ``connect`` that is never followed by a send is not one: it sends no packet, and it is how
Chromium asks the kernel whether an IPv6 route exists (to 2001:4860:4860::8888 port 443).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

import attrs

_LINE = re.compile(r"^(?P<tid>\d+)(?:<(?P<thread>[^>]*)>)?\s+(?P<rest>.*)$")
_CALL = re.compile(r"^(?P<name>\w+)\((?P<args>.*)$")
_RESUMED = re.compile(r"^<\.\.\. (?P<name>\w+) resumed>(?P<args>.*)$")
_RESULT = re.compile(r"\)\s+=\s+(?P<value>-?\d+)(?:<[^>]*>)?(?:\s|$)")
_FD = re.compile(r"^(?P<fd>\d+)(?:<[^>]*>)?,")
_INET4 = re.compile(r'sa_family=AF_INET, sin_port=htons\((?P<port>\d+)\), sin_addr=inet_addr\("(?P<ip>[^"]+)"\)')
_INET6 = re.compile(r'sa_family=AF_INET6, sin6_port=htons\((?P<port>\d+)\).*?inet_pton\(AF_INET6, "(?P<ip>[^"]+)"')
_REACH = ("connect", "sendto", "sendmsg", "sendmmsg")
_ARGV = re.compile(r'^"(?P<path>[^"]*)", \[(?P<argv>[^\]]*)\]')


@attrs.frozen
class Attempt:
    """One attempt to reach another machine: who made it, and where to."""

    program: str
    pid: int
    thread: str
    destination: str
    how: str

    def __str__(self) -> str:
        return f"{self.program} (pid {self.pid}, thread {self.thread}) -> {self.destination} ({self.how})"


def _local(ip: str) -> bool:
    address = ipaddress.ip_address(ip.split("%")[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _sent(where: tuple[str, int], args: str) -> str:
    """How a datagram reads: a DNS query names what it looks up."""
    if where[1] != 53:
        return "UDP datagram sent"
    payload = re.search(r'"((?:[^"\\]|\\.)*)"', args)
    name = _query_name(_unescape(payload.group(1))) if payload else ""
    return f"DNS query for {name}" if name else "DNS query"


def _unescape(text: str) -> bytes:
    """strace's C-style quoting of a buffer, back to its bytes."""
    simple = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "\\": 92, '"': 34}
    out, index = bytearray(), 0
    while index < len(text):
        char = text[index]
        if char != "\\":
            out += char.encode()
            index += 1
            continue
        octal = re.match(r"[0-7]{1,3}", text[index + 1 :])
        if octal:
            out.append(int(octal.group(0), 8) & 0xFF)
            index += 1 + len(octal.group(0))
        else:
            out.append(simple.get(text[index + 1], ord(text[index + 1])))
            index += 2
    return bytes(out)


def _query_name(packet: bytes) -> str:
    """The name a DNS query asks for (as far as the logged bytes reach)."""
    labels, index = [], 12
    while index < len(packet) and packet[index]:
        size = packet[index]
        labels.append(packet[index + 1 : index + 1 + size].decode("ascii", "replace"))
        index += 1 + size
    return ".".join(labels)


def _destination(args: str) -> tuple[str, int] | None:
    match = _INET4.search(args) or _INET6.search(args)
    return (match.group("ip"), int(match.group("port"))) if match else None


@attrs.define
class _Reader:
    process_of: dict[int, int] = attrs.Factory(dict)  # thread id -> process id
    program: dict[int, str] = attrs.Factory(dict)  # process id -> what it runs
    pending: dict[int, str] = attrs.Factory(dict)  # thread id -> the call left unfinished
    datagram: set[tuple[int, int]] = attrs.Factory(set)  # (process, fd) of UDP sockets
    probed: dict[tuple[int, int], tuple[str, int]] = attrs.Factory(dict)  # UDP connected, unsent
    found: list[Attempt] = attrs.Factory(list)

    def line(self, text: str) -> None:
        match = _LINE.match(text.strip())
        if match is None:
            return
        tid, thread, rest = int(match.group("tid")), match.group("thread") or "?", match.group("rest")
        pid = self.process_of.setdefault(tid, tid)
        resumed = _RESUMED.match(rest)
        if resumed:
            name = resumed.group("name")
            if name in _REACH or name == "close":  # judged when the call began
                return
            held, _, head = self.pending.pop(tid, "").partition("\0")
            args = (head if held == name else "") + resumed.group("args")
        else:
            call = _CALL.match(rest)
            if call is None:
                return
            name, args = call.group("name"), call.group("args")
            if rest.endswith("<unfinished ...>"):
                args = args.removesuffix("<unfinished ...>")
                if name in _REACH:  # the address is all there is to read: judge it now
                    self._reach(pid, thread, name, args)
                elif name == "close":  # its number is free from here: another thread's
                    self._call(pid, tid, thread, name, args, None)  # socket may take it first
                else:  # the result (a clone's child, an fd) comes with the resumed half
                    self.pending[tid] = f"{name}\0{args}"
                return
        result = _RESULT.search(args)
        value = int(result.group("value")) if result else None
        self._call(pid, tid, thread, name, args, value)

    def _call(self, pid: int, tid: int, thread: str, name: str, args: str, value: int | None) -> None:
        if name in ("clone", "clone3", "fork", "vfork") and value is not None and value > 0:
            shared = "CLONE_THREAD" in args
            self.process_of[value] = pid if shared else value
            if not shared:
                self.program[value] = self.program.get(pid, "?")
        elif name == "execve" and value == 0:
            argv = _ARGV.match(args)
            if argv:
                words = re.findall(r'"([^"]*)"', argv.group("argv"))
                self.program[pid] = " ".join(words[:3]) or argv.group("path")
        elif name == "socket" and value is not None and value >= 0:
            if args.startswith(("AF_INET,", "AF_INET6,")) and "SOCK_DGRAM" in args:
                self.datagram.add((pid, value))
            else:
                self.datagram.discard((pid, value))
        elif name == "close":
            fd = re.match(r"\d+", args)
            if fd:
                self.datagram.discard((pid, int(fd.group(0))))
                self.probed.pop((pid, int(fd.group(0))), None)
        elif name in _REACH:
            self._reach(pid, thread, name, args)

    def _reach(self, pid: int, thread: str, name: str, args: str) -> None:
        fd_match = _FD.match(args)
        fd = int(fd_match.group("fd")) if fd_match else -1
        where = _destination(args)
        if where is None:  # a send on a connected socket: a probe that sends is an attempt
            if name != "connect" and (pid, fd) in self.probed:
                where = self.probed.pop((pid, fd))
                self._found(pid, thread, where, _sent(where, args))
            return
        ip, port = where
        if _local(ip) and port != 53:
            return
        if name == "connect" and (pid, fd) in self.datagram:
            self.probed[(pid, fd)] = where  # an attempt once something is sent on it
            return
        self._found(pid, thread, where, "TCP connect" if name == "connect" else _sent(where, args))

    def _found(self, pid: int, thread: str, where: tuple[str, int], how: str) -> None:
        ip, port = where
        shown = f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"
        self.found.append(Attempt(self.program.get(pid, "?"), pid, thread, shown, how))


def attempts(lines: Iterable[str]) -> list[Attempt]:
    """Every attempt to reach beyond this machine in an ``strace -f -Y`` log, in order."""
    reader = _Reader()
    for text in lines:
        reader.line(text)
    return reader.found


STRACE_CALLS = "execve,clone,clone3,fork,vfork,socket,connect,sendto,sendmsg,sendmmsg,close"
"""The calls the log must hold for ``attempts`` to follow processes, sockets and sends."""


def strace_command(log: str) -> list[str]:
    """The ``strace`` prefix that writes such a log for a command and all it starts."""
    return ["strace", "-f", "-qq", "-Y", "-s", "64", "-e", f"trace={STRACE_CALLS}", "-o", log]
