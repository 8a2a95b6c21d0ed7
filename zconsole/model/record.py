"""`record`: a frozen dataclass that costs a third as much to define.

`@record` makes the same class as `@dataclass(frozen=True)`: the same fields, `__init__`
signature, `repr`, `==`, `hash`, `FrozenInstanceError` on assignment, `dataclasses.fields`,
`replace`, `asdict`, pickling and `match`. What differs is the price of the definition. On
Python 3.10-3.12 the standard decorator compiles six functions from source for every frozen
class (`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`): about
0.4 ms a class, paid at every start. The console's first frame imports some forty such classes
before it can draw, and they cost it ~13 ms (issue 11, `bench/budgets.py --only first_frame`).
`record` compiles only `__init__` (it must be fast: some of these classes are made per disk,
per refresh) and shares one written-once implementation of the other five among every
record.

Use it for value classes on the path to the first frame: `@record` where `@dataclass(frozen=True)`
would be. What it does not take (it says so at import, never silently): `InitVar` and
keyword-only fields, and options; write `@dataclass(frozen=True)` for those. A record may
subclass a record; a frozen dataclass may subclass a record.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import reprlib
import sys
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

if sys.version_info >= (3, 11):
    from typing import dataclass_transform  # novermin (3.10 takes the branch below)
else:  # pragma: no cover - Python 3.10
    from typing_extensions import dataclass_transform

C = TypeVar("C", bound=type)

_RECORD = "__zconsole_record__"  # set on every record class: it is one, and not inherited
_FIELD_INITVAR = getattr(dataclasses, "_FIELD_INITVAR", None)
_OBJECT_SETATTR = object.__setattr__


class _HasDefaultFactory:
    """The default of a parameter whose field has a default_factory (as in dataclasses)."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_DEFAULT_FACTORY = _HasDefaultFactory()


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these attributes of an object (a tuple even for one or none)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


def _nearest_record(cls: type) -> Any:
    return next(c for c in cls.__mro__ if c.__dict__.get(_RECORD))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    # as dataclasses': an instance of the record itself takes no attribute at all, one of a
    # plain subclass takes attributes that are not fields
    cls = type(self)
    if cls.__dict__.get(_RECORD) or name in cls.__dataclass_fields__:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    super(_nearest_record(cls), self).__setattr__(name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    cls = type(self)
    if cls.__dict__.get(_RECORD) or name in cls.__dataclass_fields__:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
    super(_nearest_record(cls), self).__delattr__(name)


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    cls = type(self)
    names = cls.__record_repr__
    values = cls.__record_repr_values__(self)
    inner = ", ".join(f"{n}={v!r}" for n, v in zip(names, values, strict=True))
    return f"{cls.__qualname__}({inner})"


def _eq(self: Any, other: object) -> bool:
    cls: Any = type(self)
    key = cls.__record_compare__
    if other.__class__ is cls:
        return bool(key(self) == key(other))
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__class__.__record_hash__(self))


def _init(cls: type, fields: list[dataclasses.Field[Any]]) -> Callable[..., None]:
    """`__init__`, compiled from source once, as dataclasses writes it for a frozen class."""
    params: list[str] = []
    body: list[str] = []
    scope: dict[str, Any] = {"_setattr": _OBJECT_SETATTR,
                             "_HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY}
    seen_default = False
    for f in fields:
        dflt = f"_dflt_{f.name}"
        if f.default_factory is not dataclasses.MISSING:
            scope[dflt] = f.default_factory
            if f.init:
                params.append(f"{f.name}=_HAS_DEFAULT_FACTORY")
                value = f"{dflt}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}"
            else:
                value = f"{dflt}()"
        elif f.init:
            if f.default is not dataclasses.MISSING:
                scope[dflt] = f.default
                params.append(f"{f.name}={dflt}")
            else:
                if seen_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")
                params.append(f.name)
            value = f.name
        else:
            continue  # init=False and no factory: the class attribute is the value
        if f.init and (f.default is not dataclasses.MISSING
                       or f.default_factory is not dataclasses.MISSING):
            seen_default = True
        body.append(f"  _setattr(self, {f.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    names = ", ".join(scope)
    source = (f"def __create__({names}):\n"
              f" def __init__(self{''.join(', ' + p for p in params)}):\n"
              + ("\n".join(" " + line for line in body) or "  pass") + "\n"
              " return __init__\n")
    ns: dict[str, Any] = {}
    exec(source, {}, ns)
    init: Callable[..., None] = ns["__create__"](**scope)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = {**{f.name: f.type for f in fields if f.init}, "return": None}
    return init


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,
                                                            dataclasses.Field))
def record(cls: C) -> C:
    """`@dataclass(frozen=True)` for value classes on the path to the first frame: see the
    module's docstring."""
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"{cls.__qualname__}: a record writes its own {name}")
    for base in cls.__mro__[1:]:
        params = getattr(base, "__dataclass_params__", None)
        if params is not None and not params.frozen:
            raise TypeError(f"{cls.__qualname__}: a record cannot inherit from the non-frozen "
                            f"dataclass {base.__qualname__}")
    undocumented = not cls.__dict__.get("__doc__")
    # The fields, their class-attribute defaults and __match_args__, as dataclasses makes
    # them, without any of the methods.
    # (frozen only below a frozen base, which dataclasses requires: it then writes
    # __setattr__ and __delattr__, replaced below)
    below_frozen = any(getattr(getattr(b, "__dataclass_params__", None), "frozen", False)
                       for b in cls.__mro__[1:])
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False,  # type: ignore[assignment]
                                frozen=below_frozen)
    every = cls.__dataclass_fields__  # type: ignore[attr-defined]
    if _FIELD_INITVAR is not None and any(
            f._field_type is _FIELD_INITVAR for f in every.values()):
        raise TypeError(f"{cls.__qualname__}: a record takes no InitVar: use a dataclass")
    fields = list(dataclasses.fields(cls))
    if any(getattr(f, "kw_only", False) is True for f in fields):
        raise TypeError(f"{cls.__qualname__}: a record takes no keyword-only field: use a "
                        "dataclass")
    setattr(cls, _RECORD, True)
    cls.__init__ = _init(cls, fields)  # type: ignore[misc]
    cls.__record_repr__ = tuple(f.name for f in fields if f.repr)  # type: ignore[attr-defined]
    cls.__record_repr_values__ = staticmethod(  # type: ignore[attr-defined]
        _getter(cls.__record_repr__))  # type: ignore[attr-defined]
    cls.__record_compare__ = staticmethod(  # type: ignore[attr-defined]
        _getter(tuple(f.name for f in fields if f.compare)))
    cls.__record_hash__ = staticmethod(_getter(tuple(  # type: ignore[attr-defined]
        f.name for f in fields if (f.compare if f.hash is None else f.hash))))
    cls.__repr__ = _repr  # type: ignore[assignment]
    cls.__eq__ = _eq  # type: ignore[assignment]
    cls.__hash__ = _hash  # type: ignore[assignment]
    cls.__setattr__ = _frozen_setattr  # type: ignore[assignment]
    cls.__delattr__ = _frozen_delattr  # type: ignore[assignment]
    # What introspection (and a frozen dataclass subclassing this one) reads: init, repr,
    # eq and frozen, as @dataclass(frozen=True) would have recorded them.
    params = copy.copy(cls.__dataclass_params__)  # type: ignore[attr-defined]
    for name in ("init", "repr", "eq", "frozen"):
        setattr(params, name, True)
    cls.__dataclass_params__ = params  # type: ignore[attr-defined]
    if undocumented:  # as dataclasses documents a class without a docstring: its signature
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    return cls
