"""The strace reader names what reaches beyond the machine and nothing else."""

from __future__ import annotations

from .trace import attempts

LOG = r"""
100<python3> execve("/usr/bin/python3", ["python3", "-m", "ghostlight_trio"], 0x1 /* 3 vars */) = 0
100<python3> clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x1) = 200<python3>
200<python3> execve("/usr/lib/chromium/chromium", ["/usr/lib/chromium/chromium", "--headless"], 0x1 /* 3 vars */) = 0
200<chromium> clone3({flags=CLONE_VM|CLONE_THREAD|CLONE_SIGHAND, child_tid=0x1}, 88) = 201<chromium>
201<Chrome_IOThread> socket(AF_INET6, SOCK_DGRAM|SOCK_CLOEXEC, IPPROTO_IP) = 25
201<Chrome_IOThread> connect(25, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28) = 0
201<Chrome_IOThread> close(25) = 0
201<Chrome_IOThread> socket(AF_INET, SOCK_DGRAM|SOCK_NONBLOCK, IPPROTO_IP) = 26
201<Chrome_IOThread> connect(26, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.53")}, 16) = 0
201<Chrome_IOThread> sendto(26, "\253\315\1\0\0\1\0\0\0\0\0\0\10accounts\6google\3com\0\0\1\0\1", 36, MSG_NOSIGNAL, NULL, 0) = 36
201<Chrome_IOThread> socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 27
201<Chrome_IOThread> connect(27, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
201<Chrome_IOThread> connect(28, {sa_family=AF_UNIX, sun_path="/run/user/0/ghostlight-trio/default/bridge.sock"}, 50) = 0
100<python3> socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP) = 5
100<python3> connect(5, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("93.184.216.34")}, 16 <unfinished ...>
100<python3> <... connect resumed>) = -1 EINPROGRESS (Operation now in progress)
"""


def test_a_route_probe_and_loopback_are_not_attempts_a_lookup_and_a_connect_are() -> None:
    found = [str(attempt) for attempt in attempts(LOG.splitlines())]
    assert found == [
        "/usr/lib/chromium/chromium --headless (pid 200, thread Chrome_IOThread) -> 10.0.0.53:53"
        " (DNS query for accounts.google.com)",
        "python3 -m ghostlight_trio (pid 100, thread python3) -> 93.184.216.34:443 (TCP connect)",
    ]


def test_a_probe_that_sends_is_an_attempt() -> None:
    log = LOG.replace("close(25) = 0", 'sendto(25, "x", 1, 0, NULL, 0) = 1')
    found = [attempt.destination for attempt in attempts(log.splitlines())]
    assert found[0] == "[2001:4860:4860::8888]:443"


def test_a_probe_whose_socket_takes_a_number_another_thread_is_closing_stays_a_probe() -> None:
    """A close frees its number as it begins: strace may show it resumed only after another
    thread's new socket took that number, and that resumption is no close of the new socket."""
    log = LOG.replace(
        "201<Chrome_IOThread> close(25) = 0",
        "202<ThreadPoolForeg> close(25 <unfinished ...>\n"
        "201<Chrome_IOThread> close(25) = 0\n"
        "201<Chrome_IOThread> socket(AF_INET6, SOCK_DGRAM, IPPROTO_IP <unfinished ...>\n"
        "201<Chrome_IOThread> <... socket resumed>) = 25\n"
        "202<ThreadPoolForeg> <... close resumed>) = 0\n"
        '201<Chrome_IOThread> connect(25, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28 <unfinished ...>\n'
        "201<Chrome_IOThread> <... connect resumed>) = 0\n"
        "201<Chrome_IOThread> close(25) = 0",
    ).replace(
        "200<chromium> clone3({flags=CLONE_VM|CLONE_THREAD|CLONE_SIGHAND, child_tid=0x1}, 88) = 201<chromium>",
        "200<chromium> clone3({flags=CLONE_VM|CLONE_THREAD|CLONE_SIGHAND, child_tid=0x1}, 88) = 201<chromium>\n"
        "200<chromium> clone3({flags=CLONE_VM|CLONE_THREAD|CLONE_SIGHAND, child_tid=0x2}, 88) = 202<chromium>",
    )
    found = [attempt.destination for attempt in attempts(log.splitlines())]
    assert found == ["10.0.0.53:53", "93.184.216.34:443"]
