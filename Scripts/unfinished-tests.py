#!/usr/bin/env python3
"""unfinished-tests.py OUTPUT: the tests Swift Testing started and never ended, in OUTPUT.

`make test` prints them when its run overran TEST_DEADLINE (Scripts/with-deadline.py):
the test that hung is among them. A test "ends" when a line says it passed, failed or
was skipped; the cases of a parameterized test end with their test, so only whole
tests are counted.
"""
import re
import sys

STARTED = re.compile(r"^◇ Test (?!case passing )(.+) started\.$")
ENDED = re.compile(r"^(?:✔|✘|➜) Test (.+?)(?: with \d+ tests? in \d+ suites?| with \d+ test cases?)? (?:passed|failed|skipped)\b")


def unfinished(lines):
    started, ended = [], set()
    for line in lines:
        line = line.rstrip("\n")
        if match := STARTED.match(line):
            started.append(match.group(1))
        elif match := ENDED.match(line):
            ended.add(match.group(1))
    return [name for name in started if name not in ended]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: unfinished-tests.py OUTPUT")
    with open(sys.argv[1], encoding="utf-8", errors="replace") as file:
        names = unfinished(file)
    print("\n".join(names) if names else "(none: every test that started ended)")
