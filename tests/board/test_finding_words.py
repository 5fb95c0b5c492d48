"""The board says the commands doctor's findings name in its keys, from the finding's parts, never by rewriting text."""

from __future__ import annotations

from memboard.board.wording import FINDING_WORDS, REMEDY_WORDS, board_words
from memboard.core.errors import Remedy, said
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.clock import now
from memboard.core.ops.doctor import diagnose
from tests.support.roots import Mem, idle_line, row_line

B = "2026-05-30-0800-claude-agent"
C = "2026-05-31-0900-codex-agent"


def test_a_one_sided_link_without_a_snapshot_reads_in_the_command_lines_words_and_the_boards(root):
    mem = Mem(root)
    mem.index(row_line(B, refs=C), idle_line(C))
    mem.snapshot(B)  # C has no snapshot: B's row lists it, and nothing records the link on C's side
    findings, _plan = diagnose(MemoryRoot(root), now())
    (finding,) = [f for f in findings if f.kind == "one_sided_link" and f.id == C]
    assert finding.message == (
        f"{B} lists it in Referenced By, but it has no snapshot: run `memboard continue {B} --as {C}` to record the "
        f"link there, or `memboard release {B} --as {C}` to drop it"
    )
    assert board_words(finding.message) == (
        f"{B} lists it in Referenced By, but it has no snapshot: run select {B} and press c (choosing {C}) to record "
        "the link there, or r to drop it"
    )


def test_the_board_words_a_command_by_its_part_whatever_the_text_around_it():
    text = said("then ", (Remedy.DOCTOR, "run the checker"), "; or ", (Remedy.UPDATE_SUMMARY, "edit it", "S"), " later")
    assert text == "then run the checker; or edit it later"  # the command line's words, as the core wrote them
    assert board_words(text) == "then press d (doctor); or u on S later"


def test_plain_text_that_names_a_command_is_not_rewritten():
    line = "then run `memboard doctor` again; `memboard update S --summary ...` changes them"
    assert board_words(line) == line


def test_the_board_has_words_for_every_remedy():
    remedies = {value for name, value in vars(Remedy).items() if not name.startswith("_")}
    assert remedies == set(REMEDY_WORDS) | set(FINDING_WORDS)


async def test_doctor_s_preview_counts_agree_with_their_verb_one_needs_a_hand_two_need_one(root, write_index, make_row):
    # issue 27 §4: the preview said "1 need a hand" for a single finding left to a hand
    from memboard.board.screens import PreviewScreen
    from tests.flows.driving import make_app, ready, wait_for_flow, wait_for_screen

    good = make_row("2026-05-30-1000-alpha", "idle")
    for broken, counted in ((1, "1 needs a hand"), (2, "2 need a hand")):
        write_index([good], extra="".join(f"| 2026-05-30-110{n}-beta | x | y |\n" for n in range(broken)))
        app = make_app(root)
        async with app.run_test(size=(120, 30)) as pilot:
            await ready(pilot)
            await pilot.press("d")
            preview = await wait_for_screen(pilot, PreviewScreen)
            noun = "inconsistency" if broken == 1 else "inconsistencies"
            assert preview.view.headline == [f"Found {broken} {noun}: 0 will be repaired, {counted}."]
            assert preview.body_text.splitlines()[0] == f"malformed_row ({broken}): {counted}"
            await pilot.press("escape")
            await wait_for_flow(pilot)
