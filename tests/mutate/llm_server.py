"""A real OpenAI-compatible HTTP server for tests: POST /v1/chat/completions answered from a script.

Each request takes the next action of the script: `Reply` (a chat completion with this content and usage),
`Compute` (a completion made from the request),
`Status` (an HTTP error), `Hang` (accept the request and never answer, until the server stops or `seconds`
pass, then drop the connection), `Huge` (a completion whose body is exactly `size` bytes, streamed in chunks
so the server never holds it, with a Content-Length or chunked). A request beyond the script gets HTTP 500
"script exhausted". Every request is recorded (path, headers, JSON body) so tests can assert what was sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHUNK = 64 * 1024


@dataclass(frozen=True)
class Reply:
    """A chat completion holding `content`."""

    content: str
    usage: dict[str, int] | None = field(
        default_factory=lambda: {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200})
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Status:
    """An HTTP error with an OpenAI-style error body and optional headers (e.g. Retry-After)."""

    code: int
    message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    """No answer: the connection stays open for `seconds` (or until the server stops), then is dropped."""

    seconds: float = 30.0


@dataclass(frozen=True)
class Huge:
    """A chat completion whose body is exactly `size` bytes (nearly all of it message content)."""

    size: int
    chunked: bool = False


@dataclass(frozen=True)
class Compute:
    """A chat completion whose content `answer` makes from the request's JSON body (e.g. edits the template
    the prompt carries)."""

    answer: Callable[[Any], str]
    usage: dict[str, int] | None = field(
        default_factory=lambda: {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200})


Action = Reply | Status | Hang | Huge | Compute


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body, or the raw text when it is not JSON


def completion(content: str, usage: dict[str, int] | None = None, finish_reason: str = "stop") -> dict[str, Any]:
    """A chat-completion object as an OpenAI-compatible server returns it."""
    body: dict[str, Any] = {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": "scripted-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": finish_reason}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


class ScriptedServer:
    """The server, bound to 127.0.0.1 on a free port in a background thread; use as a context manager."""

    def __init__(self, script: Iterable[Action] = ()) -> None:
        self.script: list[Action] = list(script)
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="llm-server",
                                        daemon=True)

    @property
    def url(self) -> str:
        """The base URL a client is given (OPENAI_BASE_URL)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def push(self, *actions: Action) -> None:
        """Append actions to the script."""
        with self._lock:
            self.script.extend(actions)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release any hung request."""
        self._stopping.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, received: Received) -> Action:
        with self._lock:
            self.requests.append(received)
            return self.script.pop(0) if self.script else Status(500, "script exhausted")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: tests read `requests` instead."""

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw
                received = Received("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    server._next(received)
                    self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                self._act(server._next(received))

            def _act(self, action: Action) -> None:
                if isinstance(action, Reply):
                    self._json(200, completion(action.content, action.usage, action.finish_reason))
                elif isinstance(action, Compute):
                    self._json(200, completion(action.answer(server.requests[-1].body), action.usage))
                elif isinstance(action, Status):
                    self._json(action.code, {"error": {"message": action.message, "type": "scripted"}},
                               action.headers)
                elif isinstance(action, Hang):
                    server._stopping.wait(action.seconds)
                    self.close_connection = True
                else:
                    self._huge(action)

            def _json(self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self._write(data)

            def _huge(self, action: Huge) -> None:
                head, tail = json.dumps(completion("\0")).encode().split(b"\\u0000")
                filler = max(0, action.size - len(head) - len(tail))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if action.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(len(head) + filler + len(tail)))
                self.end_headers()
                for piece in _pieces(head, filler, tail):
                    if not self._write(b"%x\r\n%s\r\n" % (len(piece), piece) if action.chunked else piece):
                        return
                if action.chunked:
                    self._write(b"0\r\n\r\n")

            def _write(self, data: bytes) -> bool:
                """Send `data`; False once the client has gone (it may drop an answer it refuses)."""
                try:
                    self.wfile.write(data)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True
                    return False
                return True

        return Handler


def _pieces(head: bytes, filler: int, tail: bytes) -> Iterator[bytes]:
    """The body of a `Huge` answer in chunks: the JSON head, `filler` bytes of 'x', the JSON tail."""
    yield head
    while filler > 0:
        size = min(CHUNK, filler)
        yield b"x" * size
        filler -= size
    yield tail
