#!/usr/bin/env python3
"""Shelf's convergence harness: randomized multi-device histories against a real Kinto.

Several devices (separate XDG homes, one Kinto user) add, edit, finish and delete books,
notes and tasks through the real `shelf` CLI and sync with the real `shelf-sync`,
which is killed with SIGKILL at random moments while the fault proxy loses, cuts or
resets replies after Kinto applied the request. In concurrent mode several devices also
push into the same collections at the same moment, against Kinto on PostgreSQL. At every
barrier all devices sync until quiet and the checker compares every device with the
model of acknowledged edits and with the server's records, and the server with the
model. See README.md here for the modes and how to replay a failure.

Exit status: 0 every run converged, 1 a run diverged (its seed and history are
printed), 2 the harness could not run (no Kinto, no binaries), 64 usage.
"""
import argparse
import faulthandler
import json
import os
import pathlib
import signal
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from checker import KINDS  # noqa: E402
from cluster import ROOT, HarnessError, Servers  # noqa: E402
from driver import Driver, RunStats  # noqa: E402
from generator import MODES, OPERATOR_MIX, OPERATOR_PROBABILITY, Parameters, generate  # noqa: E402
from shrink import failure_kinds, shrink  # noqa: E402

DIVERGENCES = ("missing", "extra", "wrong", "resurrected", "local-edit", "server-only", "plaintext", "forged",
               "replay", "keyring")
# Self-tests of a hostile run's checks: they need --hostile.
HOSTILE_DIVERGENCES = ("forged", "replay", "keyring")


