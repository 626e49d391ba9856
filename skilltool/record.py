"""The base every value type is: `typing.NamedTuple` to type checkers, a cheaper class at run time.

`typing.NamedTuple` costs about 0.4 ms a class at import (it compiles every string
annotation into a `ForwardRef`, then `collections.namedtuple` compiles a `__new__`):
some 12 ms of a cold `status`, a tenth of `import typer`. This base builds the same
tuple subclass from the class body without compiling anything, and compiles a class's
`__new__` (the one `collections.namedtuple` would) only once it has made many instances.
Instances are plain tuples of the same class shape: equality, hashing, unpacking,
`_replace`, `_make`, `_asdict`, `_fields` and the repr are those of a named tuple.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    try:  # the C field accessor that collections.namedtuple uses
        from collections import _tuplegetter
    except ImportError:  # pragma: no cover - every CPython skilltool supports has it
        from operator import itemgetter

        def _tuplegetter(index: int, doc: str) -> Any:
            return property(itemgetter(index), doc=doc)

    from types import MappingProxyType

    _tuple_new = tuple.__new__

    class _RecordType(type):
        """Turns a class body of annotated fields into a named-tuple class."""

        def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
            if ns.get("_record_base"):  # the base itself
                return super().__new__(mcls, name, bases, ns)
            fields = tuple(ns.get("__annotations__", {}))
            defaults = {f: ns.pop(f) for f in fields if f in ns}
            required = fields[: len(fields) - len(defaults)]
            if any(f in defaults for f in required) or any(f.startswith("_") for f in fields):
                raise TypeError(f"{name}: fields with a default must come last, none start with _")
            for index, field in enumerate(fields):
                ns[field] = _tuplegetter(index, f"Alias for field number {index}")
            ns.update(
                __slots__=(),
                _fields=fields,
                _field_defaults=defaults,
                __match_args__=fields,
                __new__=_first_new,
            )
            return super().__new__(mcls, name, (_Record,), ns)

    _made: dict[type, int] = {}
    OFTEN = 64  # instances of a class after which its `__new__` is compiled

    def _first_new(cls: Any, *args: Any, **kwargs: Any) -> Any:
        """The `__new__` of a class made rarely: the fields bound here; one made often gets
        the compiled `__new__` of collections.namedtuple, as does a call that binds badly
        (for its exact TypeError)."""
        made = _made[cls] = _made.get(cls, 0) + 1
        values = args if not kwargs and len(args) == len(cls._fields) else _bind(cls, args, kwargs)
        if values is None or made > OFTEN:
            if cls.__new__ is _first_new:
                cls.__new__ = _compiled_new(cls)
            return cls.__new__(cls, *args, **kwargs)
        return _tuple_new(cls, values)

    def _bind(cls: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
        """The values of the fields, or None when the arguments do not fit them."""
        fields, defaults = cls._fields, cls._field_defaults
        if len(args) > len(fields):
            return None
        values = list(args)
        kwargs = dict(kwargs)
        for field in fields[len(args) :]:
            if field in kwargs:
                values.append(kwargs.pop(field))
            elif field in defaults:
                values.append(defaults[field])
            else:
                return None
        return None if kwargs else values

    def _compiled_new(cls: Any) -> Any:
        fields = cls._fields
        names = ", ".join(fields)
        one = "," if len(fields) == 1 else ""
        code = f"lambda _cls, {names}: _tuple_new(_cls, ({names}{one}))"
        new = eval(code, {"_tuple_new": _tuple_new, "__builtins__": {}}, {})
        new.__name__ = "__new__"
        new.__qualname__ = f"{cls.__qualname__}.__new__"
        new.__defaults__ = tuple(cls._field_defaults.values()) or None
        new.__doc__ = f"Create new instance of {cls.__name__}({names})"
        return new

    class _Record(tuple, metaclass=_RecordType):
        """What every record shares: the methods of a `collections.namedtuple`."""

        __slots__ = ()
        _record_base = True
        _fields = ()
        _field_defaults = MappingProxyType({})

        @classmethod
        def _make(cls, iterable: Any) -> Any:
            made = _tuple_new(cls, iterable)
            if len(made) != len(cls._fields):
                raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(made)}")
            return made

        def _replace(self, /, **changes: Any) -> Any:
            made = self._make(map(changes.pop, self._fields, self))
            if changes:
                raise TypeError(f"Got unexpected field names: {list(changes)!r}")
            return made

        def __repr__(self) -> str:
            shown = ", ".join(f"{f}={v!r}" for f, v in zip(self._fields, self, strict=True))
            return f"{type(self).__name__}({shown})"

        def _asdict(self) -> dict[str, Any]:
            return dict(zip(self._fields, self, strict=True))

        def __getnewargs__(self) -> tuple[Any, ...]:
            return tuple(self)

    class NamedTuple(_Record):
        """Subclass this as `typing.NamedTuple` is subclassed."""

        __slots__ = ()
        _record_base = True
