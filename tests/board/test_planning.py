"""While a flow is at work (or its plan is built), the board's background work waits between its batches; while
the flow waits for the user's answer, it goes on (app/board/planning.py)."""

from __future__ import annotations

import threading

from memboard.board.planning import Planning


def test_background_work_waits_while_a_flow_is_at_work_and_goes_on_while_it_asks():
    planning = Planning()
    assert planning.wait_idle(0) and not planning.busy
    with planning.building():  # the flow
        assert planning.busy and not planning.wait_idle(0.01)
        with planning.building():  # its plan, in the planning thread
            assert not planning.wait_idle(0)
        with planning.aside():  # the flow shows its preview and waits for the answer
            assert planning.wait_idle(0)
        assert not planning.wait_idle(0)
    assert planning.wait_idle(0)


def test_a_waiter_goes_on_as_soon_as_the_last_one_at_work_is_done():
    planning = Planning()
    started, done = threading.Event(), threading.Event()
    went_on: list[bool] = []

    def background() -> None:
        started.set()
        went_on.append(planning.wait_idle(5.0))
        done.set()

    with planning.building():
        thread = threading.Thread(target=background)
        thread.start()
        started.wait(5.0)
        assert not done.wait(0.05)  # still at work: the background waits
    assert done.wait(5.0) and went_on == [True]
    thread.join()