def parse(argv):
    parser = argparse.ArgumentParser(prog="harness.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, action="append", help="a seed to run (repeatable); default: --seeds")
    parser.add_argument("--seeds", type=int, default=3, help="run seeds 1…N when no --seed is given (default 3)")
    parser.add_argument("--steps", type=int, default=60, help="actions per run, barriers not counted (default 60)")
    parser.add_argument("--devices", type=int, default=2, help="devices per run, 2 or more (default 2)")
    parser.add_argument("--mode", choices=MODES, default="faults",
                        help="calm: latency only; kills: + SIGKILL of shelf-sync; "
                             "faults: + lost/cut replies, resets, server wipes (default); "
                             "concurrent: faults + bursts of devices pushing into one collection at once")
    parser.add_argument("--server", choices=("memory", "production"),
                        help="memory: Fixtures/kinto/kinto.ini, the memory backend; production: "
                             "Fixtures/kinto/production.ini on a private PostgreSQL (default: production "
                             "in concurrent mode, memory otherwise)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="production server: N Kinto worker processes over the one database "
                             "(passed to Scripts/kinto-supervised.py; default: its own single process)")
    parser.add_argument("--history", action="store_true",
                        help="Kinto keeps every bucket's history (kinto.plugins.history): idle runs read it "
                             "instead of every collection (docs/sync.md)")
    parser.add_argument("--wipe-probability", type=float, default=0.15,
                        help="faults mode: chance that the server forgets a collection after a barrier (default 0.15)")
    parser.add_argument("--burst-writes", type=_range, default=(2, 6), metavar="MIN-MAX",
                        help="concurrent mode: writes per writer device in a burst (default 2-6); larger "
                             "bursts make longer transactions, so more pulls land between two commits")
    parser.add_argument("--encrypted", action="store_true",
                        help="every device has a passphrase file (SHELF_PASSPHRASE_FILE) and the account is "
                             "end-to-end encrypted: from its setup, or from an 'encrypt' action part-way through "
                             "the history; the server is checked to hold only sealed records")
    parser.add_argument("--encrypt-probability", type=float, default=0.75, metavar="P",
                        help="--encrypted: chance that a history turns encryption on part-way through rather "
                             "than at its setup (default 0.75; 1 always, 0 never)")
    parser.add_argument("--encrypt-after-barrier", action="store_true",
                        help="--encrypted: the 'encrypt' action comes first in the epoch after the first barrier "
                             "(every device holds every record) instead of at a random step mid-epoch")
    parser.add_argument("--hostile", action="store_true",
                        help="--encrypted: Kinto's operator writes the account by hand between the devices' steps, "
                             "straight against Kinto: replays older sealed versions, forges records in the clear, "
                             "deletes records, rolls the keyring back (hostile.py); no forged or replayed content "
                             "may reach a device, and no reader's record may be lost")
    parser.add_argument("--operator-probability", type=float, default=OPERATOR_PROBABILITY, metavar="P",
                        help="--hostile: chance of an operator action before each device step "
                             f"(default {OPERATOR_PROBABILITY})")
    parser.add_argument("--operator-mix", type=_mix, default=dict(OPERATOR_MIX), metavar="KIND=W,…",
                        help="--hostile: weights of the operator's actions (default "
                             + ",".join(f"{k}={v}" for k, v in OPERATOR_MIX.items()) + "; 0 leaves one out)")
    parser.add_argument("--hide-from-pulls", type=float, default=0.0, metavar="P",
                        help="take each version of a record out of every pull with probability P, as a commit behind "
                             "the window would (only a reconciliation can find it); barrier syncs reconcile (default 0)")
    parser.add_argument("--latency-ms", type=int, default=60, help="proxy latency per request (default 60)")
    parser.add_argument("--jitter-ms", type=int, default=10, help="proxy jitter (default 10)")
    parser.add_argument("--shelf", default=str(ROOT / ".build" / "debug" / "shelf"), help="the shelf binary")
    parser.add_argument("--shelf-sync", default=str(ROOT / ".build" / "debug" / "shelf-sync"),
                        help="the shelf-sync binary")
    parser.add_argument("--python", help="the Python that has Kinto (default .venv/bin/python)")
    parser.add_argument("--cold-start", action="store_true",
                        help="start the history on devices whose store was never opened (no first sync)")
    parser.add_argument("--replay", metavar="FILE", help="run the history saved in FILE instead of generating one")
    parser.add_argument("--save-dir", default=str(ROOT / ".run" / "fault-harness"),
                        help="where a failing run's history is written (default .run/fault-harness)")
    parser.add_argument("--inject-divergence", choices=DIVERGENCES,
                        help="self-test: break the model or a device before the final check (server-only: "
                             "a book on Kinto that no device has; plaintext, with --encrypted: a book on Kinto "
                             "in the clear; with --hostile: forged, a device lists a forged title; replay, the "
                             "operator puts older versions back after the devices went quiet; keyring, it deletes "
                             "the keyring then); the run must fail")
    parser.add_argument("--shrink", type=int, nargs="?", const=40, default=0, metavar="RUNS",
                        help="after a failure, look for a smaller history that fails the same way "
                             "(at most RUNS more runs, default 40); saved as seed-N-min.json")
    parser.add_argument("--keep-going", action="store_true", help="run every seed even after a failure")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object as well")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each run's transcript")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.devices < 2 or args.seeds < 1:
        parser.error("--steps must be ≥ 1, --devices ≥ 2, --seeds ≥ 1")
    if args.workers is not None and args.workers < 1:
        parser.error("--workers must be ≥ 1")
    if not 0 <= args.encrypt_probability <= 1:
        parser.error("--encrypt-probability must be between 0 and 1")
    if args.inject_divergence == "plaintext" and not args.encrypted:
        parser.error("--inject-divergence plaintext needs --encrypted")
    if args.hostile and not args.encrypted:
        parser.error("--hostile needs --encrypted: the operator attacks an encrypted account")
    if args.inject_divergence in HOSTILE_DIVERGENCES and not args.hostile:
        parser.error(f"--inject-divergence {args.inject_divergence} needs --hostile")
    if not 0 <= args.operator_probability <= 1:
        parser.error("--operator-probability must be between 0 and 1")
    return args


def _range(text):
    """`MIN-MAX` (or one number) as a pair of positive integers."""
    try:
        low, _, high = text.partition("-")
        pair = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not MIN-MAX") from None
    if not 1 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: need 1 ≤ MIN ≤ MAX")
    return pair


