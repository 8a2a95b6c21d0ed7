"""Minimal reproduction: memory grows on every mode switch in an app with a Footer."""
import asyncio, gc, sys, tracemalloc
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

class S(Screen):
    BINDINGS = [Binding("x", "noop", "Something")]
    def compose(self) -> ComposeResult:
        yield Static(self.__class__.__name__)
        yield Footer()
    def action_noop(self) -> None: pass

class A(S): pass
class B(S): pass

class LeakApp(App):
    MODES = {"a": A, "b": B}
    DEFAULT_MODE = "a"

async def main(n: int) -> None:
    app = LeakApp()
    async with app.run_test() as pilot:
        for i in range(20):
            await app.switch_mode("b" if i % 2 == 0 else "a"); await pilot.pause()
        gc.collect(); tracemalloc.start(); base = tracemalloc.get_traced_memory()[0]
        snap1 = tracemalloc.take_snapshot()
        for i in range(n):
            await app.switch_mode("b" if i % 2 == 0 else "a"); await pilot.pause()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - base
        snap2 = tracemalloc.take_snapshot()
        print(f"{n} switches: +{grown/1024:.0f} KiB ({grown/n/1024:.1f} KiB/switch)")
        for stat in snap2.compare_to(snap1, "traceback")[:3]:
            print(stat); print("\n".join(stat.traceback.format()[-8:]))
asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
