"""Each board view is a whole browse screen: it defines every hook the base leaves to its views."""

from __future__ import annotations

import pytest

from memboard.board.browse import BrowseScreen
from memboard.board.notes.screen import NotesScreen
from memboard.board.sessions import SessionsScreen


@pytest.mark.parametrize("view", [SessionsScreen, NotesScreen], ids=lambda view: view.__name__)
def test_a_view_defines_every_hook_the_browse_screen_leaves_to_it(view):
    assert issubclass(view, BrowseScreen)
    left_out = [name for name in BrowseScreen.VIEW_HOOKS if getattr(view, name) is getattr(BrowseScreen, name)]
    assert left_out == []


def test_the_hooks_named_are_the_ones_the_base_leaves_undefined():
    import inspect

    undefined = {
        name
        for name, member in vars(BrowseScreen).items()
        if inspect.isfunction(member) and "raise NotImplementedError" in inspect.getsource(member)
    }
    assert undefined == set(BrowseScreen.VIEW_HOOKS)