def _mix(text):
    """`replay=4,forge=2,…` as weights of the operator's actions (kinds left out weigh 0)."""
    mix = {kind: 0 for kind in OPERATOR_MIX}
    try:
        for part in filter(None, text.split(",")):
            kind, _, weight = part.partition("=")
            if kind.strip() not in mix:
                raise ValueError(kind)
            mix[kind.strip()] = int(weight)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not KIND=WEIGHT,… of {', '.join(OPERATOR_MIX)}") from None
    if min(mix.values()) < 0 or not any(mix.values()):
        raise argparse.ArgumentTypeError(f"{text!r}: weights ≥ 0, not all 0")
    return mix


def server_shape(args, mode):
    """The server a run needs: concurrent writers only race on PostgreSQL."""
    return args.server or ("production" if mode == "concurrent" or args.workers else "memory")


def main(argv=None):
    args = parse(argv)
    # Whoever ends a run that overran its deadline (the Swift tests' ProcessDeadline,
    # `timeout`) sends SIGTERM first: every thread's stack goes to stderr, then the
    # default action ends the process, so a hang says where it stood.
    # (Started from a thread of Swift's concurrency pool, this process inherits a mask
    # that blocks SIGTERM: unblocked, or the stacks would never be printed.)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    faulthandler.register(signal.SIGTERM, all_threads=True, chain=True)
    for binary in (args.shelf, args.shelf_sync):
        if not os.access(binary, os.X_OK):
            print(f"harness: {binary} is not an executable; build it first (swift build)", file=sys.stderr)
            return 2
    runs = _planned_runs(args)
    # A replayed history says itself whether it ran encrypted.
    args.encrypted = args.encrypted or any(params.get("encrypted") for _, _, params in runs)
    args.hostile = args.hostile or any(params.get("hostile") for _, _, params in runs)
    args.server = server_shape(args, runs[0][2]["mode"] if runs else args.mode)
    started = time.monotonic()
    try:
        servers = Servers(args.python, args.server, args.workers, history=args.history)
    except HarnessError as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2
    totals, failed, results = RunStats(), [], []
    try:
        driver = Driver(servers, args.shelf, args.shelf_sync, args.latency_ms, args.jitter_ms,
                        runs[0][2]["devices"], args.inject_divergence, cold_start=args.cold_start,
                        hide_from_pulls=args.hide_from_pulls)
        for seed, history, params in runs:
            driver.device_count = params["devices"]
            driver.encrypted = bool(params.get("encrypted"))
            driver.hostile = bool(params.get("hostile"))
            result = driver.run(seed, history)
            results.append(result)
            for key, value in result.stats.counts.items():
                totals.bump(key, value)
            status = "ok" if result.ok else "DIVERGED"
            print(f"seed {seed}: {status} — {result.stats.counts['steps']} steps, "
                  f"{result.stats.counts['kills_mid_run']} kills mid-run, {result.stats.counts['lost_replies']} lost replies, "
                  f"{result.stats.counts['barriers']} barriers"
                  f"{', %d bursts' % result.stats.counts['bursts'] if result.stats.counts['bursts'] else ''}"
                  f"{_encryption_summary(result.stats.counts) if params.get('encrypted') else ''}"
                  f"{_operator_summary(result.stats.counts) if params.get('hostile') else ''}, "
                  f"{result.seconds:.1f} s", flush=True)
            if args.verbose:
                print("\n".join(result.transcript))
            if not result.ok:
                failed.append(result)
                _report_failure(result, params, args)
                if args.shrink:
                    _shrink(driver, result, params, args)
                if not args.keep_going:
                    break
    finally:
        servers.stop()
    mode = runs[0][2]["mode"] if runs else args.mode
    _print_result_line(mode, args, results, totals, failed, time.monotonic() - started)
    return 1 if failed else 0


