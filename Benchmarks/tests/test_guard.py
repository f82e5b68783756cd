"""The regression guard: the committed figures read back, a run's figures, the verdicts."""
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import guard  # noqa: E402

README = """
text before
<!-- bench-guard:begin -->
| figure | value | noise | better |
|---|---:|---:|---|
| first sync 20k: Shelf CPU / kinto-http CPU | 0.40× | ±0.08 | lower |
| nothing changed: Shelf requests | 1 | 0 | lower |
| storage race: Shelf / Python storage | 1.50× | ±0.20 | higher |
<!-- bench-guard:end -->
"""


def results(cpu_vs_peer=0.42, requests=1, race=1.6):
    return {"scenarios": [
        {"scenario": "first_sync", "size": 20_000, "contenders": {
            "shelf": {"summary": {"cpu_s": {"median": 1.0}}, "ratios": {"cpu_s_vs_peer": cpu_vs_peer, "wall_s_vs_floor": 1.3}}}},
        {"scenario": "no_change", "size": 20_000, "contenders": {
            "shelf": {"summary": {"requests": {"median": requests, "min": requests, "max": requests, "n": 3}}}}},
        {"scenario": "json", "contenders": {}, "swift_vs_python_storage": race},
    ]}


class GuardTests(unittest.TestCase):
    def test_the_committed_rows_are_read_back(self):
        guards = guard.committed(README)
        self.assertEqual([g.name for g in guards], ["first sync 20k: Shelf CPU / kinto-http CPU",
                                                    "nothing changed: Shelf requests", "storage race: Shelf / Python storage"])
        self.assertEqual((guards[0].value, guards[0].noise, guards[0].better), (0.40, 0.08, "lower"))
        self.assertEqual(guard.committed("no block here"), [])

    def test_within_the_noise_is_quiet_and_beyond_it_says_worse(self):
        guards = guard.committed(README)
        lines, worse = guard.verdicts(guards, guard.measured(results()))
        self.assertFalse(worse, lines)
        self.assertTrue(all("within its noise" in line for line in lines), lines)
        lines, worse = guard.verdicts(guards, guard.measured(results(cpu_vs_peer=0.55, requests=7, race=1.1)))
        self.assertTrue(worse)
        self.assertEqual(sum("WORSE" in line for line in lines), 3, lines)
        lines, worse = guard.verdicts(guards, guard.measured(results(cpu_vs_peer=0.2)))
        self.assertFalse(worse)
        self.assertIn("better than committed", lines[0])

    def test_a_figure_the_run_did_not_measure_is_said(self):
        lines, worse = guard.verdicts(guard.committed(README), {})
        self.assertFalse(worse)
        self.assertTrue(all("not measured" in line for line in lines))


if __name__ == "__main__":
    unittest.main()
