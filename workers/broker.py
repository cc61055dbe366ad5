"""The broker's URL, checked once before anything is made, and whether the broker answers.

A broker is a Redis server, named as redis-py names it: ``redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]``,
``rediss://`` (TLS) the same, or ``unix://[[USER]:PASSWORD@]/PATH[?db=DB]`` for a Unix socket. Celery
(kombu) names a Unix socket otherwise (``redis+socket:///PATH?virtual_host=DB``): ``celery_url`` gives
it the form it reads. Every message shows the URL with its password masked (``safe_url``)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

import redis
from redis.connection import parse_url

SCHEMES = ("redis", "rediss", "unix")
FORMS = "redis://HOST:PORT/DB, rediss://HOST:PORT/DB or unix:///PATH?db=DB"
_PASSWORD_QUERY = re.compile(r"(?i)(password=)[^&#]*")


def safe_url(url: str) -> str:
    """``url`` with its password masked (``redis://:**@host:6379/0``), also when it is malformed."""
    netloc = urlsplit(url).netloc
    if "@" in netloc:
        login, _, place = netloc.rpartition("@")
        user, colon, _ = login.partition(":")
        url = url.replace(netloc, f"{user}{':**' if colon else ''}@{place}", 1)
    return _PASSWORD_QUERY.sub(r"\1**", url)


@dataclass(frozen=True)
class Broker:
    """A broker URL that redis-py and Celery both read: ``url`` as given, ``db`` its database."""

    url: str
    db: int

    @property
    def safe(self) -> str:
        return safe_url(self.url)

    def celery_url(self) -> str:
        """The URL in Celery's form: a Unix socket as ``redis+socket:///PATH?virtual_host=DB``."""
        return celery_url(self.url)


def _db(text: str, url: str) -> int:
    if not text.isdigit():
        raise ValueError(f"--broker {safe_url(url)}: the database must be a number (0, 1, ...), not {text!r}")
    return int(text)


def parse_broker(url: str) -> Broker:
    """The broker at ``url``; raises ValueError with a one-line message (password masked) when it is not a
    URL of a Redis server that both redis-py and Celery read."""
    shown = safe_url(url)
    if "://" not in url or any(character.isspace() for character in url):
        raise ValueError(f"--broker {shown!r} is not a URL: give {FORMS}")
    parts = urlsplit(url)
    if parts.scheme.lower() not in SCHEMES:
        raise ValueError(f"--broker {shown}: {parts.scheme}:// is not a Redis broker: give {FORMS}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"--broker {shown}: the port must be a number from 1 to 65535") from None
    query = parse_qs(parts.query)
    if parts.scheme.lower() == "unix":
        if parts.path in ("", "/"):
            raise ValueError(f"--broker {shown}: give the socket's path: unix:///PATH?db=DB")
        db = _db(query.get("db", ["0"])[-1], url)
    else:
        if port == 0:
            raise ValueError(f"--broker {shown}: the port must be a number from 1 to 65535")
        if "db" in query:
            raise ValueError(f"--broker {shown}: give the database in the path (redis://HOST:PORT/DB)")
        path = parts.path.strip("/")
        db = _db(path, url) if path else 0
    try:
        parse_url(url)
    except ValueError as error:
        raise ValueError(f"--broker {shown}: {error}") from None
    return Broker(url, db)


def celery_url(url: str) -> str:
    """``url`` as Celery reads it: a redis-py ``unix://`` URL becomes ``redis+socket://`` with its
    database as ``virtual_host``; any other URL as it is."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "unix":
        return url
    query = parse_qs(parts.query)
    db = query.pop("db", ["0"])[-1]
    query["virtual_host"] = [db]
    return f"redis+socket://{parts.netloc}{parts.path}?{urlencode(query, doseq=True)}"


def reach(broker: Broker, patience: float = 5.0, every: float = 0.5) -> str | None:
    """None once the broker answers a PING, else why not (one line) after ``patience`` seconds of asking
    every ``every`` seconds (a broker restarting is back within them)."""
    deadline = time.monotonic() + patience
    client = redis.Redis.from_url(broker.url, socket_connect_timeout=every * 4, socket_timeout=every * 4)
    try:
        while True:
            try:
                client.ping()
                return None
            except redis.RedisError as error:
                if time.monotonic() + every > deadline:
                    return f"broker {broker.safe} unreachable for {patience:.0f} s: {error}"
            time.sleep(every)
    finally:
        client.close()