def _planned_runs(args):
    if args.replay:
        saved = json.loads(pathlib.Path(args.replay).read_text())
        return [(saved["seed"], saved["history"], saved["parameters"])]
    seeds = args.seed or list(range(1, args.seeds + 1))
    params = Parameters(steps=args.steps, devices=args.devices, mode=args.mode,
                        wipe_probability=args.wipe_probability, burst_writes=args.burst_writes,
                        encrypted=args.encrypted, encrypt_probability=args.encrypt_probability,
                        encrypt_after_barrier=args.encrypt_after_barrier, hostile=args.hostile,
                        operator_probability=args.operator_probability, operator_mix=args.operator_mix)
    return [(seed, generate(seed, params), params.as_dict()) for seed in seeds]


def _report_failure(result, params, args):
    save_dir = pathlib.Path(args.save_dir)
    save_dir.mkdir(parents=True, exist_ok=True)
    saved = save_dir / f"seed-{result.seed}.json"
    saved.write_text(json.dumps({"seed": result.seed, "parameters": params, "history": result.history},
                                ensure_ascii=False, indent=1))
    print(f"\n=== seed {result.seed} diverged ({params['mode']} mode, {params['steps']} steps, "
          f"{params['devices']} devices)")
    if result.failure:
        print(f"failure: {result.failure}")
    for line in result.findings.lines[:60]:
        print(line)
    if len(result.findings.lines) > 60:
        print(f"… {len(result.findings.lines) - 60} more findings")
    print("--- history as it ran")
    print("\n".join(result.transcript))
    extra, server = "", ""
    if args.server != ("production" if params["mode"] == "concurrent" else "memory"):
        extra += f" SERVER={args.server}"
    if args.workers:
        extra += f" WORKERS={args.workers}"
    if args.history:
        extra += " HISTORY=1"
    if args.server != "memory":
        server = f" --server {args.server}" + (f" --workers {args.workers}" if args.workers else "")
    soak_args = []
    if params.get("wipe_probability", 0.15) != 0.15:
        soak_args.append(f"--wipe-probability {params['wipe_probability']}")
    if params["mode"] == "concurrent" and tuple(params.get("burst_writes", (2, 6))) != (2, 6):
        soak_args.append("--burst-writes %d-%d" % tuple(params["burst_writes"]))
    if params.get("encrypted"):
        extra += " ENCRYPTED=1"
        if params.get("encrypt_probability", 0.75) != 0.75:
            soak_args.append(f"--encrypt-probability {params['encrypt_probability']}")
        if params.get("encrypt_after_barrier"):
            soak_args.append("--encrypt-after-barrier")
    if params.get("hostile"):
        extra += " HOSTILE=1"
        if params.get("operator_probability", OPERATOR_PROBABILITY) != OPERATOR_PROBABILITY:
            soak_args.append(f"--operator-probability {params['operator_probability']}")
        if params.get("operator_mix", OPERATOR_MIX) != OPERATOR_MIX:
            soak_args.append("--operator-mix " + ",".join(f"{k}={v}" for k, v in params["operator_mix"].items()))
    if soak_args:
        extra += f" SOAK_ARGS=\"{' '.join(soak_args)}\""
    print(f"--- replay: make soak SEED={result.seed} STEPS={params['steps']} MODE={params['mode']} "
          f"DEVICES={params['devices']} LATENCY={args.latency_ms}{extra}   "
          f"(or: Tests/FaultHarness/harness.py --replay {saved} --latency-ms {args.latency_ms}{server})\n", flush=True)


def _shrink(driver, result, params, args):
    kinds = failure_kinds(result)
    print(f"shrinking seed {result.seed} ({len(result.history)} actions; keeping failures of kind {sorted(kinds)})",
          flush=True)
    smallest = shrink(result.history, lambda h: driver.run(result.seed, h), kinds, budget=args.shrink,
                      log=lambda line: print(line, flush=True))
    saved = pathlib.Path(args.save_dir) / f"seed-{result.seed}-min.json"
    saved.write_text(json.dumps({"seed": result.seed, "parameters": params, "history": smallest},
                                ensure_ascii=False, indent=1))
    final = driver.run(result.seed, smallest)
    print(f"=== smallest failing history of seed {result.seed}: {len(smallest)} actions "
          f"({'fails' if not final.ok else 'passed this time'}); replay: "
          f"Tests/FaultHarness/harness.py --replay {saved}")
    for line in final.findings.lines[:20]:
        print(line)
    print("\n".join(final.transcript), flush=True)


