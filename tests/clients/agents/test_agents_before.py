"""``before.judge``: whether an edit changed a file, against the file's state before it."""

from __future__ import annotations

from graphmem.agents.before import FRESH_WRITE_S, FileNow, Verdict, judge

NOW = 1_000_000.0
JUST_WRITTEN = FileNow("/r/f.py", "d2", NOW - 0.2)


def test_the_sessions_own_record_decides() -> None:
    assert judge(JUST_WRITTEN, session="s", mine={"/r/f.py": "d1"}, last={}, now=NOW) is Verdict.CHANGED
    assert judge(JUST_WRITTEN, session="s", mine={"/r/f.py": "d2"}, last={}, now=NOW) is Verdict.SAME_AS_BEFORE
    # even when another session reported the same state since: this session saw it changed
    assert judge(JUST_WRITTEN, session="s", mine={"/r/f.py": "d1"}, last={"/r/f.py": ("d2", "t")},
                 now=NOW) is Verdict.CHANGED


def test_a_new_session_does_not_inherit_another_sessions_edit() -> None:
    last = {"/r/f.py": ("d2", "other")}
    assert judge(JUST_WRITTEN, session="s", mine={}, last=last, now=NOW) is Verdict.ANOTHER_SESSION
    assert judge(JUST_WRITTEN, session="other", mine={}, last=last, now=NOW) is Verdict.SAME_AS_BEFORE
    moved_on = {"/r/f.py": ("d1", "other")}  # the file changed since that session reported it
    assert judge(JUST_WRITTEN, session="s", mine={}, last=moved_on, now=NOW) is Verdict.CHANGED
    nobody = {"/r/f.py": ("d2", "")}  # a hook without a session id proves nothing
    assert judge(JUST_WRITTEN, session="s", mine={}, last=nobody, now=NOW) is Verdict.CHANGED


def test_a_file_modified_before_the_tool_ran_was_not_written_by_it() -> None:
    old = FileNow("/r/f.py", "d2", NOW - FRESH_WRITE_S - 1)
    assert judge(old, session="s", mine={}, last={}, now=NOW) is Verdict.NOT_WRITTEN
    assert judge(JUST_WRITTEN, session="s", mine={}, last={}, now=NOW) is Verdict.CHANGED


def test_a_removed_file_is_a_change_unless_the_session_saw_it_gone() -> None:
    gone = FileNow("/r/f.py", "", 0.0)
    assert judge(gone, session="s", mine={}, last={}, now=NOW) is Verdict.CHANGED
    assert judge(gone, session="s", mine={"/r/f.py": "d1"}, last={}, now=NOW) is Verdict.CHANGED
    assert judge(gone, session="s", mine={"/r/f.py": ""}, last={}, now=NOW) is Verdict.SAME_AS_BEFORE
    assert judge(gone, session="s", mine={}, last={"/r/f.py": ("", "other")}, now=NOW) is Verdict.CHANGED
