"""`record` makes the class `@dataclass(frozen=True)` makes: each shape of class below is
defined both ways and every behaviour is compared."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import sys
import types
from typing import Any

import pytest

from zconsole.model.record import record

SHAPES = {
    "plain": """
class K:
    '''doc'''
    a: int
    b: str
""",
    "defaults": """
class K:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()
    d: float | None = None
""",
    "factory": """
class K:
    a: int
    tags: list[str] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict, compare=False)
""",
    "options": """
class K:
    a: int
    b: int = field(default=2, repr=False)
    c: int = field(default=3, compare=False)
    d: int = field(default=4, hash=False)
    e: int = field(default=5, init=False)
    f: list[int] = field(default_factory=lambda: [9], init=False)
""",
    "hashing": """
class K:
    a: int
    b: str = "x"
    c: int = field(default=3, compare=False)
    d: int = field(default=4, hash=False)
""",
    "classvar": """
class K:
    LIMIT: ClassVar[int] = 3
    a: int = 1
""",
    "post_init": """
class K:
    a: int
    b: int = 0
    def __post_init__(self):
        object.__setattr__(self, "b", self.a * 2)
""",
    "generic": """
class K(Generic[T]):
    value: T | None
    error: str | None = None
""",
    "empty": """
class K:
    '''nothing'''
""",
    "methods": """
class K:
    a: int
    @property
    def twice(self) -> int:
        return self.a * 2
    def plus(self, n: int) -> K:
        return replace(self, a=self.a + n)
