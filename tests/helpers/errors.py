"""What every error message must do (docs/design.md §9), checked without pinning its wording.

An error is one line that names what it is about (the file, URI or model)
first and says why.  Tests check those parts and the key phrases a user acts
on (the option to pass, the value found); the rest of the sentence may be
reworded without a test changing.
"""

from __future__ import annotations


def one_line(err, subject: str, *phrases: str) -> str:
    """The message of ``err`` (an exception, or pytest's ``ExceptionInfo``), after checking that it is one
    line, starts with ``subject`` and holds each of ``phrases``."""
    message = str(getattr(err, "value", err))
    assert "\n" not in message, f"not one line: {message!r}"
    assert message.startswith(subject), f"does not start with {subject!r}: {message!r}"
    missing = [p for p in phrases if p not in message]
    assert not missing, f"{missing} not in {message!r}"
    return message
