"""ctypes view of a third-party library's aclrtStream handles."""

import ctypes
from typing import Optional


class StreamHandle:
    """An aclrtStream owned by the vendor library, as ctypes gives it to us."""

    __slots__ = ("_ptr", "device", "owner")

    def __init__(self, ptr: ctypes.c_void_p, device: int = 0, owner: Optional[str] = None):
        self._ptr = ptr
        self.device = device
        self.owner = owner

    @classmethod
    def from_address(cls, address: int, device: int = 0) -> "StreamHandle":
        return cls(ctypes.c_void_p(address), device)

    @property
    def ptr(self) -> ctypes.c_void_p:
        return self._ptr

    @property
    def address(self) -> int:
        return self._ptr.value or 0

    def __int__(self) -> int:
        return self.address

    def __bool__(self) -> bool:
        return bool(self._ptr.value)

    def __repr__(self) -> str:
        return f"StreamHandle(0x{self.address:x}, device={self.device})"