""",
}

ARGS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "plain": ((1, "b"), {}),
    "defaults": ((1,), {"d": 2.5}),
    "factory": ((1,), {}),
    "options": ((1, 20), {"c": 30}),
    "classvar": ((), {"a": 7}),
    "hashing": ((1,), {"d": 8}),
    "post_init": ((3,), {}),
    "generic": ((5,), {}),
    "empty": ((), {}),
    "methods": ((4,), {}),
}


def _define(shape: str, decorator: str, module: str) -> type:
    """Class `K` of this shape, made by the decorator, in a module of its own (pickle finds
    it there)."""
    mod = types.ModuleType(module)
    sys.modules[module] = mod
    src = ("from __future__ import annotations\n"
           "from dataclasses import dataclass, field, replace\n"
           "from typing import ClassVar, Generic, TypeVar\n"
           "from zconsole.model.record import record\n"
           "T = TypeVar('T')\n"
           f"@{decorator}" + SHAPES[shape])
    exec(compile(src, f"<{module}>", "exec"), mod.__dict__)
    return mod.__dict__["K"]


@pytest.fixture(params=sorted(SHAPES))
def pair(request: pytest.FixtureRequest) -> tuple[str, type, type]:
    shape = request.param
    return (shape, _define(shape, "dataclass(frozen=True)", f"_rec_dc_{shape}"),
            _define(shape, "record", f"_rec_rec_{shape}"))


def _make(cls: type, shape: str) -> Any:
    args, kwargs = ARGS[shape]
    return cls(*args, **kwargs)


def test_the_same_fields_signature_and_params(pair: tuple[str, type, type]) -> None:
    shape, dc, rec = pair
    assert [(f.name, f.type, f.init, f.repr, f.compare, f.hash)
            for f in dataclasses.fields(rec)] == \
        [(f.name, f.type, f.init, f.repr, f.compare, f.hash) for f in dataclasses.fields(dc)]
    assert str(inspect.signature(rec)) == str(inspect.signature(dc))
    assert rec.__match_args__ == dc.__match_args__
    assert dataclasses.is_dataclass(rec)
    for name in ("init", "repr", "eq", "frozen", "order", "unsafe_hash"):
        assert getattr(rec.__dataclass_params__, name) == \
            getattr(dc.__dataclass_params__, name), name
    if dc.__doc__ and not dc.__doc__.startswith("K("):
        assert rec.__doc__ == dc.__doc__
    else:  # made from the signature by both
        assert rec.__doc__ == dc.__doc__.replace("dataclasses._HAS_DEFAULT_FACTORY", "")


def test_the_same_values_repr_equality_and_hash(pair: tuple[str, type, type]) -> None:
    shape, dc, rec = pair
    a, b = _make(dc, shape), _make(rec, shape)
    assert dataclasses.asdict(b) == dataclasses.asdict(a)
    assert dataclasses.astuple(b) == dataclasses.astuple(a)
    assert repr(b).replace("_rec_rec_", "") == repr(a).replace("_rec_dc_", "")
    assert repr(b) == repr(a)  # the class's qualname only, as dataclasses'
    assert b == _make(rec, shape) and not (b != _make(rec, shape))
    try:
        expected: object = hash(a) == hash(_make(dc, shape))
    except TypeError as e:  # a list among the hashed fields: both refuse alike
        expected = str(e)
    try:
        got: object = hash(b) == hash(_make(rec, shape))
    except TypeError as e:
        got = str(e)
    assert got == expected
    assert (b == a) is False  # another class: not equal, as between two dataclasses
    assert b.__eq__(object()) is NotImplemented
    if shape == "factory":
        assert b.tags is not _make(rec, shape).tags  # one new list per instance
        assert b == dataclasses.replace(b, seen={"x": 1})  # compare=False
    if shape == "options":
        assert b.e == 5 and b.f == [9]
        assert b == dataclasses.replace(b, c=99)
        assert "unhashable" in expected  # type: ignore[operator]  # f: a list
        assert b != dataclasses.replace(b, d=99)
        assert "b=" not in repr(b)
    if shape in ("plain", "defaults", "hashing", "generic", "classvar"):
        assert hash(b) == hash(a)  # the same fields hashed, in the same order
    if shape == "hashing":
        assert b == dataclasses.replace(b, c=99)  # compare=False: neither compared nor hashed
        assert hash(b) == hash(dataclasses.replace(b, c=99))
        assert b != dataclasses.replace(b, d=99)  # hash=False: compared, not hashed
        assert hash(b) == hash(dataclasses.replace(b, d=99))
        assert hash(b) != hash(dataclasses.replace(b, b="y"))
    if shape == "post_init":
        assert b.b == 6
    if shape == "methods":
        assert b.twice == 8 and b.plus(1) == rec(5)


def test_frozen_as_a_dataclass(pair: tuple[str, type, type]) -> None:
    shape, dc, rec = pair
    for obj in (_make(dc, shape), _make(rec, shape)):
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.a = 99
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.new_attribute = 1
        with pytest.raises(dataclasses.FrozenInstanceError):
            del obj.a


def test_replace_copy_and_pickle(pair: tuple[str, type, type]) -> None:
    shape, _, rec = pair
    b = _make(rec, shape)
    for other in (copy.copy(b), copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
        assert other == b and type(other) is rec
    fields = [f.name for f in dataclasses.fields(rec) if f.init]
    if fields:
        assert dataclasses.replace(b) == b


def test_match_and_generic_alias() -> None:
    gen = _define("generic", "record", "_rec_rec_generic2")
    made = gen[int](3)  # typing sets __orig_class__ where it can: a frozen class refuses
    assert made.value == 3
    match made:
        case gen(value, error):
            assert (value, error) == (3, None)
        case _:
            pytest.fail("no match")


def test_subclasses() -> None:
    base = _define("defaults", "record", "_rec_sub_base")

    @record
    class Child(base):  # type: ignore[misc,valid-type]
        e: int = 9

    c = Child(1)
    assert (c.a, c.b, c.e) == (1, "x", 9)
    assert c != base(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.e = 1

    @dataclasses.dataclass(frozen=True)
    class Frozen(base):  # type: ignore[misc,valid-type]
        f: int = 0

    assert Frozen(2, f=3).f == 3

    class Plain(base):  # type: ignore[misc,valid-type]
        pass

    p = Plain(1)
    p.extra = 5  # a plain subclass takes attributes that are not fields, as dataclasses'
    assert p.extra == 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.a = 2


def test_what_a_record_refuses() -> None:
    with pytest.raises(TypeError, match="follows default"):
        @record
        class Order:
            a: int = 1
            b: int

    with pytest.raises(TypeError, match="InitVar"):
        @record
        class Init:
            a: dataclasses.InitVar[int]

    with pytest.raises(TypeError, match="keyword-only"):
        @record
        class Kw:
            a: int = dataclasses.field(kw_only=True)

    with pytest.raises(TypeError, match="writes its own __eq__"):
        @record
        class Eq:
            a: int

            def __eq__(self, other: object) -> bool:
                return True

    @dataclasses.dataclass
    class Mutable:
        a: int

    with pytest.raises(TypeError, match="non-frozen"):
        @record
        class FromMutable(Mutable):
            b: int = 0
