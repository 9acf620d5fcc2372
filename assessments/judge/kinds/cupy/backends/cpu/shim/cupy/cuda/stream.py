"""Streams and events: work on the CPU backend is synchronous, so these only keep up appearances."""
from __future__ import annotations


class Event:
    """cupy.cuda.Event; elapsed times measured with events are 0.0 on the CPU backend."""

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.block = block
        self.disable_timing = disable_timing
        self.interprocess = interprocess
        self.ptr = id(self)
        self._recorded = False

    def record(self, stream=None):
        self._recorded = True

    def synchronize(self):
        return None

    @property
    def done(self) -> bool:
        return True


def get_elapsed_time(start_event, end_event) -> float:
    """Milliseconds between two events: always 0.0 here (timing happens on the GPU backend)."""
    return 0.0


class Stream:
    """cupy.cuda.Stream; `Stream.null` is the default stream."""

    null: "Stream"

    def __init__(self, null=False, non_blocking=False, ptr=0, priority=None):
        self.ptr = 0 if null else (ptr or id(self))
        self.non_blocking = non_blocking
        self.priority = priority or 0
        self.device_id = 0
        self._previous = []

    def __enter__(self):
        self._previous.append(_current[0])
        _current[0] = self
        return self

    def __exit__(self, *exc):
        _current[0] = self._previous.pop() if self._previous else Stream.null
        return False

    def use(self):
        _current[0] = self
        return self

    def synchronize(self):
        return None

    @property
    def done(self) -> bool:
        return True

    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event):
        return None

    def add_callback(self, callback, arg):
        callback(self, 0, arg)

    def launch_host_func(self, callback, arg):
        callback(arg)

    def __eq__(self, other):
        return isinstance(other, Stream) and other.ptr == self.ptr

    def __hash__(self):
        return hash(self.ptr)

    def __repr__(self):
        return f"<Stream {self.ptr} (device 0)>"


class ExternalStream(Stream):
    def __init__(self, ptr, device_id=-1):
        super().__init__(ptr=ptr)


Stream.null = Stream(null=True)
_current = [Stream.null]


def get_current_stream(device_id=-1) -> Stream:
    return _current[0]