def _encryption_summary(counts):
    """The encrypted run's part of a seed's line: enables, joins, and the syncs of devices
    that had not joined yet — held (exit 1, as they must be) or not held (exit 0)."""
    return (f", {counts['encryptions']} enable(s), {counts['joins']} join(s), "
            f"{counts['held_syncs']} syncs held until a join, {counts['unheld_syncs']} not held")


def _operator_summary(counts):
    """The hostile run's part of a seed's line: what the operator did, what the devices refused."""
    return (f", {counts['operator_actions']} operator action(s) ({counts['operator_skipped']} skipped), "
            f"refused {counts['refused_rolled_back']} rolled back / {counts['refused_in_the_clear']} in the clear / "
            f"{counts['refused_deleted']} deleted / {counts['keyrings_refused']} keyrings, "
            f"{counts['put_backs']} put-backs")


def _print_result_line(mode, args, results, totals, failed, seconds):
    divergences = {k: 0 for k in KINDS}
    for result in results:
        for key, value in result.findings.counts.items():
            divergences[key] += value
    c = totals.counts
    line = (f"harness result: mode={mode} runs={len(results)} steps={c['steps']} "
            f"kills_mid_run={c['kills_mid_run']}/{c['kills_sent']} lost_replies={c['lost_replies']} "
            f"cut_replies={c['cut_replies']} resets={c['resets']} server_wipes={c['server_wipes']} "
            f"bursts={c['bursts']} "
            f"false_conflicts={divergences['false_conflicts']} resurrected_deletes={divergences['resurrected_deletes']} "
            f"missing_edits={divergences['missing_edits'] + divergences['wrong_fields']} "
            f"extra_or_duplicate={divergences['extra_records'] + divergences['duplicate_records']} "
            f"dead_letters={divergences['dead_letters']} pending={divergences['pending']} "
            f"differs_from_server={divergences['differs_from_server']} "
            + (f"encrypted=1 encryptions={c['encryptions']} joins={c['joins']} held_syncs={c['held_syncs']} "
               f"unheld_syncs={c['unheld_syncs']} "
               f"plaintext_on_server={divergences['plaintext_on_server']} " if args.encrypted else "")
            + (f"hostile=1 operator_actions={c['operator_actions']} replays={c['replays']} "
               f"removed_records_replayed={c['removed_records_replayed']} forges={c['forges']} "
               f"operator_deletes={c['operator_deletes']} keyring_attacks={c['keyring_attacks']} "
               f"operator_skipped={c['operator_skipped']} refused_rolled_back={c['refused_rolled_back']} "
               f"refused_in_the_clear={c['refused_in_the_clear']} refused_deleted={c['refused_deleted']} "
               f"keyrings_refused={c['keyrings_refused']} integrity_exits={c['integrity_exits']} "
               f"put_backs={c['put_backs']} forged_accepted={divergences['forged_accepted']} "
               f"replay_accepted={divergences['replay_accepted']} "
               f"rollback_on_server={divergences['rollback_on_server']} " if args.hostile else "")
            + (f"hidden_from_pulls={c['hidden_from_pulls']} found_by_reconciliation={c['found_by_reconciliation']} "
               if args.hide_from_pulls else "")
            + (f"barrier_backoff_waits={c['barrier_backoff_waits']} " if c['barrier_backoff_waits'] else "")
            + f"refused_or_broken_runs={sum(1 for r in results if r.failure)} "
            f"diverged_runs={len(failed)} {'PASS' if not failed else 'FAIL'} ({seconds:.0f} s)")
    print(line, flush=True)
    if args.json:
        print(json.dumps({"mode": mode, "runs": len(results), "counts": c, "divergences": divergences,
                          "diverged_runs": len(failed), "seconds": round(seconds, 1)}))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
